/**
 * One structured optimizer call, plus per-stage usage accounting. Payloads are always filled
 * faithfully (the sim backend reads them); real models read the rendered prompt.
 */
import type { z } from 'zod';
import type { Backend, LlmReply, Operation, PayloadFor } from '../../core/protocol.js';
import { completeJson } from '../../llm/json.js';
import type { Rollout } from '../../core/records.js';
import { addReplayWorkspace, emptyReplayWorkspaceSummary, type ReplayWorkspaceSummary } from '../../replay/index.js';
import { isSleepError } from '../../core/errors.js';
import type { RenderedPrompt } from './prompts.js';

export interface StageUsage {
  calls: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  /** of `calls`: fresh target replays (a rollout is one; the rest are optimizer calls) */
  replays?: number;
}

/** Usage per stage (rollout, reflect, merge, rank, lr, gate, slow_update, meta_skill, test, attribution). */
export class UsageMeter {
  readonly stages: Record<string, StageUsage> = {};
  /** where this run's fresh (uncached) replays ran: which commit, reused or empty and why */
  readonly replays: ReplayWorkspaceSummary = emptyReplayWorkspaceSummary();

  /** A rollout's usage, and its workspace when it really ran (a cached one used none tonight). */
  addRollout(stage: string, r: Rollout): void {
    this.add(stage, { tokensIn: r.tokensIn, tokensOut: r.tokensOut, costUsd: r.costUsd, cached: r.cached });
    if (r.cached) return;
    // counted apart: a stage (the slow update) may make both kinds of call, and the tokens per
    // night bench prices a replay of the agent CLI at many times an optimizer call
    const s = this.stages[stage];
    s.replays = (s.replays ?? 0) + 1;
    addReplayWorkspace(this.replays, r);
  }

  add(stage: string, u: { tokensIn: number; tokensOut: number; costUsd: number; cached?: boolean }): void {
    const s = (this.stages[stage] ??= { calls: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 });
    if (u.cached) return;
    s.calls++;
    s.tokensIn += u.tokensIn;
    s.tokensOut += u.tokensOut;
    s.costUsd += u.costUsd;
  }

  addReplies(stage: string, replies: LlmReply[]): void {
    for (const r of replies) this.add(stage, r);
  }

  total(): StageUsage {
    const t: StageUsage = { calls: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 };
    for (const s of Object.values(this.stages)) {
      t.calls += s.calls;
      t.tokensIn += s.tokensIn;
      t.tokensOut += s.tokensOut;
      t.costUsd += s.costUsd;
    }
    return t;
  }

  snapshot(): Record<string, StageUsage> {
    return structuredClone(this.stages);
  }

  restore(stages: Record<string, StageUsage> | undefined): void {
    if (stages) Object.assign(this.stages, structuredClone(stages));
  }
}

export interface CallContext {
  optimizer: Backend;
  meter: UsageMeter;
  signal?: AbortSignal;
  runId?: string;
}

export async function askOptimizer<O extends Operation, S extends z.ZodType>(
  ctx: CallContext,
  stage: string,
  operation: O,
  payload: PayloadFor[O],
  rendered: RenderedPrompt,
  schema: S,
): Promise<z.infer<S>> {
  const res = await completeJson(
    ctx.optimizer,
    { role: 'optimizer', operation, system: rendered.system, prompt: rendered.prompt, payload, temperature: 0, cacheable: true, runId: ctx.runId, maxTokens: 8192 },
    schema,
    ctx.signal,
  );
  ctx.meter.addReplies(stage, res.replies);
  return res.value as z.infer<S>;
}

/**
 * An error a stage survives with its fallback: an unusable reply, or a call that still timed out or
 * was rate-limited after the backend's retries. Budget, abort, auth and availability errors propagate.
 */
export function isSurvivable(err: unknown): boolean {
  return isSleepError(err) && (err.code === 'BACKEND_BAD_REPLY' || err.code === 'BACKEND_TIMEOUT' || err.code === 'BACKEND_RATE_LIMIT');
}
