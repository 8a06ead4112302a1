/**
 * The validation gate, as a pure function. A candidate replaces the current skill only if its
 * validation score is strictly greater (by more than `margin`); ties are rejected. With
 * `noRegression`, every validation task must also score at least what it scored under the current
 * skill; a task that is missing or has a non-finite score counts as regressed (fail closed).
 */
import { DEFAULT_MIXED_WEIGHT, metricScore, type GateMetric } from '../../core/scoring.js';

export { metricScore };
export type { GateMetric };

/** Scores of one skill on the validation split. */
export interface SplitScores {
  hard: number;
  soft: number;
  /** per task: mean hard and soft over samples (and each sample, when there were several) */
  perTask: Array<{ taskId: string; hard: number; soft: number; samples?: Array<{ hard: number; soft: number }> }>;
}

export type GateAction = 'accept_new_best' | 'accept' | 'reject' | 'force_accept';

export interface GateInput {
  metric: GateMetric;
  /** weight of soft in the mixed metric (default DEFAULT_MIXED_WEIGHT, upstream's 0.5) */
  mixedWeight?: number;
  current: SplitScores;
  candidate: SplitScores;
  /** gate-metric score of the best skill so far */
  bestScore: number;
  margin?: number;
  noRegression?: boolean;
  /** false only for the ablation: every candidate becomes current (best still tracked strictly) */
  enabled?: boolean;
}

export interface GateDecision {
  action: GateAction;
  accepted: boolean;
  newBest: boolean;
  currentScore: number;
  candidateScore: number;
  /** task ids whose score dropped (only computed with noRegression or for reporting) */
  regressions: string[];
  reason: string;
}

/** Float noise below this is a tie: 0.1+0.2 must not beat 0.3. */
export const SCORE_EPSILON = 1e-9;

/** A split's scores from its per-task scores: the means over the tasks (0 for none). */
export function scoresOf(perTask: SplitScores['perTask']): SplitScores {
  const mean = (k: 'hard' | 'soft') => (perTask.length ? perTask.reduce((a, t) => a + t[k], 0) / perTask.length : 0);
  return { hard: mean('hard'), soft: mean('soft'), perTask };
}

/** Scores restricted to some tasks (means recomputed over them). */
export function restrictScores(s: SplitScores, keep: ReadonlySet<string>): SplitScores {
  return scoresOf(s.perTask.filter((t) => keep.has(t.taskId)));
}

export function splitScore(s: SplitScores, metric: GateMetric, mixedWeight = DEFAULT_MIXED_WEIGHT): number {
  return metricScore(s.hard, s.soft, metric, mixedWeight);
}

/** Tasks whose metric score is lower under the candidate (missing / non-finite = regressed). */
export function perTaskRegressions(current: SplitScores, candidate: SplitScores, metric: GateMetric, mixedWeight = DEFAULT_MIXED_WEIGHT): string[] {
  const cand = new Map(candidate.perTask.map((t) => [t.taskId, metricScore(t.hard, t.soft, metric, mixedWeight)]));
  const out: string[] = [];
  for (const t of current.perTask) {
    const before = metricScore(t.hard, t.soft, metric, mixedWeight);
    const after = cand.get(t.taskId);
    if (after === undefined || !Number.isFinite(after) || !Number.isFinite(before) || after < before - SCORE_EPSILON) out.push(t.taskId);
  }
  return out;
}

export function gateDecision(input: GateInput): GateDecision {
  const w = input.mixedWeight ?? DEFAULT_MIXED_WEIGHT;
  const currentScore = splitScore(input.current, input.metric, w);
  const candidateScore = splitScore(input.candidate, input.metric, w);
  const margin = Math.max(0, input.margin ?? 0);
  const regressions = perTaskRegressions(input.current, input.candidate, input.metric, w);
  const beatsBest = Number.isFinite(candidateScore) && candidateScore - input.bestScore > SCORE_EPSILON;
  const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(4) : String(x));

  if (input.enabled === false) {
    return {
      action: 'force_accept',
      accepted: true,
      newBest: beatsBest,
      currentScore,
      candidateScore,
      regressions,
      reason: `gate disabled: ${fmt(candidateScore)} force-accepted (current ${fmt(currentScore)})`,
    };
  }
  const reject = (reason: string): GateDecision => ({ action: 'reject', accepted: false, newBest: false, currentScore, candidateScore, regressions, reason });

  if (!Number.isFinite(candidateScore)) return reject(`candidate score is not a number (${candidateScore})`);
  const gain = candidateScore - currentScore;
  if (!(gain > margin + SCORE_EPSILON)) {
    if (Math.abs(gain) <= SCORE_EPSILON) return reject(`tie: ${fmt(candidateScore)} = current ${fmt(currentScore)}`);
    if (gain < 0) return reject(`${fmt(candidateScore)} < current ${fmt(currentScore)}`);
    return reject(`gain ${fmt(gain)} ≤ margin ${fmt(margin)}`);
  }
  if (input.noRegression && regressions.length > 0) {
    return reject(`${fmt(candidateScore)} > ${fmt(currentScore)} but ${regressions.length} task(s) regressed: ${regressions.slice(0, 5).join(', ')}`);
  }
  return {
    action: beatsBest ? 'accept_new_best' : 'accept',
    accepted: true,
    newBest: beatsBest,
    currentScore,
    candidateScore,
    regressions,
    reason: `${fmt(candidateScore)} > current ${fmt(currentScore)}${beatsBest ? ' (new best)' : ''}`,
  };
}
