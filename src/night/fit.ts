/**
 * Fitting a night to its budget, before its first call. A night that starts a plan it cannot
 * afford runs out mid-training and stages nothing, so the plan shrinks first: the targets are
 * ranked (fresh evidence first, then the longest untrained, then the most recent corrections and
 * the most corrections: a correction is the user fixing a failure), each admitted target gets the
 * largest shape (epochs, train/val/test tasks) that fits beside the smallest shapes of the others,
 * and targets whose smallest shape no longer fits are deferred, first in line next night (their
 * last-trained time stays old). A plan whose first target cannot fit even at its smallest starts
 * no call at all, and says why.
 *
 * Pure: the caller supplies the cost of a shape (forecastCalls priced by the night) and the limits.
 */
import type { Task } from '../core/records.js';
import type { Spend } from '../llm/budget.js';
import { countTasks, type PlanItem, type TaskSets } from './plan.js';

/**
 * The forecast counts calls a cache may save but not the judge audit's re-grades nor a retry; a
 * plan fitted to the last call would run out on those. This share of the budget is left over.
 */
export const FIT_HEADROOM = 0.9;
/** Shrinking the test split below this many tasks saves little and leaves no test figure worth reading. */
const MIN_TEST_TASKS = 4;

export interface FitShape {
  epochs: number;
  batchSize: number;
  minValTasks: number;
}

export interface FitInput {
  items: PlanItem[];
  shape: FitShape;
  /** what training one target with these tasks and epochs would spend (the forecast, priced) */
  cost: (item: PlanItem, tasks: TaskSets, epochs: number) => Spend;
  /** what the night may still spend */
  limits: Spend;
  /** `budget.maxTasks`: the tasks all trained targets may use together (absent = no such limit) */
  maxTasks?: number;
  /** the deadline, when one is set and the time per call is known: the plan's calls must fit in `msLeft` */
  time?: { msLeft: number; msPerCall: number };
  /** when each target (by path) was last trained by a night; absent = never */
  lastTrained: ReadonlyMap<string, number>;
  /** when each task (by id) was last trained on; absent = never: the longest-waiting train tasks go first */
  taskLastTrained?: ReadonlyMap<string, number>;
}

export interface ItemShape {
  epochs: number;
  train: number;
  val: number;
  test: number;
}

export type Limit = 'calls' | 'tokens' | 'usd' | 'deadline' | 'tasks';

export interface FittedTarget {
  target: string;
  path: string;
  /** what the full plan wanted and what fits */
  wanted: ItemShape;
  planned: ItemShape;
  forecast: Spend;
}

export interface DeferredTarget {
  target: string;
  path: string;
  tasks: number;
  reason: string;
}

export interface FitResult {
  /** the plan items, in training order: shrunk tasks and `epochs` on those kept, `skip` with the reason on those deferred */
  items: PlanItem[];
  /** the forecast of the whole plan as mined, and of the fitted one */
  wanted: Spend;
  planned: Spend;
  /** the limit that made the plan shrink (null: the whole plan fits) */
  limitedBy: Limit | null;
  trained: FittedTarget[];
  deferred: DeferredTarget[];
  /** nothing fits: the night must stop before its first call (why) */
  stopBeforeSpending: string | null;
}

/** what a shape spends, and the tasks it uses (budget.maxTasks) */
type Load = Spend & { tasks: number };
const ZERO: Load = { usd: 0, tokens: 0, calls: 0, tasks: 0 };
const add = (a: Load, b: Load): Load => ({ usd: a.usd + b.usd, tokens: a.tokens + b.tokens, calls: a.calls + b.calls, tasks: a.tasks + b.tasks });
const spend = (l: Load): Spend => ({ usd: l.usd, tokens: l.tokens, calls: l.calls });

/** The newest correction of a task (when it was said, else when the task was last seen). */
function newestCorrection(t: Task): number {
  if (t.corrections.length === 0) return 0;
  const said = (t.correctionSources ?? []).map((s) => s.at ?? 0).filter((at) => at > 0);
  return said.length ? Math.max(...said) : (t.lastSeen ?? 0);
}

interface Evidence {
  newest: number;
  corrections: number;
}

function evidenceOf(tasks: TaskSets): Evidence {
  const all = [...tasks.train, ...tasks.val, ...tasks.test];
  return { newest: Math.max(0, ...all.map(newestCorrection)), corrections: all.reduce((n, t) => n + t.corrections.length, 0) };
}

/**
 * Training order: a target with corrections newer than its last training first (the user's fresh
 * evidence), then the one untrained the longest (what a budget deferred goes first next night),
 * then the most recent corrections, then the most of them.
 */
