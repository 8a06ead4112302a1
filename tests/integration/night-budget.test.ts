/**
 * A night that plans within its budget, on the sim backend over the end-to-end world sized to
 * ≥ 150 mined tasks (bench/train-e2e.ts: generated transcripts → harvest → mine → night): with a
 * budget.maxCalls far below what the mined plan wants, the night fits its plan before the first
 * call, stays within the budget and still stages; with a budget no skill fits, it makes no call
 * and says why.
 */
import { describe, expect, it } from 'vitest';
import { runE2eSeed } from '../../bench/train-e2e.js';

const WORLD = { perProject: 50, hiddenPerJob: 4 };

describe('night under a tight budget (sim, e2e world)', () => {
  it('fits its plan to budget.maxCalls, stays within it and stages a proposal', async () => {
    const o = await runE2eSeed(2, { ...WORLD, budget: 'default', maxCalls: 200 });
    const b = o.pipeline.budget;
    expect(o.pipeline.tasks).toBeGreaterThanOrEqual(150);
    expect(b.wantedCalls).toBeGreaterThan(200); // the mined plan did not fit
    expect(b.limitedBy).toBe('calls');
    expect(b.plannedCalls).toBeLessThanOrEqual(200);
    expect(b.used).toBeLessThanOrEqual(200);
    expect(o.pipeline.nightStatus).toBe('done');
    expect(o.pipeline.staged.length).toBeGreaterThan(0);
    // no skill was left stopped mid-training by the budget
    expect(o.pipeline.items.filter((i) => i.status === 'stopped')).toEqual([]);
    // what it staged learned something the hidden instances reward
    expect(o.scores['night (staged skills)']).toBeGreaterThan(o.scores['empty skill'] + 0.2);
  }, 120_000);

  it("keeps the three-job user's night under budget.maxTokens 400k with an agent CLI's overhead on every call, and still stages", async () => {
    // each call charged what the `claude` CLI adds (bench tokens: ~6,000 tokens a replay, ~460 a judge or optimizer call)
    const o = await runE2eSeed(1, { perProject: 8, hiddenPerJob: 4, budget: 'default', jobs: ['changelog', 'commit', 'release'], maxTokens: 400_000, cliOverhead: { replay: 6012, call: 461 } });
    const b = o.pipeline.budget;
    expect(b.stopBeforeSpending).toBeNull();
    expect(b.usedTokens).toBeGreaterThan(100_000); // the overhead was charged
    expect(b.usedTokens).toBeLessThanOrEqual(400_000);
    expect(b.plannedTokens).toBeLessThanOrEqual(400_000);
    // both skills planned without training steps (×0), every train task kept (their corrections make the draft)
    expect(b.cut.length).toBe(2);
    for (const c of b.cut) expect(c).toMatch(/^(\d+)\/\d+\/\d+×2→\1\/\d+\/\d+×0$/);
    expect(o.pipeline.staged.length).toBe(2);
    expect(o.scores['night (staged skills)']).toBeGreaterThan(o.scores['empty skill'] + 0.2);
  }, 120_000);

  it('stops before spending when no skill fits, and names the work left for later', async () => {
    const o = await runE2eSeed(2, { ...WORLD, budget: 'default', maxCalls: 20 });
    const b = o.pipeline.budget;
    expect(b.used).toBe(0);
    expect(o.pipeline.nightStatus).toBe('nothing_staged');
    expect(b.stopBeforeSpending).toMatch(/no skill fits the night's budget/);
    expect(b.deferred.length).toBeGreaterThan(0);
    expect(o.pipeline.items.some((i) => /deferred to a later night/.test(i.reason ?? ''))).toBe(true);
  }, 120_000);
});
