/**
 * Re-scoring a partial selection of edits before it is written. First from the rollout cache:
 * training already scored many documents (leave-one-out attribution scores "all edits but one"),
 * so a subset's exact text often has cached rollouts on every validation task — then the number is
 * free and exact. Otherwise the subset is replayed through the trainer's `rescoreSubset` with the
 * configured target/judge backends, when a backend factory is available.
 */
import type { Db } from '../store/db.js';
import type { Proposal } from '../core/records.js';
import { RolloutSchema, type Rollout } from '../core/records.js';
import { SleepError, throwIfAborted } from '../core/errors.js';
import { contentForEdits, rescoreSubset } from '../proposals/partial.js';
import type { Config } from '../core/config.js';
import { skillHash, summarizeRollouts, type GateMetric } from '../replay/index.js';
import { rolloutRecordsFor } from '../store/repos/rollouts.js';
import type { RescoreOutcome } from './services.js';

/** Mean validation score of `content` from cached rollouts, or null when any validation task is missing. */
export function cachedScore(db: Db, content: string, taskIds: string[], metric: GateMetric): number | null {
  if (taskIds.length === 0) return null;
  const rows = rolloutRecordsFor(db, skillHash(content), taskIds);
  const rollouts: Rollout[] = [];
  for (const r of rows) {
    try {
      const parsed = RolloutSchema.safeParse(JSON.parse(r.record));
      if (parsed.success) rollouts.push(parsed.data);
    } catch {
      /* an unreadable cache row is a miss */
    }
  }
  const covered = new Set(rollouts.map((r) => r.taskId));
  if (!taskIds.every((t) => covered.has(t))) return null;
  return summarizeRollouts(rollouts, metric).mean;
}

/** Rejects with SleepError ABORTED when `signal` fires: a cancelled replay yields no score. */
export type ReplayScorer = (p: Proposal, editIds: string[], signal?: AbortSignal) => Promise<number>;

export async function rescoreEdits(db: Db, p: Proposal, editIds: string[], metric: GateMetric, replay?: ReplayScorer, signal?: AbortSignal): Promise<RescoreOutcome> {
  throwIfAborted(signal);
  const accepted = p.edits.filter((e) => e.status === 'accepted').map((e) => e.id);
  if (accepted.length > 0 && accepted.every((id) => editIds.includes(id))) return { score: p.candidateScore, baseline: p.baselineScore, source: 'the night (all edits)' };
  if (editIds.length === 0) return { score: p.baselineScore, baseline: p.baselineScore, source: 'the night (no edits)' };
  const content = contentForEdits(p, editIds);
  const valIds = p.perTask.filter((t) => t.split === 'val').map((t) => t.taskId);
  const cached = cachedScore(db, content, valIds, metric);
  if (cached !== null) return { score: cached, baseline: p.baselineScore, source: 'cache' };
  if (!replay) {
    throw new SleepError('BACKEND_UNAVAILABLE', 'this selection was never scored and no backend is available to replay it', {
      hint: 'apply the whole proposal, or configure a backend (`skillopt-sleep doctor`)',
    });
  }
  const replayed = await replay(p, editIds, signal);
  // a scorer that ignores the signal still must not turn a cancelled replay into a score
  throwIfAborted(signal);
  return { score: replayed, baseline: p.baselineScore, source: 'replay' };
}

/**
 * The replay path: the configured target/judge backends (never `sim` for real data), through the
 * managed wrapper, so the calls are cached, limited and recorded in the egress ledger like a night's.
 * Loaded on demand: most reviews never need it.
 */
export function replayWithConfiguredBackends(db: Db, config: Config, env: NodeJS.ProcessEnv): ReplayScorer {
  return async (p, editIds, signal) => {
    const { createRoleBackends } = await import('../llm/registry.js');
    throwIfAborted(signal); // cancelled while the backends loaded
    const roles = createRoleBackends(config, { db, env });
    const r = await rescoreSubset(db, p.id, editIds, { target: roles.target, judge: roles.judge, metric: config.training.gateMetric, signal });
    return r.subsetScore;
  };
}
