/** Running a skill on a split through replay, and turning rollouts into gate scores. */
import type { Db } from '../store/db.js';
import type { Rollout, Task } from '../core/records.js';
import type { RoleBackends } from '../core/protocol.js';
import { rolloutBatch } from '../replay/index.js';
import { scoresOf, type SplitScores } from './gate/gate.js';
import type { UsageMeter } from './optimizer/call.js';

/** Per-task means over samples; a rollout that failed to run scores 0 (it cannot count as a pass). */
export function splitScoresFrom(rollouts: Rollout[]): SplitScores {
  const byTask = new Map<string, Array<{ hard: number; soft: number }>>();
  for (const r of rollouts) {
    const t = byTask.get(r.taskId) ?? [];
    t.push({ hard: r.error ? 0 : r.hardScore, soft: r.error ? 0 : r.softScore });
    byTask.set(r.taskId, t);
  }
  const perTask = [...byTask].map(([taskId, s]) => ({
    taskId,
    hard: s.reduce((a, x) => a + x.hard, 0) / s.length,
    soft: s.reduce((a, x) => a + x.soft, 0) / s.length,
    // several samples of one task let the gate tell sampling noise from a real change
    ...(s.length > 1 ? { samples: s } : {}),
  }));
  return scoresOf(perTask);
}

export const EMPTY_SCORES: SplitScores = { hard: 0, soft: 0, perTask: [] };

export interface Measurer {
  /**
   * `samples` overrides the run's samples per task (an indecisive gate asks for more); `from`
   * leaves out the samples below it (the incumbent's selection-biased sample 0).
   */
  (tasks: Task[], content: string, stage: string, samples?: number, from?: number): Promise<{ scores: SplitScores; rollouts: Rollout[] }>;
}

export function makeMeasurer(opts: {
  db: Db;
  backends: RoleBackends;
  skillName: string;
  samples: number;
  concurrency: number;
  meter: UsageMeter;
  signal?: AbortSignal;
  runId: string;
}): Measurer {
  return async (tasks, content, stage, samples, from = 0) => {
    if (!tasks.length) return { scores: EMPTY_SCORES, rollouts: [] };
    const rollouts = await rolloutBatch({
      db: opts.db,
      tasks,
      skill: { name: opts.skillName, content },
      target: opts.backends.target,
      judge: opts.backends.judge,
      samples: samples ?? opts.samples,
      // the samples below `from` are left out of the scores: not replayed either (a fresh estimate
      // starts past ten draws a task; replaying those cost ten rollouts a val task for nothing)
      fromSample: from,
      concurrency: opts.concurrency,
      signal: opts.signal,
      useCache: true,
      runId: opts.runId,
    });
    for (const r of rollouts) opts.meter.addRollout(stage, r);
    return { scores: splitScoresFrom(rollouts), rollouts };
  };
}
