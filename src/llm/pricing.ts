/**
 * USD prices per million tokens, by model-name prefix (longest prefix wins, so dated snapshots
 * like `claude-sonnet-4-5-20250929` resolve). Used for API backends and to estimate a call's
 * cost before it is made (budget). CLI backends report their own cost when the CLI gives one.
 * Unknown models fall back to a deliberately high default so a budget is never bypassed by a typo.
 */
import type { Role } from '../core/protocol.js';
export interface ModelPrice {
  inPerM: number;
  outPerM: number;
}

export const PRICE_TABLE: Record<string, ModelPrice> = {
  // 4-6 and later are priced as their 4-5 predecessors (same tier; update when the provider changes it)
  'claude-opus-4-8': { inPerM: 5, outPerM: 25 },
  'claude-opus-4-7': { inPerM: 5, outPerM: 25 },
  'claude-opus-4-6': { inPerM: 5, outPerM: 25 },
  'claude-sonnet-4-6': { inPerM: 3, outPerM: 15 },
  'claude-opus-4-5': { inPerM: 5, outPerM: 25 },
  'claude-opus-4-1': { inPerM: 15, outPerM: 75 },
  'claude-opus-4': { inPerM: 15, outPerM: 75 },
  'claude-sonnet-4-5': { inPerM: 3, outPerM: 15 },
  'claude-sonnet-4': { inPerM: 3, outPerM: 15 },
  'claude-3-7-sonnet': { inPerM: 3, outPerM: 15 },
  'claude-haiku-4-5': { inPerM: 1, outPerM: 5 },
  'claude-3-5-haiku': { inPerM: 0.8, outPerM: 4 },
  opus: { inPerM: 5, outPerM: 25 },
  sonnet: { inPerM: 3, outPerM: 15 },
  haiku: { inPerM: 1, outPerM: 5 },
  'gpt-5-nano': { inPerM: 0.05, outPerM: 0.4 },
  'gpt-5-mini': { inPerM: 0.25, outPerM: 2 },
  'gpt-5-codex': { inPerM: 1.25, outPerM: 10 },
  'gpt-5': { inPerM: 1.25, outPerM: 10 },
  'gpt-4.1-nano': { inPerM: 0.1, outPerM: 0.4 },
  'gpt-4.1-mini': { inPerM: 0.4, outPerM: 1.6 },
  'gpt-4.1': { inPerM: 2, outPerM: 8 },
  'gpt-4o-mini': { inPerM: 0.15, outPerM: 0.6 },
  'gpt-4o': { inPerM: 2.5, outPerM: 10 },
  'o4-mini': { inPerM: 1.1, outPerM: 4.4 },
  o3: { inPerM: 2, outPerM: 8 },
  'deepseek-chat': { inPerM: 0.27, outPerM: 1.1 },
  'deepseek-reasoner': { inPerM: 0.55, outPerM: 2.19 },
};

/** Used when the model is unknown and the endpoint is not known to be free (local). */
export const FALLBACK_PRICE: ModelPrice = { inPerM: 5, outPerM: 25 };
export const FREE: ModelPrice = { inPerM: 0, outPerM: 0 };

export function priceFor(model: string): ModelPrice | undefined {
  const m = model.toLowerCase().replace(/^.*\//, ''); // "anthropic/claude-sonnet-4-5" → "claude-sonnet-4-5"
  let best: string | undefined;
  for (const key of Object.keys(PRICE_TABLE)) {
    if (m.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : PRICE_TABLE[best];
}

export function costUsd(price: ModelPrice, tokensIn: number, tokensOut: number): number {
  return (tokensIn * price.inPerM + tokensOut * price.outPerM) / 1_000_000;
}

/** ≈4 characters per token for English and code: every rough count uses this one ratio. */
export const CHARS_PER_TOKEN = 4;

/**
 * Agent CLIs wrap our prompt in their own system prompt and tool list: a `perform` call (the
 * target, with tools) carries more than any other. Budget estimates and forecasts count it.
 */
export const CLI_OVERHEAD_TOKENS = { perform: 20_000, other: 8_000 } as const;

/**
 * Where one CLI's figure is known to differ: `claude` runs the other roles with our own system
 * prompt, no tools and no skills (adapters/claude-code/exec.ts), measured at 461 tokens a call
 * against its 2.1.328 binary (bench/tokens.ts); twice that, to be safe. Counted at 8,000, a first
 * night's forecast of a hundred judge calls was ~750k tokens too high and its plan shrank for it.
 */
const CLI_OVERHEAD_BY_BACKEND: Readonly<Record<string, Partial<Record<keyof typeof CLI_OVERHEAD_TOKENS, number>>>> = {
  claude: { other: 1_000 },
};

/** The CLI overhead of one call of a role (the target performs; every other role does not), for a backend when given. */
export function cliOverheadTokens(role: Role, backend?: string): number {
  const kind = role === 'target' ? 'perform' : 'other';
  return (backend !== undefined ? CLI_OVERHEAD_BY_BACKEND[backend]?.[kind] : undefined) ?? CLI_OVERHEAD_TOKENS[kind];
}

/** Rough token count of text. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Pre-call estimate: prompt tokens + the reply's maximum (or a typical reply when unbounded). */
export function estimateCall(price: ModelPrice, promptChars: number, maxTokens?: number): { tokens: number; usd: number } {
  const tokensIn = Math.ceil(promptChars / CHARS_PER_TOKEN);
  const tokensOut = maxTokens ?? 1024;
  return { tokens: tokensIn + tokensOut, usd: costUsd(price, tokensIn, tokensOut) };
}