export function rankTargets(items: PlanItem[], lastTrained: ReadonlyMap<string, number>): PlanItem[] {
  const key = (i: PlanItem) => {
    const e = evidenceOf(i.tasks);
    const last = lastTrained.get(i.target.path) ?? 0;
    return { fresh: e.newest > last ? 1 : 0, last, ...e };
  };
  const keys = new Map(items.map((i) => [i, key(i)]));
  return [...items].sort((a, b) => {
    const x = keys.get(a)!;
    const y = keys.get(b)!;
    return y.fresh - x.fresh || x.last - y.last || y.newest - x.newest || y.corrections - x.corrections || a.target.path.localeCompare(b.target.path);
  });
}

/** Within a split: the tasks with the most recent corrections and the most of them first (train: the longest untrained first). */
function rankTasks(ts: Task[], lastTrained?: ReadonlyMap<string, number>): Task[] {
  const order = new Map(ts.map((t, i) => [t, i]));
  return [...ts].sort(
    (a, b) =>
      (lastTrained ? (lastTrained.get(a.id) ?? 0) - (lastTrained.get(b.id) ?? 0) : 0) ||
      newestCorrection(b) - newestCorrection(a) ||
      b.corrections.length - a.corrections.length ||
      order.get(a)! - order.get(b)!,
  );
}

/**
 * The shapes a target may take, largest first: fewer epochs, then a smaller test split, then fewer
 * train tasks (down to one minibatch), then fewer validation tasks (down to the gate's minimum;
 * the gate's verdict is what the night exists for, so it shrinks last). Below every training
 * shape, the night without training steps (epochs 0): the judge audit, the start draft (the
 * user's corrections, from every train and val task: they stay) through the full val gate, the
 * test measure. What a night needs to stage anything; then the same with fewer val tasks.
 */
export function shapeLadder(full: ItemShape, s: FitShape): ItemShape[] {
  const out: ItemShape[] = [{ ...full }];
  const cur = { ...full };
  const push = () => out.push({ ...cur });
  while (cur.epochs > 1) {
    cur.epochs--;
    push();
  }
  const minTest = Math.min(full.test, MIN_TEST_TASKS);
  while (cur.test > minTest) {
    cur.test = Math.max(minTest, Math.floor(cur.test / 2));
    push();
  }
  const minTrain = Math.min(full.train, s.batchSize);
  while (cur.train > minTrain) {
    cur.train = Math.max(minTrain, Math.floor(cur.train * 0.75));
    push();
  }
  const minVal = Math.min(full.val, s.minValTasks);
  while (cur.val > minVal) {
    cur.val = Math.max(minVal, Math.floor(cur.val * 0.75));
    push();
  }
  const untrained = { epochs: 0, train: full.train, val: full.val, test: minTest };
  out.push({ ...untrained });
  while (untrained.val > minVal) {
    untrained.val = Math.max(minVal, Math.floor(untrained.val * 0.75));
    out.push({ ...untrained });
  }
  return out;
}

const take = (ts: TaskSets, shape: ItemShape): TaskSets => ({ train: ts.train.slice(0, shape.train), val: ts.val.slice(0, shape.val), test: ts.test.slice(0, shape.test) });
const shapeOf = (ts: TaskSets, epochs: number): ItemShape => ({ epochs, train: ts.train.length, val: ts.val.length, test: ts.test.length });
const describeShape = (s: ItemShape) => `${s.train}/${s.val}/${s.test} tasks, ${s.epochs === 0 ? 'no training steps (the start draft through the gate)' : `${s.epochs} epoch${s.epochs === 1 ? '' : 's'}`}`;

