/**
 * The `openai` backend: the official `openai` SDK, Chat Completions — the wire protocol every
 * OpenAI-compatible server speaks (Ollama, vLLM, LM Studio, DeepSeek...). With
 * `backends.openai.azureEndpoint` set it uses the SDK's AzureOpenAI client (deployment = model).
 */
// The SDK is loaded on first use: importing it costs ~100 ms+ on every CLI start otherwise.
import type OpenAI from 'openai';
import type { Backend, LlmReply, LlmRequest, Operation } from '../core/protocol.js';
import { SleepError } from '../core/errors.js';
import { hostOf, mapApiError } from './http-errors.js';
import type { ModelPrice } from './pricing.js';
import { apiPrice, apiReply } from './api-reply.js';

export interface OpenAiBackendOptions {
  model: string;
  apiKey: string;
  apiKeyEnv?: string;
  baseURL?: string;
  azureEndpoint?: string;
  azureApiVersion?: string;
  timeoutMs?: number;
  defaultMaxTokens?: number;
}

export const OPENAI_DEFAULT_HOST = 'api.openai.com';

/** Reasoning models reject `temperature` and `max_tokens` (they take max_completion_tokens). */
function isReasoningModel(model: string): boolean {
  return /^(gpt-5|o1|o3|o4)/i.test(model.replace(/^.*\//, ''));
}

export class OpenAiBackend implements Backend {
  readonly name = 'openai';
  readonly model: string;
  readonly destination: string;
  readonly price: ModelPrice;
  /** the official endpoint (or Azure) understands max_completion_tokens; compatible servers often only max_tokens */
  private readonly official: boolean;

  constructor(private readonly opts: OpenAiBackendOptions) {
    this.model = opts.model;
    if (opts.azureEndpoint) {
      this.destination = hostOf(opts.azureEndpoint, 'azure');
      this.official = true;
    } else {
      this.destination = hostOf(opts.baseURL, OPENAI_DEFAULT_HOST);
      this.official = !opts.baseURL || this.destination === OPENAI_DEFAULT_HOST;
    }
    this.price = apiPrice(opts.model, this.destination);
  }

  private clientPromise?: Promise<OpenAI>;

  private client(): Promise<OpenAI> {
    const opts = this.opts;
    this.clientPromise ??= import('openai').then(({ default: OpenAIClient, AzureOpenAI }) => {
      const timeout = opts.timeoutMs ?? 180_000;
      if (opts.azureEndpoint) {
        return new AzureOpenAI({
          endpoint: opts.azureEndpoint,
          apiKey: opts.apiKey,
          apiVersion: opts.azureApiVersion ?? '2024-10-21',
          deployment: opts.model,
          maxRetries: 0,
          timeout,
        });
      }
      return new OpenAIClient({ apiKey: opts.apiKey, baseURL: opts.baseURL ?? `https://${OPENAI_DEFAULT_HOST}/v1`, maxRetries: 0, timeout });
    });
    return this.clientPromise;
  }

  async complete<O extends Operation>(req: LlmRequest<O>, signal?: AbortSignal): Promise<LlmReply> {
    const started = Date.now();
    const maxTokens = req.maxTokens ?? this.opts.defaultMaxTokens;
    const reasoning = isReasoningModel(this.model);
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
    if (req.system) messages.push({ role: 'system', content: req.system });
    messages.push({ role: 'user', content: req.prompt });
    let completion: OpenAI.Chat.ChatCompletion;
    try {
      completion = await (await this.client()).chat.completions.create(
        {
          model: this.model,
          messages,
          ...(maxTokens !== undefined ? (this.official || reasoning ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens }) : {}),
          ...(req.temperature !== undefined && !reasoning ? { temperature: req.temperature } : {}),
        },
        { signal },
      );
    } catch (err) {
      throw mapApiError(err, 'openai', { keyEnv: this.opts.apiKeyEnv, destination: this.destination });
    }
    const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
    if (!choice || !choice.message) {
      throw new SleepError('BACKEND_BAD_REPLY', `openai (${this.destination}) reply has no choices`, { details: { retryable: true } });
    }
    const text = typeof choice.message.content === 'string' ? choice.message.content : '';
    const tokensIn = completion.usage?.prompt_tokens ?? 0;
    const tokensOut = completion.usage?.completion_tokens ?? 0;
    return apiReply(this, { text, model: completion.model, tokensIn, tokensOut }, started);
  }
}
