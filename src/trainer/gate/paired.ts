/**
 * A paired comparison of two skills on the same validation tasks, with a seeded percentile
 * bootstrap over tasks. Why: the gate used to compare one mean of one sample on 3–10 tasks, so a
 * lucky draw passed as a gain and one unlucky draw banned a good edit. Pairing per task removes
 * the task-difficulty variance; the bootstrap says how much of the mean difference could be the
 * choice of tasks and samples. With one sample a task, the bootstrap resamples tasks (it cannot
 * see sampling noise any other way); once every task has several samples (an indecisive
 * candidate's extra rounds), it resamples each task's samples instead. Pure and deterministic
 * for a given seed.
 */
import { isSleepError } from '../../core/errors.js';
import { mulberry32 } from '../rng.js';
import { gateDecision, metricScore, restrictScores, SCORE_EPSILON, type GateDecision, type GateInput, type GateMetric, type SplitScores } from './gate.js';

export interface PairedOptions {
  metric: GateMetric;
  mixedWeight?: number;
  /** bootstrap resamples (default 2000) */
  resamples?: number;
  /** two-sided confidence of the interval (default 0.9: a 95% one-sided bound each way) */
  confidence?: number;
  seed: number;
}

export interface PairedComparison {
  /** tasks compared (every task of `current`; a task missing under the candidate counts as 0) */
  n: number;
  /** mean of candidate − current over tasks */
  meanDiff: number;
  /** bootstrap percentile interval of the mean difference */
  lo: number;
  hi: number;
  /** the candidate is better (lo > 0), worse (hi < 0), the same everywhere, or the CI spans 0 */
  verdict: 'gain' | 'loss' | 'tie' | 'unclear';
}

/** Per-task differences, in `current`'s task order (missing or non-finite candidate = scored 0). */
export function pairedDiffs(current: SplitScores, candidate: SplitScores, metric: GateMetric, mixedWeight = 0.5): number[] {
  const cand = new Map(candidate.perTask.map((t) => [t.taskId, metricScore(t.hard, t.soft, metric, mixedWeight)]));
  return current.perTask.map((t) => {
    const before = metricScore(t.hard, t.soft, metric, mixedWeight);
    const after = cand.get(t.taskId);
    return (after !== undefined && Number.isFinite(after) ? after : 0) - (Number.isFinite(before) ? before : 0);
  });
}

const MAX_WIDENING = 2;

/** Standard normal quantile of a lower tail p ≤ 0.5, magnitude (Abramowitz & Stegun 26.2.23). */
function normalTail(p: number): number {
  const t = Math.sqrt(-2 * Math.log(Math.min(0.5, Math.max(1e-12, p))));
  return t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
}

/**
 * How much wider Student's t is than the normal at this tail with `df` degrees of freedom
 * (Cornish–Fisher), times √(n/(n−1)) for the biased variance a bootstrap uses. The plain
 * percentile interval is far too narrow on the 3–10 tasks a val split often has, which let a
 * truly worse candidate through on a lucky draw.
 */
export function smallSampleWidening(tail: number, df: number): number {
  if (df < 1) return 1;
  const z = normalTail(tail);
  if (z <= 0) return 1;
  const t = z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df * df);
  // the expansion diverges below ~3 degrees of freedom; capped, a 1–2 task val split can still
  // accept a gain that more samples confirm (the extra rounds' per-sample interval decides it)
  return Math.min(MAX_WIDENING, (t / z) * Math.sqrt((df + 1) / df));
}

/** Percentile bootstrap of the mean of `diffs` (resampling tasks with replacement), widened for small n. */
export function bootstrapMeanCI(diffs: readonly number[], resamples: number, confidence: number, seed: number): { lo: number; hi: number } {
  const n = diffs.length;
  if (n === 0) return { lo: 0, hi: 0 };
  const rand = mulberry32(Math.imul((seed ^ 0x9e3779b9) >>> 0, 0x85ebca6b)); // neighbouring seeds, unrelated streams
  const b = Math.max(1, Math.floor(resamples));
  const means = new Float64Array(b);
  for (let i = 0; i < b; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += diffs[Math.floor(rand() * n)];
    means[i] = s / n;
  }
  means.sort();
  const tail = (1 - Math.min(0.999, Math.max(0.5, confidence))) / 2;
  const at = (q: number) => means[Math.min(b - 1, Math.max(0, Math.floor(q * b)))];
  const mean = diffs.reduce((a, d) => a + d, 0) / n;
  const widen = smallSampleWidening(tail, n - 1);
  return { lo: mean - (mean - at(tail)) * widen, hi: mean + (at(1 - tail) - mean) * widen };
}

