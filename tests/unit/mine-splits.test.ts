import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/records.js';
import { makeTask } from '../helpers/tasks.js';
import { assignSplit, checkSplitIntegrity, SPLIT_FRACTIONS, splitBucket, thinProjects } from '../../src/mine/splits.js';
import { optimizerView } from '../../src/mine/view.js';
import { makeCheck } from '../../src/mine/judge-synth.js';

const task = (id: string, over: Partial<Task> = {}): Task =>
  makeTask({
    id,
    project: '/p',
    intent: `ask ${id}`,
    judge: { checks: [makeCheck({ op: 'no_refusal' })], reference: { kind: 'rule' } },
    split: assignSplit(id, over.origin ?? 'real'),
    occurrences: 2,
    ...over,
  });

describe('split assignment', () => {
  it('is a stable function of the id, near the configured fractions', () => {
    const ids = Array.from({ length: 4000 }, (_, i) => `task_${i}`);
    const first = ids.map((id) => assignSplit(id, 'real'));
    expect(ids.map((id) => assignSplit(id, 'real'))).toEqual(first);
    const frac = (s: string) => first.filter((x) => x === s).length / ids.length;
    expect(Math.abs(frac('val') - SPLIT_FRACTIONS.val)).toBeLessThan(0.03);
    expect(Math.abs(frac('test') - SPLIT_FRACTIONS.test)).toBeLessThan(0.03);
    expect(splitBucket('a', 1)).not.toBe(splitBucket('a', 2));
  });

  it('never holds out a synthetic task', () => {
    for (let i = 0; i < 200; i++) expect(assignSplit(`t${i}`, 'dream')).toBe('train');
  });
});

describe('split integrity', () => {
  const val = Array.from({ length: 50 }, (_, i) => `v${i}`).find((id) => assignSplit(id, 'real') === 'val')!;
  const train = Array.from({ length: 50 }, (_, i) => `t${i}`).find((id) => assignSplit(id, 'real') === 'train')!;

  it('passes a clean pool', () => {
    expect(checkSplitIntegrity([task(val), task(train)])).toEqual([]);
  });

  it('reports every kind of leak', () => {
    const kinds = (ts: Task[]) => checkSplitIntegrity(ts).map((v) => v.kind);
    expect(kinds([task(val), { ...task(val), split: 'train' }])).toContain('duplicate_id');
    expect(kinds([task('d1', { origin: 'dream', split: 'val' })])).toEqual(['synthetic_in_holdout']);
    expect(kinds([task(val), task(`${val}_dream1`, { origin: 'dream', split: 'train' })])).toContain('derived_leak');
    expect(kinds([task(val, { intent: 'Write a changelog entry for #12' }), task(train, { intent: 'write a changelog entry for #99' })])).toContain('near_duplicate');
  });
});

describe('thin data accounting', () => {
  it('says how many more validation tasks a project needs', () => {
    const vals = Array.from({ length: 200 }, (_, i) => `x${i}`).filter((id) => assignSplit(id, 'real') === 'val');
    const trains = Array.from({ length: 200 }, (_, i) => `y${i}`).filter((id) => assignSplit(id, 'real') === 'train');
    const pool = [task(vals[0], { project: '/a' }), task(trains[0], { project: '/a' }), ...vals.slice(1, 4).map((id) => task(id, { project: '/b' }))];
    const thin = thinProjects(pool, 3);
    // 2 more validation tasks, after a second train task: new tasks are held out once 2 train (topUpThinValidation)
    expect(thin).toEqual([{ project: '/a', tasks: 2, valTasks: 1, needed: 2, moreTasks: 3 }]);
  });
});

describe('optimizer view', () => {
  it('never carries sealed checks or exact answers', () => {
    const sealed = makeCheck({ op: 'regex', value: 'SEALED_PATTERN_[0-9]+', sealed: true, description: 'hidden judge detail' });
    const visible = makeCheck({ op: 'contains', value: 'vitest', description: 'uses vitest' });
    const t = task('s1', { judge: { checks: [visible, sealed], reference: { kind: 'exact', answer: 'THE_EXACT_ANSWER', normalize: true } } });
    const view = optimizerView(t);
    const text = JSON.stringify(view);
    expect(text).not.toContain('SEALED_PATTERN');
    expect(text).not.toContain('hidden judge detail');
    expect(text).not.toContain('THE_EXACT_ANSWER');
    expect(view.judge.checks.map((c) => c.id)).toEqual([visible.id]);
    // the stored task is untouched
    expect(t.judge.checks).toHaveLength(2);
  });
});
