/**
 * One verdict for every candidate a step judges (the step's candidate, the rescue's recombination):
 * the paired gate on val (gate/val-gate.ts, with its extra rounds and focus look), then, for an
 * accepted candidate, the scope-leak screen on the other jobs' val tasks. Its reason is a typed
 * union, so a caller (and the step's progress line) can tell every way a candidate is accepted or
 * turned away without reading a sentence.
 */
import type { Edit } from '../../core/records.js';
import { DEFAULT_MIXED_WEIGHT } from '../../core/scoring.js';
import type { TrainContext } from '../context.js';
import type { StepReportDraft } from '../types.js';
import type { DropVerdict } from '../optimizer/buffer.js';
import type { SplitScores } from './gate.js';
import { MIN_TASKS_FOR_INTERVAL, type SettledGate } from './paired.js';
import { focusTaskIds, leakCheck, leakNote, SCOPE_CONFIDENCE, type LeakVerdict } from './scope-leak.js';
import { GATE, gateOnVal, isBelowMinGain, type ValStage } from './val-gate.js';

/** Why a candidate was accepted or turned away. */
export type VerdictReason =
  /** the gate is off (an ablation): every candidate is force-accepted */
  | { kind: 'gate_off' }
  /** a strict mean gain and a paired interval above 0 */
  | { kind: 'gain' }
  /** a strict mean gain on fewer val tasks than an interval needs: the mean decides alone */
  | { kind: 'few_tasks'; n: number }
  /** indecisive on the whole split, surely worth a change on its own job's tasks, no loss elsewhere */
  | { kind: 'focus_accept' }
  /** the strict gate said no: a drop, a tie, a gain within the margin, a regressed task */
  | { kind: 'not_better' }
  /** on its own job's tasks and on the whole split the gain lies below the minimum worth a change */
  | { kind: 'below_min_gain' }
  /** the interval still spans 0 after the extra sample rounds */
  | { kind: 'indecisive'; rounds: number }
  /** the gate accepted, but the other jobs' val tasks drop */
  | { kind: 'scope_leak'; leak: LeakVerdict };

export interface Verdict {
  accepted: boolean;
  reason: VerdictReason;
  /** the gate's decision and the scores it was made on */
  settled: SettledGate;
  /** the scope-leak screen, when it ran */
  leak: LeakVerdict | null;
}

export function verdictReason(settled: SettledGate, leak: LeakVerdict | null, gateEnabled: boolean): VerdictReason {
  const d = settled.decision;
  if (!gateEnabled) return { kind: 'gate_off' };
  if (leak?.leaks) return { kind: 'scope_leak', leak };
  if (d.outcome === 'indecisive') return { kind: 'indecisive', rounds: settled.rounds };
  if (d.outcome === 'reject') return isBelowMinGain(d) ? { kind: 'below_min_gain' } : { kind: 'not_better' };
  if (d.ci.n < MIN_TASKS_FOR_INTERVAL) return { kind: 'few_tasks', n: d.ci.n };
  return d.ci.verdict === 'gain' ? { kind: 'gain' } : { kind: 'focus_accept' };
}

/** The val tasks where some edits claim to act (their evidence's jobs), or null: the gate's focus look. */
export function focusOf(ctx: Pick<TrainContext, 'taskById' | 'val'>, edits: readonly Edit[]): ReadonlySet<string> | null {
  return focusTaskIds(edits, ctx.taskById, ctx.val);
}

/** The scope-leak screen of some edits (null when off, or when it cannot run). */
export function screenLeak(ctx: TrainContext, edits: readonly Edit[], current: SplitScores, candidate: SplitScores, seed: number): LeakVerdict | null {
  if (!ctx.options.scopeScreen) return null;
  return leakCheck({
    edits,
    taskById: ctx.taskById,
    current,
    candidate,
    metric: ctx.options.gateMetric,
    mixedWeight: DEFAULT_MIXED_WEIGHT,
    confidence: SCOPE_CONFIDENCE,
    resamples: GATE.resamples,
    seed: seed * 17 + 3,
  });
}

/**
 * Judges `candidate` against `current` on val. `edits` (the candidate's, when known) add the focus
 * look; `screen` adds the scope-leak screen to an accepted candidate.
 */
export async function judge(
  ctx: TrainContext,
  stage: ValStage,
  current: { content: string; scores: SplitScores; fresh?: number },
  candidate: { content: string; scores: SplitScores },
  seed: number,
  edits: readonly Edit[],
  screen: boolean,
): Promise<Verdict> {
  const settled = await gateOnVal(ctx, stage, current, candidate, ctx.st.best.score, seed, focusOf(ctx, edits));
  const leak = screen && settled.decision.accepted && ctx.options.gateEnabled ? screenLeak(ctx, edits, settled.current, settled.candidate, seed) : null;
  return { accepted: settled.decision.accepted && !leak?.leaks, reason: verdictReason(settled, leak, ctx.options.gateEnabled), settled, leak };
}

/** The verdict into the step's report: action, scores compared, reason, the gate's interval, the leak. */
export function reportVerdict(report: StepReportDraft, v: Verdict): void {
  const d = v.settled.decision;
  report.action = d.action;
  // after extra sample rounds both sides were re-measured: report the pair the decision compared
  if (v.settled.rounds > 0) report.valBefore = d.currentScore;
  report.valAfter = d.candidateScore;
  report.regressions = d.regressions;
  report.reason = d.reason;
  report.gate = { outcome: d.outcome, meanDiff: d.ci.meanDiff, lo: d.ci.lo, hi: d.ci.hi, n: d.ci.n, rounds: v.settled.rounds, ...(d.focus ? { focus: d.focus } : {}) };
  if (v.reason.kind === 'scope_leak') {
    const { leak } = v.reason;
    report.action = 'reject';
    report.reason = `${leakNote(leak)}; the gate alone said: ${d.reason}`;
    report.leak = { meanDiff: leak.ci.meanDiff, lo: leak.ci.lo, hi: leak.ci.hi, n: leak.ci.n };
  }
}

/** A drop the interval calls real (or a leak) bans the candidate's edits; one it cannot tell from noise only demotes them. */
export function dropVerdict(v: Verdict | null): DropVerdict {
  return v?.settled.decision.ci.verdict === 'loss' || v?.leak?.leaks ? 'real' : 'noise';
}