/**
 * With several samples (≥ 3) of every task under both skills, the question becomes the one the gate
 * must answer: is the candidate better on these tasks beyond sampling noise? Each resample draws,
 * per task, that task's samples with replacement under each skill (stratified bootstrap); the
 * task set stays fixed, so a change confined to a few tasks is not mistaken for noise.
 */
/** Fewer samples than this a task say too little about its noise (2 values give 3 resampled means). */
const MIN_SAMPLES = 3;

export function sampleBootstrapCI(
  current: SplitScores,
  candidate: SplitScores,
  metric: GateMetric,
  mixedWeight: number,
  resamples: number,
  confidence: number,
  seed: number,
): { lo: number; hi: number } | null {
  const cand = new Map(candidate.perTask.map((t) => [t.taskId, t]));
  const pairs: Array<[number[], number[]]> = [];
  for (const t of current.perTask) {
    const c = cand.get(t.taskId);
    if (!t.samples || t.samples.length < MIN_SAMPLES || !c?.samples || c.samples.length < MIN_SAMPLES) return null;
    const m = (x: { hard: number; soft: number }) => metricScore(x.hard, x.soft, metric, mixedWeight);
    pairs.push([t.samples.map(m), c.samples.map(m)]);
  }
  if (!pairs.length) return null;
  const rand = mulberry32(Math.imul((seed ^ 0x85ebca6b) >>> 0, 0x9e3779b9));
  const b = Math.max(1, Math.floor(resamples));
  const means = new Float64Array(b);
  const draw = (xs: number[]) => {
    let s = 0;
    for (let j = 0; j < xs.length; j++) s += xs[Math.floor(rand() * xs.length)];
    return s / xs.length;
  };
  for (let i = 0; i < b; i++) {
    let s = 0;
    for (const [before, after] of pairs) s += draw(after) - draw(before);
    means[i] = s / pairs.length;
  }
  means.sort();
  const tail = (1 - Math.min(0.999, Math.max(0.5, confidence))) / 2;
  const at = (q: number) => means[Math.min(b - 1, Math.max(0, Math.floor(q * b)))];
  // the same small-sample widening as over tasks; degrees of freedom pooled over the tasks
  const df = pairs.reduce((a, [x, y]) => a + Math.min(x.length, y.length) - 1, 0);
  const mean = pairs.reduce((a, [x, y]) => a + y.reduce((p, v) => p + v, 0) / y.length - x.reduce((p, v) => p + v, 0) / x.length, 0) / pairs.length;
  const widen = smallSampleWidening(tail, df);
  return { lo: mean - (mean - at(tail)) * widen, hi: mean + (at(1 - tail) - mean) * widen };
}

export function pairedCompare(current: SplitScores, candidate: SplitScores, opts: PairedOptions): PairedComparison {
  const diffs = pairedDiffs(current, candidate, opts.metric, opts.mixedWeight ?? 0.5);
  const n = diffs.length;
  const meanDiff = n ? diffs.reduce((a, d) => a + d, 0) / n : 0;
  if (diffs.every((d) => Math.abs(d) <= SCORE_EPSILON)) return { n, meanDiff, lo: 0, hi: 0, verdict: 'tie' };
  const resamples = opts.resamples ?? 2000;
  const confidence = opts.confidence ?? 0.9;
  const { lo, hi } =
    sampleBootstrapCI(current, candidate, opts.metric, opts.mixedWeight ?? 0.5, resamples, confidence, opts.seed) ?? bootstrapMeanCI(diffs, resamples, confidence, opts.seed);
  const verdict = lo > SCORE_EPSILON ? 'gain' : hi < -SCORE_EPSILON ? 'loss' : 'unclear';
  return { n, meanDiff, lo, hi, verdict };
}

