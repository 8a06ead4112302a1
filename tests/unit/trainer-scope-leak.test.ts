/**
 * The gate's defences against harm that nets out on val: the scope-leak screen (a rule learned
 * from one job must not lower the other jobs' val tasks), the leave-one-out screen of an accepted
 * bundle, and the second val slice the finishing passes may decide on.
 *
 * The loop world is scripted and deterministic: family "a" tasks want ALPHA, family "b" tasks
 * want BETA and never GAMMA. `- say ALPHA in every answer` helps a and touches nothing else;
 * `- say ALPHA and GAMMA in every answer` helps a more than it hurts b on the whole val split,
 * so the mean gate alone would take it.
 */
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Edit, Task } from '../../src/core/records.js';
import type { PerformPayload, RoleBackends } from '../../src/core/protocol.js';
import { defaultConfig } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { trainOptionsFromConfig, trainSkill, type TrainOptions, type TrainResult } from '../../src/trainer/index.js';
import { focusGain, leakCheck, MIN_OFF_TARGET_TASKS, restrictScores } from '../../src/trainer/gate/scope-leak.js';
import { byHeadroom, gainBound } from '../../src/trainer/gate/pre-screen.js';
import type { SplitScores } from '../../src/trainer/gate/gate.js';
import { scriptedBackend } from '../helpers/scripted-backend.js';
import { makeTempDir } from '../helpers/sandbox.js';
import { makeTask } from '../helpers/tasks.js';

