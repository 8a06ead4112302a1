/**
 * The budget fit (src/night/fit.ts) with the real forecast (plan.ts forecastCalls): the fitted
 * plan's forecast stays within the budget, the skill with the freshest corrections and the most of
 * them trains first, the rest is deferred with the reason, and what was deferred goes first the
 * next night (its last-trained time is older).
 */
import { describe, expect, it } from 'vitest';
import type { SkillTarget, Task } from '../../src/core/records.js';
import { forecastCalls, type PlanItem, type TaskSets } from '../../src/night/plan.js';
import { FIT_HEADROOM, fitPlanToBudget, shapeLadder, type FitInput } from '../../src/night/fit.js';
import { makeTask } from '../helpers/tasks.js';

let n = 0;
function task(split: Task['split'], extra: Partial<Task> = {}): Task {
  n++;
  return makeTask({ id: `t${n}`, project: '/p', intent: `distinct job ${n}`, judge: { checks: [], reference: { kind: 'rule' } }, split, occurrences: 2, firstSeen: 1, lastSeen: 2, agents: ['claude-code'], ...extra });
}
const sets = (tr: number, va: number, te: number, extra: Partial<Task> = {}): TaskSets => ({
  train: Array.from({ length: tr }, () => task('train', extra)),
  val: Array.from({ length: va }, () => task('val', extra)),
  test: Array.from({ length: te }, () => task('test', extra)),
});
const target = (name: string): SkillTarget => ({ agent: null, path: `/p/.claude/skills/${name}/SKILL.md`, name, kind: 'managed', readBy: ['claude-code'], project: '/p' });
const item = (name: string, tasks: TaskSets): PlanItem => ({ target: target(name), project: '/p', tasks, routedBy: 'managed' });

const shape = { epochs: 2, batchSize: 8, minValTasks: 3 };
// the night's forecast with a flat price: 1000 tokens per call, no dollars (a subscription)
const cost: FitInput['cost'] = (_item, tasks, epochs) => {
  const calls = forecastCalls(tasks, { epochs, batchSize: shape.batchSize, lr: 4, attributionMaxEdits: 12, skillChars: 400, estimate: () => ({ tokens: 1000, usd: 0 }) });
  return { calls: calls.length, tokens: calls.length * 1000, usd: 0 };
};
const fit = (items: PlanItem[], calls: number, lastTrained = new Map<string, number>()) =>
  fitPlanToBudget({ items, shape, cost, limits: { calls, tokens: 2_000_000, usd: 2 }, lastTrained });

