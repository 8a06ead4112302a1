/**
 * Every decision made on validation goes through here: the paired gate with its bootstrap CI, the
 * extra sample rounds an indecisive candidate earns, and a count of the comparisons per stage.
 * Why one place: the step, the rescue, the slow update and the finishing passes all reuse the same
 * val split, and each reuse makes best-on-val more optimistic; counting them is how a run reports
 * (and bounds) that reuse.
 */
import type { Task } from '../../core/records.js';
import type { GateInput, SplitScores } from './gate.js';
import { pairedGateDecision, settleGate, type FocusTest, type PairedGateDecision, type SettledGate } from './paired.js';
import type { TrainContext } from '../context.js';
import type { TrainOptions } from '../options.js';

/**
 * The gate's constants. Confidence 0.9 two-sided is a 95% one-sided bound each way; 2000 resamples
 * keep the interval's own noise below 0.005; 4 extra rounds let an indecisive candidate reach 5
 * samples a task (the per-sample interval needs 3). A real fix of one check raises its job's val
 * tasks by ≥ 0.2 on the train bench; a paraphrase of a rule the skill holds, or a rule about
 * nothing, by ≤ 0.06: 0.1 is the smallest gain on its own job worth a change to the skill.
 */
export const GATE = { confidence: 0.9, resamples: 2000, rounds: 4, minFocusGain: 0.1 } as const;

/** The gate input shared by every val decision: metric, margin, no-regression, enabled. */
export function gateInputFor(options: TrainOptions, current: SplitScores, best: number): Omit<GateInput, 'candidate'> {
  return {
    metric: options.gateMetric,
    current,
    bestScore: best,
    margin: options.margin,
    noRegression: options.noRegression,
    enabled: options.gateEnabled,
  };
}

export type ValStage = 'gate' | 'incumbent' | 'rescue' | 'attribution' | 'prune' | 'simplify' | 'slow_update' | 'prescreen' | 'fresh_estimate' | 'focus';

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
 * Samples per focus task for every sample per val task in an extra round: the focus tasks get as
 * many new rollouts per round as the whole split does (3 tasks of 24 → 8×), so the look where the
 * edit acts narrows as fast as the one over every task. Why not spend them all there: the
 * other jobs' tasks must show no loss before the focus look may accept.
 */
export function focusBoost(focusTasks: number, valTasks: number): number {
  return focusTasks > 0 ? Math.max(1, Math.round(valTasks / focusTasks)) : 1;
}

/** The focus look rejected the candidate: its gain is below the minimum worth a change. */
export function isBelowMinGain(d: PairedGateDecision): boolean {
  return d.outcome === 'reject' && d.focus !== undefined && d.focus.hi < d.focus.minGain;
}

/**
 * Gates `candidate` against `current` on val. An indecisive verdict re-measures both with more
 * samples per task (up to `GATE.rounds` extra rounds; the first samples come from the cache).
 * `focus` (val task ids where the candidate's edits claim to act) adds the focus look
 * (paired.ts) and denser samples on those tasks in the extra rounds.
 */
export async function gateOnVal(
  ctx: Pick<TrainContext, 'options' | 'st' | 'val' | 'measure'>,
  stage: ValStage,
  current: { content: string; scores: SplitScores; fresh?: number },
  candidate: { content: string; scores: SplitScores },
  bestScore: number,
  seed: number,
  focus: ReadonlySet<string> | null = null,
): Promise<SettledGate> {
  const { options, val, measure } = ctx;
  const maxRounds = options.gateEnabled ? GATE.rounds : 0;
  const confidence = perLookConfidence(GATE.confidence, maxRounds);
  const focusTest: FocusTest | undefined = focus ? { taskIds: focus, minGain: GATE.minFocusGain, accept: options.focusAccept } : undefined;
  const focusTasks: Task[] = focusTest ? val.filter((t) => focusTest.taskIds.has(t.id)) : [];
  const boost = focusBoost(focusTasks.length, val.length);
  // a fresh incumbent keeps its selection-biased first sample out of the pool
  const fresh = current.fresh ?? 0;
  const from = fresh > 0 ? options.samples : 0;
  const measureBoth = async (tasks: Task[], incumbentCount: number, candidateCount: number) => {
    const [a, b] = await Promise.all([measure(tasks, current.content, stage, from + incumbentCount, from), measure(tasks, candidate.content, stage, candidateCount)]);
    return { current: a.scores, candidate: b.scores };
  };
  let focusSettled = false;
  let dense: { current: SplitScores; candidate: SplitScores } | null = null;
  let latest = { current: current.scores, candidate: candidate.scores };
  // the dense focus samples feed the focus look only (its futility reject and its accept): the
  // whole-split interval sees the same samples it would see without the look
  const decideAt = (cur: SplitScores, cand: SplitScores, round: number) =>
    pairedGateDecision({
      ...gateInputFor(options, cur, bestScore),
      candidate: cand,
      seed: seed * 31 + round,
      confidence,
      resamples: GATE.resamples,
      focus: focusTest && dense ? { ...focusTest, scores: dense } : focusTest,
    });
  return settleGate({
    current: current.scores,
    candidate: candidate.scores,
    maxRounds,
    decide: (cur, cand, round) => {
      const d = decideAt(cur, cand, round);
      latest = { current: cur, candidate: cand };
      focusSettled = d.focus !== undefined && d.focus.lo >= d.focus.minGain;
      return d;
    },
    remeasure: async (round) => {
      const samples = options.samples * (round + 1);
      const incumbent = fresh > 0 ? options.samples * (fresh + round) : samples;
      // the focus first: when its dense samples alone show no worthwhile gain (with the whole
      // split as last measured), the candidate is rejected without a new look at every task.
      // Once its own job's gain is surely worth it, the focus look cannot reject: its samples stay.
      if (focusTasks.length && (!focusSettled || !dense)) {
        countVal(ctx, 'focus', 2);
        const focusCount = options.samples * boost * (round + 1);
        dense = await measureBoth(focusTasks, Math.max(incumbent, focusCount), Math.max(samples, focusCount));
        if (isBelowMinGain(decideAt(latest.current, latest.candidate, round))) return latest;
      }
      countVal(ctx, stage, 2);
      return measureBoth(val, incumbent, samples);
    },
  });
}
