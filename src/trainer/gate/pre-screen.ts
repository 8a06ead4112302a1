/**
 * The pre-screen: every proposed edit is tried alone before the step selects and gates. An edit
 * stays in the pool only if, alone, it raises the val tasks of the job its evidence came from and
 * does not lower the other jobs' (scope-leak.ts). Why: with a noisy optimizer nearly every bundle
 * of four carries a rider (a contradiction, a wrong literal, a rule about nothing, a scope-dropped
 * limit); the gate then rejects the good edits with it, or passes the rider on the bundle's net
 * gain. Judged on its own job's tasks, an edit's effect is not drowned by the sampling noise of
 * the other jobs' tasks, which it leaves alone; and trying every proposal (not only the first
 * `lr`) lets the learning rate spend its slots on edits that work. Dropped edits are only demoted
 * in the buffer (one noisy look).
 *
 * Measured in the order the verdict reads it, so no rollout is spent on a task that cannot change
 * it: the edit's own job's val tasks first (an edit that does not raise them is dropped there),
 * then the other jobs' tasks, only for an edit that passed and only when the leak screen can
 * call a leak on them (scopeScreen on, ≥ MIN_OFF_TARGET_TASKS of them). The verdicts are the ones a
 * measure of the whole split gives: a rollout depends on its skill, task and sample alone. Within
 * its own job, the tasks the incumbent scores full are measured last and only when the others
 * leave the edit a gain to lose (gainBound: exact, a task scores at most 1); a drop there records
 * that bound in the buffer, not the full measure's gain (the buffer orders what it shows by it).
 */
import { DEFAULT_MIXED_WEIGHT, metricScore } from '../../core/scoring.js';
import { applyEdits } from '../../skilldoc/edits.js';
import type { TrainContext } from '../context.js';
import type { StepState } from '../step-state.js';
import { evidenceFamilies, focusGain, MIN_OFF_TARGET_TASKS } from './scope-leak.js';
import { SCORE_EPSILON, scoresOf, type SplitScores } from './gate.js';
import type { Edit, Task } from '../../core/records.js';
import { countVal } from './val-gate.js';
import { freshIncumbent } from './fresh-incumbent.js';
import { screenLeak } from './verdict.js';

/** Stage: the pool of proposals, each tried alone against a fresh look of the incumbent. */
export async function preScreen(ctx: TrainContext, s: StepState): Promise<void> {
  const { options, val, measure, applyOpts, taskById, buffer, runId } = ctx;
  s.before = await freshIncumbent(ctx, s.before);
  s.report.valBefore = s.before.score;
  const before = s.before;
  const kept: typeof s.pool = [];
  let dropped = 0;
  const taskScore = (t: TaskScore) => metricScore(t.hard, t.soft, options.gateMetric, DEFAULT_MIXED_WEIGHT);
  const drop = (edit: (typeof s.pool)[number], gain: number | null, why: string) => {
    buffer.add([edit.edit], gain === null ? null : -gain, `pre-screen: ${why} (${runId} step ${s.globalStep})`, 'noise');
    dropped++;
  };
  for (const [i, p] of s.pool.entries()) {
    const content = applyEdits(before.content, [p.edit], applyOpts).content;
    if (content === before.content) {
      drop(p, null, 'changes nothing alone');
      continue;
    }
    countVal(ctx, 'prescreen');
    const { focus, others } = splitByFocus(p.edit, ctx.taskById, val);
    const own = focus ?? val;
    // the tasks where the edit could raise the score first: a task the incumbent already scores
    // full can only lower the gain, so once the others cannot lift it above zero it is not measured
    const { headroom, full } = byHeadroom(own, before.scores, taskScore);
    if (!headroom.length) {
      drop(p, 0, `alone it cannot raise its own job's val tasks: the incumbent scores all ${own.length} full (not replayed)`);
      continue;
    }
    const raised = (await measure(headroom, content, 'prescreen')).scores;
    const bound = gainBound(before.scores, raised, own.length, taskScore);
    if (full.length && !(bound > SCORE_EPSILON)) {
      drop(p, bound, `alone it does not raise its own job's val tasks (Δ ≤ ${bound.toFixed(3)} over ${own.length}; the ${full.length} scored full not replayed: they could only lower it)`);
      continue;
    }
    // in the split's own task order: the leak screen's bootstrap draws tasks by position
    let alone = full.length ? inOrder(own, mergeScores(raised, (await measure(full, content, 'prescreen')).scores)) : raised;
    const focused = focus ? focusGain({ edit: p.edit, taskById, current: before.scores, candidate: alone, metric: options.gateMetric, mixedWeight: DEFAULT_MIXED_WEIGHT }) : null;
    // without family labels, the edit's gain on the whole split decides
    const gain = focused ? focused.gain : ctx.score(alone) - before.score;
    if (!(gain > SCORE_EPSILON)) {
      drop(p, gain, `alone it does not raise its own job's val tasks (Δ ${gain.toFixed(3)}${focused ? ` over ${focused.n}` : ''})`);
      continue;
    }
    if (focus && options.scopeScreen && others.length >= MIN_OFF_TARGET_TASKS) alone = mergeScores(alone, (await measure(others, content, 'prescreen')).scores);
    if (screenLeak(ctx, [p.edit], before.scores, alone, s.seed + 13 + i)?.leaks) {
      drop(p, gain, "alone it lowers other jobs' val tasks (scope leak)");
      continue;
    }
    kept.push(p);
  }
  s.report.prescreened = dropped;
  s.pool = kept;
  s.screenedAlone = true;
}

