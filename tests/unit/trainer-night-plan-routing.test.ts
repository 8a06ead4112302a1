import { describe, expect, it } from 'vitest';
import type { SkillTarget, Task } from '../../src/core/records.js';
import { capTasks, checkItem, countTasks, forecastCalls, planNight } from '../../src/night/plan.js';
import { makeTask } from '../helpers/tasks.js';

let n = 0;
function task(p: Partial<Task> & { split: Task['split'] }): Task {
  n++;
  return makeTask({
    id: p.id ?? `t${n}`,
    project: p.project === undefined ? '/p' : p.project,
    intent: p.intent ?? `do distinct thing number ${n} with words ${'abcdefghij'.charAt(n % 10)}${n}`,
    judge: { checks: [], reference: { kind: 'rule' } },
    split: p.split,
    skillHint: p.skillHint ?? null,
    occurrences: p.occurrences ?? 2,
    firstSeen: 1,
    lastSeen: p.lastSeen ?? 2,
    agents: p.agents ?? ['claude-code'],
  });
}
const target = (name: string, project: string | null, kind: SkillTarget['kind'] = 'skill'): SkillTarget => ({
  agent: null,
  path: `${project ?? '/home'}/.claude/skills/${name}/SKILL.md`,
  name,
  kind,
  readBy: ['claude-code'],
  project,
});
const managed = (project: string) => target('skillopt-sleep-learned', project, 'managed');
const splits = (tr: number, va: number, te: number, extra: Partial<Task> = {}) => [
  ...Array.from({ length: tr }, () => task({ split: 'train', ...extra })),
  ...Array.from({ length: va }, () => task({ split: 'val', ...extra })),
  ...Array.from({ length: te }, () => task({ split: 'test', ...extra })),
];

describe('planNight', () => {
  it('routes hinted tasks to the invoked skill and the rest to the managed skill', () => {
    const tasks = [...splits(4, 3, 1, { skillHint: 'changelog' }), ...splits(5, 3, 1)];
    const plan = planNight({ tasks, skillsByProject: new Map([['/p', [target('changelog', '/p')]]]), managed, maxTasks: 60, minValTasks: 3 });
    const byName = Object.fromEntries(plan.items.map((i) => [i.target.name, i]));
    expect(byName.changelog.routedBy).toBe('skill-hint');
    expect(countTasks(byName.changelog.tasks)).toBe(8);
    expect(byName['skillopt-sleep-learned'].routedBy).toBe('managed');
    expect(countTasks(byName['skillopt-sleep-learned'].tasks)).toBe(9);
    expect(plan.items.every((i) => !i.skip)).toBe(true);
  });

  it('a hint to a skill that does not exist falls back to the managed skill', () => {
    const plan = planNight({ tasks: splits(3, 3, 0, { skillHint: 'ghost' }), skillsByProject: new Map(), managed, maxTasks: 60, minValTasks: 3 });
    expect(plan.items.map((i) => i.target.name)).toEqual(['skillopt-sleep-learned']);
  });

  it('thin targets are skipped with the reason and what is needed', () => {
    const plan = planNight({ tasks: splits(4, 1, 0), skillsByProject: new Map(), managed, maxTasks: 60, minValTasks: 3 });
    expect(plan.items[0].skip?.reason).toMatch(/thin night: 1 validation task\(s\), training.minValTasks is 3/);
    expect(plan.items[0].skip?.needed).toMatch(/more recurring task/);
  });

  it('leaked splits are skipped', () => {
    const a = task({ split: 'train', intent: 'write the changelog entry for the fix' });
    const b = task({ split: 'val', intent: 'write the changelog entry for the fix' });
    expect(checkItem({ train: [a], val: [b, task({ split: 'val' }), task({ split: 'val' })], test: [] }, 3)?.reason).toMatch(/leak/);
  });

  it('caps tasks to budget.maxTasks, keeping validation tasks first', () => {
    const s = { train: splits(20, 0, 0), val: splits(0, 6, 0), test: splits(0, 0, 4) };
    const c = capTasks(s, 10, 3);
    expect(countTasks(c)).toBe(10);
    expect(c.val.length).toBe(3);
    expect(c.test.length).toBe(2);
    const plan = planNight({ tasks: [...splits(20, 6, 4)], skillsByProject: new Map(), managed, maxTasks: 10, minValTasks: 3 });
    expect(countTasks(plan.items[0].tasks)).toBe(10);
    expect(plan.notes.join()).toMatch(/using 10 of 30 tasks/);
  });

  it('--skill trains only that target, on all project tasks when none invoked it', () => {
    const plan = planNight({ tasks: splits(3, 3, 1), skillsByProject: new Map(), managed, maxTasks: 60, minValTasks: 3, only: target('vitest-style', '/p') });
    expect(plan.items).toHaveLength(1);
    expect(plan.items[0].routedBy).toBe('explicit');
    expect(countTasks(plan.items[0].tasks)).toBe(7);
    expect(plan.notes.join()).toMatch(/no task was seen invoking vitest-style/);
  });
});