export function fitPlanToBudget(input: FitInput): FitResult {
  const cap: Spend = { usd: input.limits.usd * FIT_HEADROOM, tokens: Math.floor(input.limits.tokens * FIT_HEADROOM), calls: Math.floor(input.limits.calls * FIT_HEADROOM) };
  const callsByTime = input.time && input.time.msPerCall > 0 ? Math.floor((input.time.msLeft * FIT_HEADROOM) / input.time.msPerCall) : Infinity;
  const maxTasks = input.maxTasks ?? Infinity;
  const over = (s: Load): Limit | null =>
    s.calls > Math.min(cap.calls, callsByTime)
      ? callsByTime < cap.calls
        ? 'deadline'
        : 'calls'
      : s.tokens > cap.tokens
        ? 'tokens'
        : s.usd > cap.usd + 1e-9
          ? 'usd'
          : s.tasks > maxTasks
            ? 'tasks'
            : null;

  const skipped = input.items.filter((i) => i.skip);
  const candidates = rankTargets(
    input.items.filter((i) => !i.skip),
    input.lastTrained,
  ).map((i) => {
    const tasks: TaskSets = { train: rankTasks(i.tasks.train, input.taskLastTrained), val: rankTasks(i.tasks.val), test: rankTasks(i.tasks.test) };
    const full = shapeOf(tasks, input.shape.epochs);
    // budget.maxTasks counts the tasks a night replays: without training steps its train tasks only lend the draft their corrections
    const replayed = (shape: ItemShape) => (shape.epochs === 0 ? 0 : shape.train) + shape.val + shape.test;
    const priced = shapeLadder(full, input.shape).map((shape) => ({ shape, cost: { ...input.cost(i, take(tasks, shape), shape.epochs), tasks: replayed(shape) } }));
    // a training shape that costs no more than the night without training at full val sits below
    // it in cost but above it in the ladder: it trades the gate's val tasks for training, so it goes
    const untrained = priced.find((p) => p.shape.epochs === 0)!.cost;
    const ladder = priced.filter((p) => p.shape.epochs === 0 || p.cost.tokens > untrained.tokens || p.cost.calls > untrained.calls);
    return { item: i, tasks, full, ladder };
  });
  const wanted = candidates.reduce((s, c) => add(s, c.ladder[0].cost), ZERO);

  // admit targets in rank order while their smallest shapes fit together
  let floor = ZERO;
  let limitedBy: Limit | null = over(wanted);
  const admitted: typeof candidates = [];
  const deferred: DeferredTarget[] = [];
  for (const c of candidates) {
    const smallest = c.ladder[c.ladder.length - 1];
    const why = over(add(floor, smallest.cost));
    if (why) {
      limitedBy ??= why;
      deferred.push({
        target: c.item.target.name,
        path: c.item.target.path,
        tasks: countTasks(c.item.tasks),
        reason: `deferred to a later night: even its smallest night (${describeShape(smallest.shape)}, ~${smallest.cost.calls} calls) does not fit what the ${why === 'tasks' ? 'budget.maxTasks' : why} budget leaves after the skills ranked before it`,
      });
      continue;
    }
    floor = add(floor, smallest.cost);
    admitted.push(c);
  }

  // grow the admitted targets one step of their ladder at a time, in rank order, round after round
  // while a step still fits: every admitted job gets a fair part of what is left, the first-ranked first
  const level = admitted.map((c) => c.ladder.length - 1);
  let planned = floor;
  for (let grown = true; grown; ) {
    grown = false;
    admitted.forEach((c, k) => {
      if (level[k] === 0) return;
      const now = c.ladder[level[k]];
      const next = c.ladder[level[k] - 1];
      const after = add(planned, { usd: next.cost.usd - now.cost.usd, tokens: next.cost.tokens - now.cost.tokens, calls: next.cost.calls - now.cost.calls, tasks: next.cost.tasks - now.cost.tasks });
      if (over(after)) return;
      planned = after;
      level[k]--;
      grown = true;
    });
  }
  const trained: FittedTarget[] = [];
  const items: PlanItem[] = [];
  admitted.forEach((c, k) => {
    const pick = c.ladder[level[k]];
    trained.push({ target: c.item.target.name, path: c.item.target.path, wanted: c.full, planned: pick.shape, forecast: spend(pick.cost) });
    items.push({ ...c.item, tasks: take(c.tasks, pick.shape), epochs: pick.shape.epochs });
  });
  for (const d of deferred) {
    const item = input.items.find((i) => i.target.path === d.path)!;
    items.push({ ...item, skip: { reason: d.reason, needed: 'nothing: the next night trains it first; or raise budget.maxCalls / budget.maxTokens / budget.maxUsd, or move budget.deadline, to train it tonight' } });
  }
  items.push(...skipped);

  const stopBeforeSpending =
    candidates.length > 0 && admitted.length === 0
      ? `no skill fits the night's budget even at its smallest (${describeShape(candidates[0].ladder.at(-1)!.shape)}, ~${candidates[0].ladder.at(-1)!.cost.calls} calls and ~${candidates[0].ladder.at(-1)!.cost.tokens} tokens against ${input.limits.calls} calls and ${input.limits.tokens} tokens left${input.maxTasks !== undefined ? `, ${input.maxTasks} tasks` : ''}${callsByTime < Infinity ? `, ~${callsByTime} calls before the deadline` : ''}); no call was made`
      : null;
  return { items, wanted: spend(wanted), planned: spend(planned), limitedBy, trained, deferred, stopBeforeSpending };
}
