/**
 * Scoring a skill on a set of tasks (a split): the number the trainer's gate compares.
 * Per task, the metric is averaged over samples; the split score is the mean over tasks.
 * A rollout that failed to run (`error`) scores 0, as upstream does.
 */
import type { Rollout } from '../core/records.js';
import { DEFAULT_MIXED_WEIGHT, metricScore, type GateMetric } from '../core/scoring.js';
import { rolloutBatch, type RolloutBatchInput } from './batch.js';

export type { GateMetric };

/** One rollout's gate-metric score (see core/scoring). */
export function rolloutScore(r: Pick<Rollout, 'hardScore' | 'softScore'>, metric: GateMetric, mixedWeight = DEFAULT_MIXED_WEIGHT): number {
  return metricScore(r.hardScore, r.softScore, metric, mixedWeight);
}

export interface SkillScore {
  mean: number;
  perTask: Array<{ taskId: string; score: number }>;
  rollouts: Rollout[];
}

/** Aggregates already-made rollouts (e.g. cached ones) into per-task scores and their mean. */
export function summarizeRollouts(rollouts: Rollout[], metric: GateMetric, mixedWeight = DEFAULT_MIXED_WEIGHT): Omit<SkillScore, 'rollouts'> {
  const byTask = new Map<string, number[]>();
  for (const r of rollouts) {
    const list = byTask.get(r.taskId) ?? [];
    list.push(r.error ? 0 : rolloutScore(r, metric, mixedWeight));
    byTask.set(r.taskId, list);
  }
  const perTask = [...byTask].map(([taskId, scores]) => ({ taskId, score: scores.reduce((a, b) => a + b, 0) / scores.length }));
  const mean = perTask.length ? perTask.reduce((a, t) => a + t.score, 0) / perTask.length : 0;
  return { mean, perTask };
}

export async function scoreSkill(input: RolloutBatchInput & { metric: GateMetric; mixedWeight?: number }): Promise<SkillScore> {
  const rollouts = await rolloutBatch(input);
  return { ...summarizeRollouts(rollouts, input.metric, input.mixedWeight), rollouts };
}