/**
 * Confidence of the off-target look that protects an edit from the futility reject: a gain on the
 * other jobs' tasks at this (two-sided) confidence means the edit acts beyond its own job (a rule
 * stated for every reply), and its own job's look says nothing about its worth. Low on purpose:
 * a protective check errs towards protecting (the whole-split interval still decides the edit).
 */
export const ELSEWHERE_CONFIDENCE = 0.6;

/** The candidate against the current skill on the val tasks outside its focus (the other jobs'), or null when there are none. */
function compareElsewhere(input: PairedGateInput, confidence: number, salt: number): PairedComparison | null {
  const ids = input.focus?.taskIds;
  if (!ids) return null;
  const off = new Set(input.current.perTask.filter((t) => !ids.has(t.taskId)).map((t) => t.taskId));
  if (!off.size) return null;
  return pairedCompare(restrictScores(input.current, off), restrictScores(input.candidate, off), {
    metric: input.metric,
    mixedWeight: input.mixedWeight,
    resamples: input.resamples,
    confidence,
    seed: input.seed * 7 + salt,
  });
}

/** The candidate gains on the val tasks outside its focus (the other jobs'), at ELSEWHERE_CONFIDENCE. */
export function gainsElsewhere(input: PairedGateInput): boolean {
  return compareElsewhere(input, ELSEWHERE_CONFIDENCE, 2)?.verdict === 'gain';
}

/**
 * Confidence of the look that guards the focus accept: a loss on the other jobs' tasks at this
 * (two-sided) confidence blocks it. Low on purpose, like ELSEWHERE_CONFIDENCE but the other way:
 * the guard errs towards blocking (the candidate then stays indecisive, as before the focus accept).
 */
export const LOSS_ELSEWHERE_CONFIDENCE = 0.6;

/**
 * The other jobs' val tasks, at LOSS_ELSEWHERE_CONFIDENCE: a loss, a mean below even, too few
 * samples to see their noise (fewer than MIN_SAMPLES a task: one or two draws of a leak's −0.05
 * a task look even often enough), or no other job to look at — each keeps a focus accept from
 * happening.
 */
export function losesElsewhere(input: PairedGateInput): boolean {
  const ids = input.focus?.taskIds;
  if (!ids) return true;
  const sparse = (s: SplitScores) => s.perTask.some((t) => !ids.has(t.taskId) && (t.samples?.length ?? 1) < MIN_SAMPLES);
  if (sparse(input.current) || sparse(input.candidate)) return true;
  const c = compareElsewhere(input, LOSS_ELSEWHERE_CONFIDENCE, 3);
  return c === null || c.meanDiff < -SCORE_EPSILON || c.verdict === 'loss';
}

/** Below this many val tasks the gate falls back to the strict mean comparison. */
export const MIN_TASKS_FOR_INTERVAL = 4;

export type GateOutcome = 'accept' | 'reject' | 'indecisive';

/** The candidate against the current skill on the val tasks where its edits claim to act. */
export interface FocusComparison {
  n: number;
  meanDiff: number;
  lo: number;
  hi: number;
  /** the smallest gain on those tasks worth a change to the skill */
  minGain: number;
}

export interface PairedGateDecision extends GateDecision {
  outcome: GateOutcome;
  ci: PairedComparison;
  /** set when the focus look ran (an otherwise indecisive candidate with a focus) */
  focus?: FocusComparison;
}

/**
 * Where the candidate's edits claim to act (the val tasks of the jobs their evidence came from),
 * and the smallest gain there that is worth a change to the skill.
 */
export interface FocusTest {
  taskIds: ReadonlySet<string>;
  minGain: number;
  /** a gain surely worth it there, with no loss on the other jobs' tasks, accepts (default false) */
  accept?: boolean;
  /** denser samples of the focus tasks than the split carries (the extra rounds'); default: the split's own */
  scores?: { current: SplitScores; candidate: SplitScores };
}