/**
 * The val tasks of the families the edit's evidence came from (where it claims to act) and the
 * rest; focus null when the edit has no family labels or no val task of its families (then the
 * whole split decides).
 */
export function splitByFocus(edit: Edit, taskById: ReadonlyMap<string, Task>, val: Task[]): { focus: Task[] | null; others: Task[] } {
  const families = evidenceFamilies([edit], taskById);
  if (!families?.size) return { focus: null, others: [] };
  const focus = val.filter((t) => t.family != null && families.has(t.family));
  if (!focus.length) return { focus: null, others: [] };
  return { focus, others: val.filter((t) => !focus.includes(t)) };
}

/** The scores of two disjoint sets of val tasks as one split's. */
export function mergeScores(a: SplitScores, b: SplitScores): SplitScores {
  return scoresOf([...a.perTask, ...b.perTask]);
}

type TaskScore = SplitScores['perTask'][number];

/**
 * An edit's own tasks split by what it could gain on them: `headroom`, where the incumbent scores
 * below the top (1) or was not measured, and `full`, where it scores the top and a candidate can
 * only tie or lose.
 */
export function byHeadroom(tasks: Task[], incumbent: SplitScores, metric: (t: TaskScore) => number): { headroom: Task[]; full: Task[] } {
  const score = new Map(incumbent.perTask.map((t) => [t.taskId, metric(t)]));
  const headroom: Task[] = [];
  const full: Task[] = [];
  for (const t of tasks) ((score.get(t.id) ?? 0) >= 1 - SCORE_EPSILON ? full : headroom).push(t);
  return { headroom, full };
}

/**
 * The largest mean gain over `n` tasks an edit can still reach when only some of them are measured
 * (`measured`): the measured tasks' paired differences, plus nothing for the rest, which the
 * incumbent scores full (a task scores at most 1). An exact bound: when it is not above zero, the
 * full measure could not be either, so the pre-screen's verdict is the one the full measure gives.
 */
export function gainBound(incumbent: SplitScores, measured: SplitScores, n: number, metric: (t: TaskScore) => number): number {
  const before = new Map(incumbent.perTask.map((t) => [t.taskId, metric(t)]));
  const sum = measured.perTask.reduce((a, t) => a + metric(t) - (before.get(t.taskId) ?? 0), 0);
  return n ? sum / n : 0;
}

/** Scores with their per-task entries in the order of `tasks` (a measure returns them in the order asked). */
function inOrder(tasks: Task[], s: SplitScores): SplitScores {
  const at = new Map(tasks.map((t, i) => [t.id, i]));
  return scoresOf([...s.perTask].sort((a, b) => (at.get(a.taskId) ?? 0) - (at.get(b.taskId) ?? 0)));
}
