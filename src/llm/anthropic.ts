/**
 * The `anthropic` backend: the official @anthropic-ai/sdk Messages API. One user message per
 * call (the rendered prompt), optional system prompt, text blocks joined. SDK retries are off;
 * retry, timeout, budget and ledger are applied by the registry's wrapper.
 */
// The SDK is loaded on first use so CLI commands that never call a model start fast.
import type Anthropic from '@anthropic-ai/sdk';
import type { Backend, LlmReply, LlmRequest, Operation } from '../core/protocol.js';
import { SleepError } from '../core/errors.js';
import { hostOf, mapApiError } from './http-errors.js';
import type { ModelPrice } from './pricing.js';
import { apiPrice, apiReply } from './api-reply.js';

export interface AnthropicBackendOptions {
  model: string;
  apiKey: string;
  apiKeyEnv?: string;
  baseURL?: string;
  /** the SDK's own request timeout (the wrapper also enforces one) */
  timeoutMs?: number;
  defaultMaxTokens?: number;
}

export const ANTHROPIC_DEFAULT_HOST = 'api.anthropic.com';

export class AnthropicBackend implements Backend {
  readonly name = 'anthropic';
  readonly model: string;
  readonly destination: string;
  readonly price: ModelPrice;

  constructor(private readonly opts: AnthropicBackendOptions) {
    this.model = opts.model;
    this.destination = hostOf(opts.baseURL, ANTHROPIC_DEFAULT_HOST);
    this.price = apiPrice(opts.model, this.destination);
  }

  private clientPromise?: Promise<Anthropic>;

  private client(): Promise<Anthropic> {
    const opts = this.opts;
    this.clientPromise ??= import('@anthropic-ai/sdk').then(
      ({ default: AnthropicClient }) =>
        new AnthropicClient({
          apiKey: opts.apiKey,
          // explicit so ANTHROPIC_BASE_URL in the user's shell cannot silently redirect our traffic
          baseURL: opts.baseURL ?? `https://${ANTHROPIC_DEFAULT_HOST}`,
          maxRetries: 0,
          timeout: opts.timeoutMs ?? 180_000,
        }),
    );
    return this.clientPromise;
  }

  async complete<O extends Operation>(req: LlmRequest<O>, signal?: AbortSignal): Promise<LlmReply> {
    const started = Date.now();
    let message: Anthropic.Message;
    try {
      message = await (await this.client()).messages.create(
        {
          model: this.model,
          max_tokens: req.maxTokens ?? this.opts.defaultMaxTokens ?? 4096,
          ...(req.system ? { system: req.system } : {}),
          ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
          messages: [{ role: 'user', content: req.prompt }],
        },
        { signal },
      );
    } catch (err) {
      throw mapApiError(err, 'anthropic', { keyEnv: this.opts.apiKeyEnv, destination: this.destination });
    }
    if (!message || !Array.isArray(message.content)) {
      throw new SleepError('BACKEND_BAD_REPLY', `anthropic (${this.destination}) reply has no content blocks`, { details: { retryable: true } });
    }
    const text = message.content
      .filter((b): b is Anthropic.TextBlock => b.type === 'text')
      .map((b) => b.text)
      .join('');
    const tokensIn = (message.usage?.input_tokens ?? 0) + (message.usage?.cache_read_input_tokens ?? 0) + (message.usage?.cache_creation_input_tokens ?? 0);
    const tokensOut = message.usage?.output_tokens ?? 0;
    return apiReply(this, { text, model: message.model, tokensIn, tokensOut }, started);
  }
}