export interface PairedGateInput extends GateInput {
  seed: number;
  resamples?: number;
  confidence?: number;
  focus?: FocusTest;
}

/**
 * The focus look: the per-sample interval of the gain on the focus tasks alone. Null until every
 * focus task has several samples under both skills (one sample of three tasks says nothing about
 * noise).
 */
export function focusComparison(input: PairedGateInput): FocusComparison | null {
  const { focus } = input;
  if (!focus || focus.minGain <= 0 || !focus.taskIds.size) return null;
  const current = restrictScores(focus.scores?.current ?? input.current, focus.taskIds);
  if (!current.perTask.length) return null;
  const candidate = restrictScores(focus.scores?.candidate ?? input.candidate, focus.taskIds);
  const w = input.mixedWeight ?? 0.5;
  const band = sampleBootstrapCI(current, candidate, input.metric, w, input.resamples ?? 2000, input.confidence ?? 0.9, input.seed * 7 + 1);
  if (!band) return null;
  const diffs = pairedDiffs(current, candidate, input.metric, w);
  return { n: diffs.length, meanDiff: diffs.reduce((a, d) => a + d, 0) / diffs.length, lo: band.lo, hi: band.hi, minGain: focus.minGain };
}

/**
 * The strict gate (mean gain > margin, ties rejected, no-regression) and the paired CI together:
 * accept only when both say gain; a mean gain the CI cannot tell from noise is `indecisive` (its
 * action stays `reject` until more samples decide it). Pure.
 *
 * With a focus, an otherwise indecisive candidate is also looked at where its edits claim to act:
 * when the interval there lies below the minimum worthwhile gain, the candidate is rejected
 * decisively (an equivalence-style futility bound). Why: after the start draft nearly every
 * candidate is a paraphrase of a rule the skill already holds or a rule about nothing; its true
 * effect on the whole split is within ±0.02, which no affordable number of samples over 24 tasks
 * can tell from 0, so the whole-split interval stays indecisive to the end. On its own job's few
 * tasks, sampled densely, a real fix shows a gain of 0.2 or more and such a candidate shows ~0;
 * that look can decide. The whole-split interval must lie below the minimum gain too, and the
 * other jobs' tasks must show no gain (a rule stated for every reply acts on every job: one such
 * rule on the persona bench lowered its own job a little and raised the others by 0.05 a task).
 *
 * The focus accept (`focus.accept`) is the same look the other way: an otherwise indecisive
 * candidate whose interval on its own job's tasks lies above the minimum worthwhile gain is
 * accepted, if the strict gate passed on the whole split's mean and the other jobs' tasks,
 * sampled enough to see their noise, show no loss (losesElsewhere). Why: a real fix of one job
 * moves the whole split by an eighth of its own-job gain, under the noise of the other seven jobs'
 * tasks; from an empty skill the whole-split interval left 8 of 10 such fixes per 10 persona runs
 * indecisive (true test gains +0.01…+0.09 each, none worse), and in a scripted world it accepted
 * 6 of 40 real fixes (with the focus accept 14 of 40, no more truly worse accepted).
 */
