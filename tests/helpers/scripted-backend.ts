/**
 * A scripted optimizer backend for stage tests: each operation's reply is computed from the typed
 * request by a handler the test supplies, and every request is recorded for assertions.
 */
import type { Backend, LlmReply, LlmRequest, Operation } from '../../src/core/protocol.js';

export type Handler = (req: LlmRequest) => string | Promise<string>;

export interface ScriptedBackend extends Backend {
  calls: LlmRequest[];
}

export function scriptedBackend(handlers: Partial<Record<Operation, Handler>>): ScriptedBackend {
  const calls: LlmRequest[] = [];
  return {
    name: 'scripted',
    model: 'scripted-1',
    destination: 'local',
    calls,
    async complete<O extends Operation>(req: LlmRequest<O>): Promise<LlmReply> {
      calls.push(req as LlmRequest);
      const h = handlers[req.operation];
      if (!h) throw new Error(`no handler for ${req.operation}`);
      const text = await h(req as LlmRequest);
      return { text, backend: 'scripted', model: 'scripted-1', tokensIn: req.prompt.length / 4, tokensOut: text.length / 4, costUsd: 0, latencyMs: 0, cached: false };
    },
  };
}
