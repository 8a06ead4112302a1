/**
 * The gate metric: how a rollout's hard score (every check passed) and soft score (share of checks)
 * become the one number the trainer compares. Replay, the trainer's gate, the config and the review's
 * re-scoring all speak this vocabulary, so it lives below all of them.
 */
import { z } from 'zod';

export const GateMetric = z.enum(['hard', 'soft', 'mixed']);
export type GateMetric = z.infer<typeof GateMetric>;

/** Weight of soft in the mixed metric (upstream `select_gate_score` default). */
export const DEFAULT_MIXED_WEIGHT = 0.5;

/** upstream `select_gate_score`: mixed = (1-w)·hard + w·soft, w clamped to [0,1] */
export function metricScore(hard: number, soft: number, metric: GateMetric, mixedWeight = DEFAULT_MIXED_WEIGHT): number {
  if (metric === 'hard') return hard;
  if (metric === 'soft') return soft;
  const w = Math.min(1, Math.max(0, mixedWeight));
  return (1 - w) * hard + w * soft;
}