export function pairedGateDecision(input: PairedGateInput): PairedGateDecision {
  const base = gateDecision(input);
  const ci = pairedCompare(input.current, input.candidate, { metric: input.metric, mixedWeight: input.mixedWeight, resamples: input.resamples, confidence: input.confidence, seed: input.seed });
  const band = `paired Δ ${ci.meanDiff >= 0 ? '+' : ''}${ci.meanDiff.toFixed(3)}, CI [${ci.lo.toFixed(3)}, ${ci.hi.toFixed(3)}] over ${ci.n} task(s)`;
  if (input.enabled === false) return { ...base, outcome: 'accept', ci };
  if (!base.accepted) return { ...base, outcome: 'reject', ci, reason: `${base.reason}; ${band}` };
  // on fewer tasks an interval over tasks says nothing useful: the strict mean gate decides alone
  if (ci.n < MIN_TASKS_FOR_INTERVAL) return { ...base, outcome: 'accept', ci, reason: `${base.reason}; only ${ci.n} val task(s): no interval` };
  if (ci.verdict === 'gain') return { ...base, outcome: 'accept', ci, reason: `${base.reason}; ${band}` };
  const focus = focusComparison(input);
  // both readings of "where it acts" must say the gain is not worth it: its own job's tasks, and
  // every task (a rule stated for every reply acts everywhere, whatever job it was learned from)
  if (focus && focus.hi < focus.minGain - SCORE_EPSILON && ci.hi < focus.minGain - SCORE_EPSILON && !gainsElsewhere(input)) {
    const where = `on its own job's ${focus.n} val task(s) Δ ${focus.meanDiff >= 0 ? '+' : ''}${focus.meanDiff.toFixed(3)}, CI [${focus.lo.toFixed(3)}, ${focus.hi.toFixed(3)}]`;
    return { ...base, action: 'reject', accepted: false, newBest: false, outcome: 'reject', ci, focus, reason: `no worthwhile gain: ${where} and ${band} lie below the minimum gain ${focus.minGain.toFixed(2)} (${base.reason})` };
  }
  // the focus accept: where the edits act the gain is surely worth a change, the whole split gains
  // on the mean (the strict gate passed), and the other jobs' tasks show no loss, not even on the mean
  if (input.focus?.accept && focus && focus.lo >= focus.minGain - SCORE_EPSILON && !losesElsewhere(input)) {
    const where = `on its own job's ${focus.n} val task(s) Δ +${focus.meanDiff.toFixed(3)}, CI [${focus.lo.toFixed(3)}, ${focus.hi.toFixed(3)}] ≥ the minimum gain ${focus.minGain.toFixed(2)}`;
    return { ...base, outcome: 'accept', ci, focus, reason: `worth it where it acts: ${where}, no loss on the other jobs' tasks (${base.reason}; ${band})` };
  }
  return { ...base, action: 'reject', accepted: false, newBest: false, outcome: 'indecisive', ci, ...(focus ? { focus } : {}), reason: `indecisive: ${base.reason} but ${band} includes 0` };
}

/** How a gate verdict was reached: the decision, and how many extra sample rounds it took. */
export interface SettledGate {
  decision: PairedGateDecision;
  /** extra measurement rounds spent on an indecisive candidate */
  rounds: number;
  /** scores the decision was made on (pooled over the samples taken) */
  current: SplitScores;
  candidate: SplitScores;
}

/**
 * An indecisive candidate earns more validation samples: both skills are re-measured with
 * `samples × (round + 1)` samples per task (the first ones come from the rollout cache) until the
 * gate decides or `maxRounds` is spent; still indecisive then means rejected.
 */
export async function settleGate(input: {
  decide: (current: SplitScores, candidate: SplitScores, round: number) => PairedGateDecision;
  current: SplitScores;
  candidate: SplitScores;
  /** re-measures both skills with `round + 1` times the base samples */
  remeasure: (round: number) => Promise<{ current: SplitScores; candidate: SplitScores }>;
  maxRounds: number;
}): Promise<SettledGate> {
  let current = input.current;
  let candidate = input.candidate;
  let decision = input.decide(current, candidate, 0);
  let rounds = 0;
  let outOfBudget = false;
  while (decision.outcome === 'indecisive' && rounds < input.maxRounds) {
    try {
      ({ current, candidate } = await input.remeasure(rounds + 1));
    } catch (err) {
      // the night's budget allows no further round: an undecided gate rejects, as after its last
      // round, and the run goes on to measure and stage what it has (its next call stops it)
      if (!(isSleepError(err) && err.code === 'BUDGET_EXCEEDED')) throw err;
      outOfBudget = true;
      break;
    }
    rounds++;
    decision = input.decide(current, candidate, rounds);
  }
  if (decision.outcome === 'indecisive') decision = { ...decision, reason: `${decision.reason}; still undecided after ${rounds} extra sample round(s)${outOfBudget ? " (the night's budget allows no more)" : ''}: rejected` };
  return { decision, rounds, current, candidate };
}