describe('fitPlanToBudget', () => {
  it('shrinks a plan the budget cannot hold until its forecast fits, and says what it cut', () => {
    const items = [item('a', sets(30, 12, 8)), item('b', sets(24, 10, 6))];
    const r = fit(items, 400);
    expect(r.wanted.calls).toBeGreaterThan(400); // the mined plan did not fit
    expect(r.limitedBy).toBe('calls');
    expect(r.planned.calls).toBeLessThanOrEqual(Math.floor(400 * FIT_HEADROOM));
    // the fitted items' own forecast (what the night will reserve against) fits
    const trained = r.items.filter((i) => !i.skip);
    const total = trained.reduce((s, i) => s + cost(i, i.tasks, i.epochs ?? shape.epochs).calls, 0);
    expect(total).toBe(r.planned.calls);
    expect(total).toBeLessThanOrEqual(400);
    // every trained skill keeps the gate's minimum of validation tasks and at least one minibatch
    for (const i of trained) {
      expect(i.tasks.val.length).toBeGreaterThanOrEqual(shape.minValTasks);
      expect(i.tasks.train.length).toBeGreaterThanOrEqual(1);
    }
    const cut = r.trained.find((t) => t.planned.epochs < t.wanted.epochs || t.planned.train < t.wanted.train || t.planned.val < t.wanted.val);
    expect(cut).toBeDefined();
    expect(r.stopBeforeSpending).toBeNull();
  });

  it('leaves a plan that fits untouched', () => {
    const items = [item('a', sets(6, 4, 2))];
    const r = fit(items, 5000);
    expect(r.limitedBy).toBeNull();
    expect(r.deferred).toEqual([]);
    expect(r.trained[0].planned).toEqual(r.trained[0].wanted);
    expect(r.items[0].tasks.train).toHaveLength(6);
  });

  it('trains the skill with the freshest corrections first and defers the rest, saying why', () => {
    const stale = item('stale', sets(16, 8, 4, { corrections: ['use tabs'], correctionSources: [{ session: 's', at: 1_000 }] }));
    const none = item('none', sets(16, 8, 4));
    const fresh = item('fresh', sets(16, 8, 4, { corrections: ['cite the issue', 'no emoji'], correctionSources: [{ session: 's', at: 5_000 }, { session: 's', at: 6_000 }] }));
    // the smallest night: no training steps, the gate's minimum of val tasks
    const smallest = cost(fresh, { train: fresh.tasks.train, val: fresh.tasks.val.slice(0, 3), test: fresh.tasks.test.slice(0, 4) }, 0).calls;
    // room for one skill at its smallest, not two
    const r = fit([none, stale, fresh], Math.ceil((smallest * 1.5) / FIT_HEADROOM));
    expect(r.trained.map((t) => t.target)).toEqual(['fresh']);
    expect(r.deferred.map((d) => d.target).sort()).toEqual(['none', 'stale']);
    expect(r.deferred[0].target).toBe('stale'); // among those left, the corrected one comes first
    for (const d of r.deferred) {
      expect(d.reason).toMatch(/deferred to a later night: even its smallest night .* does not fit what the calls budget leaves/);
      expect(d.tasks).toBe(28);
    }
    const deferredItem = r.items.find((i) => i.target.name === 'stale')!;
    expect(deferredItem.skip?.reason).toMatch(/deferred to a later night/);
    expect(deferredItem.skip?.needed).toMatch(/next night trains it first/);
  });

  it('spreads a backlog across nights: what was deferred tonight goes first the next night', () => {
    const a = item('a', sets(16, 8, 4));
    const b = item('b', sets(16, 8, 4));
    const smallest = cost(a, { train: a.tasks.train, val: a.tasks.val.slice(0, 3), test: a.tasks.test.slice(0, 4) }, 0).calls;
    const budget = Math.ceil((smallest * 1.5) / FIT_HEADROOM);
    const first = fit([a, b], budget);
    expect(first.trained).toHaveLength(1);
    const trainedTonight = first.trained[0].path;
    const second = fit([a, b], budget, new Map([[trainedTonight, 10_000]]));
    expect(second.trained).toHaveLength(1);
    expect(second.trained[0].path).not.toBe(trainedTonight);
    expect(second.deferred.map((d) => d.path)).toEqual([trainedTonight]);
  });

  it('stops before spending when no skill fits even at its smallest, and says why', () => {
    const r = fit([item('a', sets(16, 8, 4))], 10);
    expect(r.trained).toEqual([]);
    expect(r.stopBeforeSpending).toMatch(/no skill fits the night's budget even at its smallest .*against 10 calls .*no call was made/);
    expect(r.items[0].skip?.reason).toMatch(/deferred to a later night/);
  });

  it('shares budget.maxTasks across every skill instead of giving it to the first', () => {
    const items = [item('a', sets(40, 20, 10)), item('b', sets(20, 10, 5)), item('c', sets(20, 10, 5))];
    const r = fitPlanToBudget({ items, shape, cost, limits: { calls: 100_000, tokens: 1e9, usd: 2 }, maxTasks: 60, lastTrained: new Map() });
    expect(r.limitedBy).toBe('tasks');
    expect(r.trained.map((t) => t.target).sort()).toEqual(['a', 'b', 'c']);
    const used = r.items.filter((i) => !i.skip).map((i) => i.tasks.train.length + i.tasks.val.length + i.tasks.test.length);
    expect(used.reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(60);
    for (const n of used) expect(n).toBeGreaterThanOrEqual(15);
  });

  it('fits the deadline when it binds before the calls do', () => {
    const items = [item('a', sets(30, 12, 8))];
    const r = fitPlanToBudget({ items, shape, cost, limits: { calls: 5000, tokens: 20_000_000, usd: 2 }, time: { msLeft: 150 * 1000, msPerCall: 1000 }, lastTrained: new Map() });
    expect(r.limitedBy).toBe('deadline');
    expect(r.planned.calls).toBeLessThanOrEqual(150);
    expect(r.trained).toHaveLength(1);
  });

  it("shrinks to budget.maxTokens when an agent CLI's overhead per replay makes the tokens bind before the calls", () => {
    const judged = { judge: { checks: [], reference: { kind: 'rubric' as const, rubric: '- names the change', passThreshold: 0.7 } } };
    const items = [item('a', sets(11, 6, 2, judged)), item('b', sets(7, 5, 3, judged))];
    // the night's pricing with `claude` in every role: a replay carries ~6,000 tokens of the CLI's
    // own prompt, a judge or optimizer call ~460 (bench tokens); our own prompt and the night's typical reply on top
    const cli: FitInput['cost'] = (_item, tasks, epochs) => {
      const calls = forecastCalls(tasks, { epochs, batchSize: shape.batchSize, lr: 4, attributionMaxEdits: 12, skillChars: 400, estimate: (kind, chars) => ({ tokens: Math.ceil(chars / 4) + { rollout: 6000 + 600, judge: 460 + 300, optimizer: 460 + 2000 }[kind], usd: 0 }) });
      return { calls: calls.length, tokens: calls.reduce((t, c) => t + c.tokens, 0), usd: 0 };
    };
    // the default maxTokens (2M) with the calls out of the way: the tokens bind
    const limits = { calls: 5000, tokens: 2_000_000, usd: 2 };
    const byCalls = fitPlanToBudget({ items, shape, cost: cli, limits: { ...limits, tokens: 1e9 }, lastTrained: new Map() });
    const r = fitPlanToBudget({ items, shape, cost: cli, limits, lastTrained: new Map() });
    expect(r.limitedBy).toBe('tokens');
    expect(r.planned.tokens).toBeLessThanOrEqual(2_000_000 * FIT_HEADROOM);
    expect(r.planned.calls).toBeLessThan(byCalls.planned.calls);
    expect(r.trained).toHaveLength(2);
    // at 400k both skills still have a night: without training steps, the start draft through the
    // val gate (on the gate's minimum of tasks, with room for an extra round) and the test measure,
    // which is what stages the user's corrections
    const tight = fitPlanToBudget({ items, shape, cost: cli, limits: { ...limits, tokens: 400_000 }, lastTrained: new Map() });
    expect(tight.stopBeforeSpending).toBeNull();
    expect(tight.planned.tokens).toBeLessThanOrEqual(400_000 * FIT_HEADROOM);
    expect(tight.trained.map((t) => [t.planned.epochs, t.planned.val])).toEqual([
      [0, 3],
      [0, 3],
    ]);
    const fitted = tight.items.filter((i) => !i.skip);
    expect(fitted.map((i) => i.tasks.train.length)).toEqual([11, 7]); // their corrections still reach the draft
  });

  it('shrinks epochs first and the validation split last', () => {
    const ladder = shapeLadder({ epochs: 2, train: 20, val: 10, test: 8 }, shape);
    expect(ladder[0]).toEqual({ epochs: 2, train: 20, val: 10, test: 8 });
    expect(ladder[1]).toEqual({ epochs: 1, train: 20, val: 10, test: 8 });
    const firstValCut = ladder.findIndex((s) => s.val < 10);
    const lastTrainCut = ladder.findLastIndex((s, i) => i > 0 && s.train < ladder[i - 1].train);
    expect(firstValCut).toBeGreaterThan(lastTrainCut);
    // below every training shape: the night without training steps, full val first, then the gate's minimum
    const untrained = ladder.findIndex((s) => s.epochs === 0);
    expect(ladder[untrained - 1]).toEqual({ epochs: 1, train: 8, val: 3, test: 4 });
    expect(ladder[untrained]).toEqual({ epochs: 0, train: 20, val: 10, test: 4 });
    expect(ladder.slice(untrained).every((s) => s.epochs === 0)).toBe(true);
    expect(ladder.at(-1)).toEqual({ epochs: 0, train: 20, val: 3, test: 4 });
  });
});