const dirs: string[] = [];
const dbs: Db[] = [];
afterEach(() => {
  for (const d of dbs.splice(0)) d.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const A_CHECKS = [
  { id: 'alpha', op: 'contains' as const, value: 'ALPHA', weight: 1, sealed: false, description: 'says ALPHA' },
  { id: 'plain', op: 'not_contains' as const, value: 'XYZZY', weight: 1, sealed: false, description: 'never says XYZZY' },
];
const B_CHECKS = [
  { id: 'beta', op: 'contains' as const, value: 'BETA', weight: 1, sealed: false, description: 'says BETA' },
  { id: 'gamma', op: 'not_contains' as const, value: 'GAMMA', weight: 1, sealed: false, description: 'never says GAMMA' },
  { id: 'p1', op: 'not_contains' as const, value: 'QUUX', weight: 1, sealed: false, description: 'never says QUUX' },
  { id: 'p2', op: 'not_contains' as const, value: 'FROB', weight: 1, sealed: false, description: 'never says FROB' },
];
const task = (id: string, family: 'a' | 'b', split: Task['split']): Task =>
  makeTask({ id, family, intent: `answer ${family} ${id}`, judge: { checks: family === 'a' ? A_CHECKS : B_CHECKS, reference: { kind: 'rule' } }, split });
const range = (n: number, f: (i: number) => Task) => Array.from({ length: n }, (_, i) => f(i));
const world = {
  train: [task('t1', 'a', 'train'), task('t2', 'b', 'train')],
  val: [...range(8, (i) => task(`va${i}`, 'a', 'val')), ...range(8, (i) => task(`vb${i}`, 'b', 'val'))],
  test: [],
};
const GOOD = '- say ALPHA in every answer';
const LEAKY = '- say ALPHA and GAMMA in every answer';
const add = (content: string): Edit => ({ op: 'add', content, rationale: 'seen in the a failures', evidence: ['t1'] });

function backends(proposal: string[]): RoleBackends {
  const target = scriptedBackend({
    perform: (req) => {
      const { content } = (req.payload as PerformPayload).skill;
      const words = [content.includes(GOOD) || content.includes(LEAKY) ? 'ALPHA' : '', content.includes(LEAKY) ? 'GAMMA' : ''].filter(Boolean);
      return words.length ? words.join(' ') : 'done';
    },
  });
  const optimizer = scriptedBackend({
    reflect: () => JSON.stringify({ edits: proposal.map(add) }),
    merge: (req) => JSON.stringify({ edits: (req.payload as { patches: Edit[][] }).patches.flat() }),
    rank: (req) => JSON.stringify({ order: (req.payload as { edits: Edit[] }).edits.map((_, i) => i) }),
  });
  return { target, optimizer, judge: scriptedBackend({}) };
}

async function run(proposal: string[], options: Partial<TrainOptions> = {}, tasks: typeof world = world, start = ''): Promise<TrainResult> {
  const home = makeTempDir('sos-leak-');
  dirs.push(home);
  const paths = resolvePaths({ env: { SKILLOPT_SLEEP_HOME: home } });
  const db = openDb(paths.database);
  dbs.push(db);
  return trainSkill({
    db,
    paths,
    skill: { name: 'leak-conventions', content: start, handWritten: false },
    tasks,
    backends: backends(proposal),
    options: { ...trainOptionsFromConfig(defaultConfig().training), epochs: 1, batchSize: 8, lr: 4, lrSchedule: 'constant', slowUpdate: false, metaSkill: false, prune: false, simplify: false, ...options },
  });
}

const scores = (per: Array<[string, number]>): SplitScores => ({
  hard: 0,
  soft: per.reduce((a, [, s]) => a + s, 0) / per.length,
  perTask: per.map(([taskId, soft]) => ({ taskId, hard: soft >= 1 ? 1 : 0, soft })),
});
const byId = new Map([...world.train, ...world.val].map((t) => [t.id, t]));
const ids = world.val.map((t) => t.id);

describe('leakCheck (pure)', () => {
  const cur = scores(ids.map((id) => [id, 0.5]));
  const base = { edits: [add(GOOD)], taskById: byId, current: cur, metric: 'soft' as const, mixedWeight: 0.5, confidence: 0.8, resamples: 500, seed: 1 };

  it('a gain on its own family with the others untouched is no leak; the same gain with the others dropping is one', () => {
    const own = leakCheck({ ...base, candidate: scores(ids.map((id) => [id, id.startsWith('va') ? 1 : 0.5])) });
    expect(own?.leaks).toBe(false);
    expect(own?.families).toEqual(['a']);
    expect(own?.ci.n).toBe(8); // only the b tasks are compared
    const leaky = leakCheck({ ...base, candidate: scores(ids.map((id) => [id, id.startsWith('va') ? 1 : 0.25])) });
    expect(leaky?.leaks).toBe(true);
    expect(leaky?.ci.meanDiff).toBeCloseTo(-0.25, 6);
  });

  it('says nothing without family labels or with too few off-target tasks', () => {
    const unlabeled = new Map([...byId].map(([k, t]) => [k, { ...t, family: null }]));
    expect(leakCheck({ ...base, taskById: unlabeled, candidate: cur })).toBeNull();
    const few = scores(ids.filter((id) => id.startsWith('va') || id < `vb${MIN_OFF_TARGET_TASKS - 1}`).map((id) => [id, 0.5]));
    expect(leakCheck({ ...base, current: few, candidate: few })).toBeNull();
  });

  it('restrictScores recomputes the means over the kept tasks only', () => {
    const s = restrictScores(scores([['x', 1], ['y', 0]]), new Set(['x']));
    expect(s.perTask.map((t) => t.taskId)).toEqual(['x']);
    expect(s.soft).toBe(1);
  });
});

describe('the scope-leak screen in the loop', () => {
  it('the mean gate alone takes the leaky rule; the screen rejects it and says why', async () => {
    const off = await run([LEAKY], { scopeScreen: false });
    expect(off.bestSkill).toContain(LEAKY);
    const on = await run([LEAKY]);
    expect(on.bestSkill).not.toContain(LEAKY);
    const step = on.steps[0];
    expect(step.action).toBe('reject');
    expect(step.leak?.hi).toBeLessThan(0);
    expect(step.reason).toMatch(/scope leak: learned from a/);
    expect(step.line).toContain('REJECT (scope leak)');
  });

  it('a bundle with a good and a leaky edit keeps the good one (rescue screens each edit alone)', async () => {
    const r = await run([GOOD, LEAKY]);
    expect(r.bestSkill).toContain(GOOD);
    expect(r.bestSkill).not.toContain(LEAKY);
  });

  it('a well-scoped rule passes the screen', async () => {
    const r = await run([GOOD]);
    expect(r.bestSkill).toContain(GOOD);
    expect(r.steps[0].leak).toBeUndefined();
  });
});

describe('the pre-screen of single edits', () => {
  const INERT = '- mention the weather when it is nice';

  it('tries each proposed edit alone and gates only those that raise their own job without leaking', async () => {
    const r = await run([GOOD, LEAKY, INERT]);
    expect(r.bestSkill).toContain(GOOD);
    expect(r.bestSkill).not.toContain(LEAKY);
    expect(r.bestSkill).not.toContain(INERT);
    expect(r.steps[0].prescreened).toBe(2);
    expect(r.steps[0].selected).toBe(1);
    expect(r.steps[0].line).toMatch(/pre-screen dropped 2/);
    expect(r.valComparisons.prescreen).toBe(3);
    const byContent = Object.fromEntries(r.edits.map((e) => [e.content, e.status]));
    expect(byContent[GOOD]).toBe('accepted');
    // a dropped edit is not proposed to the gate at all, and the buffer only demotes it (one look)
    expect(byContent[LEAKY]).toBeUndefined();
    // the shipped skill's val score is measured once more on draws no decision saw (deterministic here: the same)
    expect(r.valComparisons.fresh_estimate).toBe(1);
    expect(r.best.valFresh).toBeCloseTo(r.best.val, 9);
    // two fresh draws a val task, past every index a decision drew: the ones below are not replayed
    expect(r.usage.stages.fresh_estimate.calls).toBe(world.val.length * 2);
  });

  it("measures an edit's own job first: the other jobs' val tasks only for an edit that raised it, where the leak screen can call a leak", async () => {
    const r = await run([GOOD, LEAKY, INERT]);
    // GOOD and LEAKY raise family a (8 tasks), then family b's 8 tasks are measured for the leak
    // screen; INERT raises nothing on a and is dropped before b is measured: 8 + 8 + 8 + 8 + 8,
    // not 3 × 16 (the same verdicts: a rollout depends on its skill, task and sample alone)
    expect(r.usage.stages.prescreen.calls).toBe(40);
    expect(r.steps[0].prescreened).toBe(2);
    // too few off-target tasks to call a leak (below MIN_OFF_TARGET_TASKS): only the edit's own job is measured
    const few = await run([GOOD, LEAKY, INERT], {}, { ...world, val: [...world.val.slice(0, 8), ...world.val.slice(8, 8 + MIN_OFF_TARGET_TASKS - 1)] });
    expect(few.usage.stages.prescreen.calls).toBe(3 * 8);
    expect(few.steps[0].prescreened).toBe(1); // LEAKY's leak cannot be called on 5 tasks: the gate decides on it
  });

  it("replays no edit on the tasks of its own job the incumbent already scores full: it could only tie or lose there", async () => {
    // the starting skill holds GOOD: family a's 8 val tasks score 1, family b's 0.75. The analysts'
    // evidence (t1, t2) puts both families in each edit's own job: b's 8 tasks are replayed, show
    // no gain, and a's 8 could only lower it further: each edit is dropped on 8 replays, not 16
    const r = await run([GOOD.replace('every', 'each'), '- always say ALPHA'], {}, world, GOOD);
    expect(r.steps[0].prescreened).toBe(2);
    expect(r.usage.stages.prescreen.replays).toBe(2 * 8);
    expect(r.bestSkill).toBe(GOOD);
    expect(r.steps[0].reason).toMatch(/none of the 2 proposed edits raised/);
  });

  it('the bound: the tasks with headroom measured, the full ones add nothing to the most the edit can gain', () => {
    const soft = (t: { soft: number }) => t.soft;
    const incumbent = scores([['va0', 1], ['va1', 1], ['va2', 0.5], ['va3', 0.75]]);
    const own = world.val.slice(0, 4);
    const { headroom, full } = byHeadroom(own, incumbent, soft);
    expect(headroom.map((t) => t.id)).toEqual(['va2', 'va3']);
    expect(full.map((t) => t.id)).toEqual(['va0', 'va1']);
    // va2 +0.25, va3 −0.25: whatever va0 and va1 score, the mean gain over 4 is at most 0, so the edit is dropped unmeasured there
    expect(gainBound(incumbent, scores([['va2', 0.75], ['va3', 0.5]]), 4, soft)).toBeCloseTo(0, 12);
    // va2 +0.5: at most +0.125, the full tasks must be measured (they could take it back)
    expect(gainBound(incumbent, scores([['va2', 1], ['va3', 0.75]]), 4, soft)).toBeCloseTo(0.125, 12);
    // a task the incumbent was not measured on has headroom (its score is unknown)
    expect(byHeadroom([...own, task('vx', 'a', 'val')], incumbent, soft).headroom.map((t) => t.id)).toEqual(['va2', 'va3', 'vx']);
  });

  it('off, the same proposal reaches the gate as one bundle', async () => {
    const r = await run([GOOD, LEAKY, INERT], { preScreen: false });
    expect(r.steps[0].prescreened).toBeUndefined();
    expect(r.steps[0].selected).toBe(3);
    expect(r.valComparisons.prescreen).toBeUndefined();
  });

  it('focusGain measures an edit on its own families only', () => {
    const tasks = byId;
    const ids = world.val.map((t) => t.id);
    const scores = (f: (id: string) => number): SplitScores => {
      const perTask = ids.map((taskId) => ({ taskId, hard: f(taskId), soft: f(taskId) }));
      return { hard: 0, soft: perTask.reduce((a, t) => a + t.soft, 0) / perTask.length, perTask };
    };
    const current = scores(() => 0.5);
    // +0.5 on each of a's 8 tasks, −0.25 on b's: on the whole split a gain of 0.125, on its own family 0.5
    const candidate = scores((id) => (id.startsWith('va') ? 1 : 0.25));
    const g = focusGain({ edit: add(GOOD), taskById: tasks, current, candidate, metric: 'soft', mixedWeight: 0.5 });
    expect(g).toEqual({ gain: 0.5, n: 8 });
    expect(focusGain({ edit: { ...add(GOOD), evidence: ['nowhere'] }, taskById: tasks, current, candidate, metric: 'soft', mixedWeight: 0.5 })).toBeNull();
  });
});

describe('the fresh incumbent (no winner’s curse)', () => {
  /** the empty skill's first sample is a lucky draw (it says ALPHA); every later sample is its real self */
  function luckyBaseline(): RoleBackends {
    const b = backends([GOOD]);
    const target = scriptedBackend({
      perform: (req) => {
        const p = req.payload as PerformPayload;
        if (p.skill.content.includes(GOOD)) return 'ALPHA';
        return p.sample === 0 ? 'ALPHA' : 'done';
      },
    });
    return { ...b, target };
  }

  async function runLucky(options: Partial<TrainOptions>): Promise<TrainResult> {
    const home = makeTempDir('sos-fresh-');
    dirs.push(home);
    const paths = resolvePaths({ env: { SKILLOPT_SLEEP_HOME: home } });
    const db = openDb(paths.database);
    dbs.push(db);
    return trainSkill({
      db,
      paths,
      skill: { name: 'fresh-conventions', content: '', handWritten: false },
      tasks: world,
      backends: luckyBaseline(),
      options: { ...trainOptionsFromConfig(defaultConfig().training), epochs: 1, batchSize: 8, lr: 4, lrSchedule: 'constant', slowUpdate: false, metaSkill: false, prune: false, simplify: false, ...options },
    });
  }

  it('gates against a fresh sample of the incumbent, so its lucky first measure cannot block a real gain', async () => {
    const stale = await runLucky({ freshIncumbent: false });
    expect(stale.steps[0].action).toBe('reject'); // the lucky first measure looks as good as the candidate: a tie
    const fresh = await runLucky({});
    expect(fresh.valComparisons.incumbent).toBe(1);
    expect(fresh.steps[0].valBefore).toBeLessThan(stale.steps[0].valBefore);
    expect(fresh.steps[0].action).toBe('accept_new_best');
    expect(fresh.bestSkill).toContain(GOOD);
  });
});
