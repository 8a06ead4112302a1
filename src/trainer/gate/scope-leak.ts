/**
 * The scope-leak screen. A rule learned from one job's failures should change that job's replies
 * and leave every other job alone; an over-general rule ("keep every reply under 400
 * characters", learned from commit messages) helps its own job and quietly hurts the others. On
 * the whole val split the two effects net out, so a candidate that carries such a rule beside
 * good ones passes the mean gate. The screen compares the two skills only on the val tasks of
 * *other* families (families none of the edits' evidence came from): there a well-scoped edit
 * has nothing to change, so a drop the paired interval calls real is the signature of a leak.
 * Why families: every mined task belongs to a recurring job (its intent cluster); without
 * family labels the screen says nothing and the gate decides alone. Pure.
 */
import type { Edit, Task } from '../../core/records.js';
import { restrictScores, type SplitScores } from './gate.js';
import { pairedCompare, pairedDiffs, type PairedComparison } from './paired.js';
import type { GateMetric } from '../../core/scoring.js';

/** Fewer off-target tasks than this say too little to call a leak. */
export const MIN_OFF_TARGET_TASKS = 6;

/** The families the edits were learned from, or null when an evidence task has no family (no screen). */
export function evidenceFamilies(edits: readonly Edit[], taskById: ReadonlyMap<string, Task>): Set<string> | null {
  const out = new Set<string>();
  for (const e of edits) {
    if (!e.evidence.length) return null;
    for (const id of e.evidence) {
      const f = taskById.get(id)?.family;
      if (!f) return null;
      out.add(f);
    }
  }
  return out;
}

export { restrictScores };

/**
 * The val tasks where some edits claim to act: those of the families their evidence came from.
 * Null when an evidence task has no family, or when those families cover every val task (then
 * "where it acts" is the whole split and a separate look adds nothing).
 */
export function focusTaskIds(edits: readonly Edit[], taskById: ReadonlyMap<string, Task>, val: readonly Task[]): Set<string> | null {
  const families = evidenceFamilies(edits, taskById);
  if (!families || !families.size) return null;
  const ids = new Set(val.filter((t) => t.family && families.has(t.family)).map((t) => t.id));
  return ids.size && ids.size < val.length ? ids : null;
}

export interface LeakVerdict {
  /** the off-target comparison (candidate − current on other families' val tasks) */
  ci: PairedComparison;
  /** families the edits target */
  families: string[];
  leaks: boolean;
}

/**
 * Whether `candidate` lowers the val tasks of families its edits were not learned from, beyond
 * what the paired interval allows as noise. Null when the screen cannot run (no family labels,
 * or too few off-target tasks).
 */
export function leakCheck(input: {
  edits: readonly Edit[];
  taskById: ReadonlyMap<string, Task>;
  current: SplitScores;
  candidate: SplitScores;
  metric: GateMetric;
  mixedWeight: number;
  confidence: number;
  resamples: number;
  seed: number;
}): LeakVerdict | null {
  const families = evidenceFamilies(input.edits, input.taskById);
  if (!families || !families.size) return null;
  const off = new Set<string>();
  for (const t of input.current.perTask) {
    const f = input.taskById.get(t.taskId)?.family;
    if (!f) return null;
    if (!families.has(f)) off.add(t.taskId);
  }
  if (off.size < MIN_OFF_TARGET_TASKS) return null;
  const ci = pairedCompare(restrictScores(input.current, off), restrictScores(input.candidate, off), {
    metric: input.metric,
    mixedWeight: input.mixedWeight,
    confidence: input.confidence,
    resamples: input.resamples,
    seed: input.seed,
  });
  return { ci, families: [...families].sort(), leaks: ci.verdict === 'loss' };
}

export function leakNote(v: LeakVerdict): string {
  return `scope leak: learned from ${v.families.join(', ')} but other jobs' val tasks drop (Δ ${v.ci.meanDiff.toFixed(3)}, CI [${v.ci.lo.toFixed(3)}, ${v.ci.hi.toFixed(3)}] over ${v.ci.n} task(s))`;
}

/**
 * What one edit does on its own job: the mean paired difference (candidate − current) over the
 * val tasks of the families its evidence came from. A rule learned from one job changes that
 * job's replies; on the whole split its effect (about a job's share of the tasks) drowns in the
 * sampling noise of the other jobs' tasks, which it leaves alone. Null without family labels or
 * when no val task is of those families.
 */
export function focusGain(input: { edit: Edit; taskById: ReadonlyMap<string, Task>; current: SplitScores; candidate: SplitScores; metric: GateMetric; mixedWeight: number }): { gain: number; n: number } | null {
  const families = evidenceFamilies([input.edit], input.taskById);
  if (!families || !families.size) return null;
  const focus = new Set(input.current.perTask.filter((t) => families.has(input.taskById.get(t.taskId)?.family ?? '')).map((t) => t.taskId));
  if (!focus.size) return null;
  const diffs = pairedDiffs(restrictScores(input.current, focus), restrictScores(input.candidate, focus), input.metric, input.mixedWeight);
  if (!diffs.length) return null;
  return { gain: diffs.reduce((a, d) => a + d, 0) / diffs.length, n: diffs.length };
}

/**
 * Two-sided confidence of the scope-leak interval: 0.8, lower than the gate's 0.9 on purpose. A leak
 * is a loss on tasks where a well-scoped edit has nothing to change, so the screen may call it on
 * less evidence than a gain needs; a false call only sends the candidate to the rescue.
 */
export const SCOPE_CONFIDENCE = 0.8;
