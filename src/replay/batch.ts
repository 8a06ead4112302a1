/**
 * Batch replay: every (task, sample) under one skill, with bounded concurrency, progress, abort,
 * and the rollout cache. Results come back in input order (task-major, then sample).
 */
import type { Db } from '../store/db.js';
import type { Rollout, Task } from '../core/records.js';
import type { Backend } from '../core/protocol.js';
import { silentProgress, type Progress } from '../core/progress.js';
import { SleepError, throwIfAborted } from '../core/errors.js';
import { RolloutCache, rolloutCacheKey } from './cache.js';
import { rolloutTask, type SkillDoc } from './rollout.js';
import { replaySeedFor } from './seed.js';

export interface RolloutBatchInput {
  db?: Db;
  tasks: Task[];
  skill: SkillDoc;
  target: Backend;
  judge?: Backend;
  /** samples per task (default 1) */
  samples?: number;
  /**
   * the first sample index to roll out (default 0): samples `fromSample` … `samples − 1` only. A
   * look on draws no decision saw starts past every index drawn before; the ones below it would be
   * replayed only to be left out.
   */
  fromSample?: number;
  /** concurrent rollouts (default 4) */
  concurrency?: number;
  signal?: AbortSignal;
  progress?: Progress;
  /** read and write the rollout cache (default true when a db is given) */
  useCache?: boolean;
  runId?: string;
  /** label for the progress line */
  label?: string;
}

const CACHE_FLUSH_EVERY = 16;

export interface BatchStats {
  total: number;
  cacheHits: number;
  errors: number;
}

export async function rolloutBatch(input: RolloutBatchInput): Promise<Rollout[]> {
  return (await rolloutBatchWithStats(input)).rollouts;
}

export async function rolloutBatchWithStats(input: RolloutBatchInput): Promise<{ rollouts: Rollout[]; stats: BatchStats }> {
  const samples = Math.max(1, Math.floor(input.samples ?? 1));
  const concurrency = Math.max(1, Math.floor(input.concurrency ?? 4));
  const progress = input.progress ?? silentProgress;
  const cache = input.db && input.useCache !== false ? new RolloutCache(input.db) : null;
  const first = Math.min(samples, Math.max(0, Math.floor(input.fromSample ?? 0)));
  const units = input.tasks.flatMap((task) => Array.from({ length: samples - first }, (_, k) => ({ task, sample: first + k })));
  const results: Rollout[] = new Array(units.length);
  const stats: BatchStats = { total: units.length, cacheHits: 0, errors: 0 };
  throwIfAborted(input.signal);

  // A fatal error in one worker stops the others promptly: they share this controller.
  const inner = new AbortController();
  const onOuterAbort = (): void => inner.abort(input.signal?.reason);
  input.signal?.addEventListener('abort', onOuterAbort, { once: true });
  let fatal: unknown = null;
  let next = 0;
  // cache writes are grouped: one commit per few rollouts keeps the main thread free for the calls
  const pending: Array<{ key: string; rollout: Rollout }> = [];
  const flush = (): void => {
    cache?.putMany(pending.splice(0));
  };

  progress.start(input.label ?? `replay ${input.skill.name}`, units.length);
  const worker = async (): Promise<void> => {
    while (!inner.signal.aborted) {
      const i = next++;
      if (i >= units.length) return;
      const { task, sample } = units[i];
      const seed = input.db ? replaySeedFor(input.db, task) : undefined;
      const key = cache ? rolloutCacheKey({ skill: input.skill, task, target: input.target, judge: input.judge, sample, seed }) : '';
      const hit = cache?.get(key);
      if (hit) {
        stats.cacheHits++;
        results[i] = { ...hit, cached: true };
        progress.tick(1, task.id);
        continue;
      }
      try {
        const r = await rolloutTask({ task, skill: input.skill, target: input.target, judge: input.judge, sample, signal: inner.signal, runId: input.runId, seed });
        if (r.error) stats.errors++;
        else if (cache) {
          pending.push({ key, rollout: r });
          if (pending.length >= CACHE_FLUSH_EVERY) flush();
        }
        results[i] = r;
        progress.tick(1, task.id);
      } catch (err) {
        if (fatal === null) fatal = err;
        inner.abort(err);
        return;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, units.length) }, worker));
  } finally {
    input.signal?.removeEventListener('abort', onOuterAbort);
    flush(); // finished rollouts are kept even when the batch stops early
  }
  if (input.signal?.aborted) {
    progress.done('aborted');
    throw new SleepError('ABORTED', 'replay aborted', { cause: input.signal.reason });
  }
  if (fatal !== null) {
    progress.done('stopped');
    throw fatal;
  }
  const failed = stats.errors ? `, ${stats.errors} failed` : '';
  progress.done(`${units.length} rollouts (${stats.cacheHits} cached${failed})`);
  return { rollouts: results, stats };
}