describe('forecastCalls', () => {
  it('counts the night phase by phase: the judge audit (its replies cached), the start draft, steps, boundaries, attribution and test', () => {
    const s = { train: splits(10, 0, 0), val: splits(0, 3, 0), test: splits(0, 0, 2) };
    const calls = forecastCalls(s, { epochs: 2, batchSize: 4, lr: 1, slowUpdateSamples: 5, skillChars: 100, estimate: () => ({ tokens: 10, usd: 0.001 }) });
    const by = (phase: string) => calls.filter((c) => c.phase === phase).length;
    // the audit: 3 val, 2 test, 3 train tasks replayed and each reply graded again; the baseline and
    // the starting skill's test figure read them back from the cache
    expect(by('judge audit')).toBe(16);
    expect(by('baseline')).toBe(0);
    // the start draft on val (its gate's extra round is counted only without training steps)
    expect(by('start draft')).toBe(3);
    // 2 epochs of 3 steps (batches 4, 4, 2): each step its batch, four optimizer calls, one edit
    // pre-screened (lr 1) and the candidate on val; the incumbent's fresh look on the first four
    expect(by('rollout')).toBe(2 * 10);
    expect(by('pre-screen')).toBe(6 * 3);
    expect(by('gate')).toBe(6 * 3);
    expect(by('incumbent')).toBe(4 * 3);
    // each boundary: 2 × 5 sampled train + the rewrite + 3 val; then the meta skill
    expect(by('slow update')).toBe(2 * (10 + 1 + 3));
    expect(by('optimizer')).toBe(6 * 4 + 2);
    // one accepted edit per step at most, re-scored on val
    expect(by('attribution')).toBe(6 * 3);
    // the starting skill's test figure is the audit's; the final skill's replays both test tasks
    expect(by('test')).toBe(0);
    expect(by('final test')).toBe(2);
    expect(calls).toHaveLength(16 + 3 + 20 + 18 + 18 + 12 + 28 + 26 + 18 + 2);
  });

  it('epochs 0 is the night without training steps: the audit, the start draft on val and the test measure', () => {
    const s = { train: splits(10, 0, 0), val: splits(0, 6, 0), test: splits(0, 0, 4) };
    const calls = forecastCalls(s, { epochs: 0, batchSize: 4, lr: 4, skillChars: 100, estimate: () => ({ tokens: 10, usd: 0 }) });
    expect([...new Set(calls.map((c) => c.phase))]).toEqual(['judge audit', 'start draft', 'test', 'final test']);
    // the start draft and one extra round of its gate (both skills on val again)
    expect(calls.filter((c) => c.phase === 'start draft')).toHaveLength(3 * 6);
    // the audit takes 6 val and 2 test tasks; the starting skill's test replays the 2 it left, the final skill's all 4
    expect(calls.filter((c) => c.phase === 'test')).toHaveLength(2);
    expect(calls.filter((c) => c.phase === 'final test')).toHaveLength(4);
  });

  it('rubric tasks add a judge call per rollout', () => {
    const t = splits(0, 1, 0)[0];
    t.judge = { checks: [], reference: { kind: 'rubric', rubric: 'good', passThreshold: 0.7 } };
    const kinds: string[] = [];
    forecastCalls({ train: [], val: [t], test: [] }, { epochs: 0, batchSize: 1, lr: 1, skillChars: 0, estimate: (k) => (kinds.push(k), { tokens: 1, usd: 0 }) });
    // the audit's replay, its grade and the grade again; the start draft's replay and its grade, and its gate's extra round
    expect(kinds).toEqual(['rollout', 'judge', 'judge', ...Array(3).fill(['rollout', 'judge']).flat()]);
  });
});
