/**
 * What the two HTTP API backends (anthropic, openai) share once the provider has answered: their
 * APIs report tokens but no cost, so both price a call by our table the same way, and a reply is
 * built from the same parts whichever SDK it came through.
 */
import type { LlmReply } from '../core/protocol.js';
import { isLocalHost } from './http-errors.js';
import { FALLBACK_PRICE, FREE, costUsd, priceFor, type ModelPrice } from './pricing.js';

/** The table's price for the model; an unknown model is free on a local server and dear elsewhere (a budget is never bypassed by a typo). */
export function apiPrice(model: string, destination: string): ModelPrice {
  return priceFor(model) ?? (isLocalHost(destination) ? FREE : FALLBACK_PRICE);
}

/** The reply of one API call that started at `started` (ms): cost from the backend's price, never from the cache. */
export function apiReply(
  backend: { readonly name: string; readonly model: string; readonly price: ModelPrice },
  answer: { text: string; model: string | undefined; tokensIn: number; tokensOut: number },
  started: number,
): LlmReply {
  return {
    text: answer.text,
    backend: backend.name,
    model: answer.model || backend.model,
    tokensIn: answer.tokensIn,
    tokensOut: answer.tokensOut,
    costUsd: costUsd(backend.price, answer.tokensIn, answer.tokensOut),
    latencyMs: Date.now() - started,
    cached: false,
  };
}
