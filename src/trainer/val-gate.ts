/**
 * Every decision made on validation goes through here: the paired gate with its bootstrap CI, the
 * extra sample rounds an indecisive candidate earns, and a count of the comparisons per stage.
 * Why one place: the step, the rescue, the slow update and the finishing passes all reuse the same
 * val split, and each reuse makes best-on-val more optimistic; counting them is how a run reports
 * (and bounds) that reuse.
 */
import type { GateInput, SplitScores } from './gate.js';
import { pairedGateDecision, settleGate, type SettledGate } from './paired.js';
import type { TrainContext } from './context.js';
import type { TrainOptions } from './types.js';

/** The gate input shared by every val decision: metric, margin, no-regression, enabled. */
export function gateInputFor(options: TrainOptions, current: SplitScores, best: number): Omit<GateInput, 'candidate'> {
  return {
    metric: options.gateMetric,
    mixedWeight: options.mixedWeight,
    current,
    bestScore: best,
    margin: options.margin,
    noRegression: options.noRegression,
    enabled: options.gateEnabled,
  };
}

export type ValStage = 'gate' | 'incumbent' | 'rescue' | 'attribution' | 'prune' | 'simplify' | 'slow_update' | 'appendix' | 'finish_slice' | 'screen' | 'prescreen' | 'fresh_estimate';

/** Counts one validation measurement of `stage` (persisted with the run state). */
export function countVal(ctx: Pick<TrainContext, 'st'>, stage: ValStage, n = 1): void {
  const c = (ctx.st.valComparisons ??= {});
  c[stage] = (c[stage] ?? 0) + n;
}

/**
 * The interval's confidence at each look: each extra sample round is another chance for noise to
 * pass, so the error rate is split over the looks (Bonferroni), keeping the whole sequence at
 * `confidence`.
 */
export function perLookConfidence(confidence: number, rounds: number): number {
  return 1 - (1 - confidence) / (Math.max(0, rounds) + 1);
}

/**
 * Gates `candidate` against `current` on val. An indecisive verdict re-measures both with more
 * samples per task (up to `options.gateRounds` extra rounds; the first samples come from the cache).
 */
export async function gateOnVal(
  ctx: Pick<TrainContext, 'options' | 'st' | 'val' | 'measure'>,
  stage: ValStage,
  current: { content: string; scores: SplitScores; fresh?: number },
  candidate: { content: string; scores: SplitScores },
  bestScore: number,
  seed: number,
): Promise<SettledGate> {
  const { options, val, measure } = ctx;
  const maxRounds = options.gateEnabled ? options.gateRounds : 0;
  const confidence = perLookConfidence(options.gateConfidence, maxRounds);
  return settleGate({
    current: current.scores,
    candidate: candidate.scores,
    maxRounds,
    decide: (cur, cand, round) => pairedGateDecision({ ...gateInputFor(options, cur, bestScore), candidate: cand, seed: seed * 31 + round, confidence, resamples: options.gateResamples }),
    remeasure: async (round) => {
      const samples = options.samples * (round + 1);
      countVal(ctx, stage, 2);
      // a fresh incumbent keeps its selection-biased first sample out of the pool
      const fresh = current.fresh ?? 0;
      const a$ = fresh > 0 ? measure(val, current.content, stage, options.samples * (1 + fresh + round), options.samples) : measure(val, current.content, stage, samples);
      const [a, b] = await Promise.all([a$, measure(val, candidate.content, stage, samples)]);
      return { current: a.scores, candidate: b.scores };
    },
  });
}
