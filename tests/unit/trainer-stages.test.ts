import { describe, expect, it } from 'vitest';
import type { Edit, Rollout, Task } from '../../src/core/records.js';
import { makeTask } from '../helpers/tasks.js';
import type { MergePayload, RankPayload, ReflectPayload } from '../../src/core/protocol.js';
import { reflect, type Patch, type ProposedEdit } from '../../src/trainer/optimizer/reflect.js';
import { aggregate, dedupeEdits } from '../../src/trainer/optimizer/aggregate.js';
import { decideBudget, pickIndices, selectEdits } from '../../src/trainer/optimizer/select.js';
import { UsageMeter, type CallContext } from '../../src/trainer/optimizer/call.js';
import { scriptedBackend, type Handler } from '../helpers/scripted-backend.js';

const task = (id: string, sealed = false): Task =>
  makeTask({
    id,
    intent: `do ${id}`,
    judge: {
      checks: [
        { id: 'c1', op: 'contains', value: 'OK', weight: 1, sealed: false, description: 'says OK' },
        { id: 'c2', op: 'contains', value: 'SECRET-CHECK', weight: 1, sealed, description: 'the hidden one' },
      ],
      reference: { kind: 'rule' },
    },
    split: 'train',
  });
const rollout = (taskId: string, hard: number, extra: Partial<Rollout> = {}): Rollout => ({
  taskId,
  skillHash: 'h',
  sample: 0,
  backend: 'sim',
  model: 'm',
  response: `resp ${taskId}`,
  toolsCalled: [],
  hardScore: hard,
  softScore: hard,
  checks: [],
  feedback: hard < 1 ? `missing OK in ${taskId}` : '',
  tokensIn: 0,
  tokensOut: 0,
  costUsd: 0,
  latencyMs: 0,
  cached: false,
  ...extra,
});
const edit = (content: string, evidence: string[] = []): Edit => ({ op: 'add', content, rationale: 'r', evidence });
const ctx = (handlers: Partial<Record<string, Handler>>) => {
  const backend = scriptedBackend(handlers);
  const call: CallContext = { optimizer: backend, meter: new UsageMeter() };
  return { backend, call };
};

describe('reflect', () => {
  const ids = ['t1', 't2', 't3', 't4', 't5', 't6', 't7'];
  const tasks = new Map(ids.map((id) => [id, task(id, true)]));
  const rollouts = [
    rollout('t1', 0),
    rollout('t2', 0.5), // partial credit is a failure
    rollout('t3', 1),
    rollout('t4', 0),
    rollout('t5', 1),
    rollout('t6', 0, { error: 'timeout' }), // infra error: never shown to analysts
    rollout('t7', 0),
  ];
  it('analyses failures and successes separately in minibatches, sorted deterministically', async () => {
    const { backend, call } = ctx({
      reflect: async (req) => {
        const p = req.payload as ReflectPayload;
        // later minibatches answer first: completion order must not matter
        await new Promise((r) => setTimeout(r, p.mode === 'failures' ? 20 : 1));
        return JSON.stringify({ edits: [edit(`- from ${p.mode} ${p.rollouts.map((r) => r.taskId).join(',')}`, [p.rollouts[0].taskId, 'not-in-batch'])] });
      },
    });
    const res = await reflect({ call, skill: '# S', scopeNote: 'all', rollouts, tasks, rejected: [], metaSkill: '', history: '', maxEdits: 3, minibatchSize: 2, seed: 5, concurrency: 4 });
    expect(res.failures).toBe(4);
    expect(res.successes).toBe(2);
    expect(res.infraErrors).toBe(1);
    expect(res.patches.map((p) => p.id)).toEqual(['fail_000', 'fail_001', 'succ_000']);
    for (const c of backend.calls) {
      const p = c.payload as ReflectPayload;
      const passed = new Set(p.rollouts.map((r) => r.passed));
      expect(passed.size).toBe(1); // never mixed
      expect(p.rollouts.some((r) => r.taskId === 't6')).toBe(false);
      expect(c.prompt).not.toContain('SECRET-CHECK'); // sealed check text never reaches the optimizer
      expect(c.prompt).not.toContain('the hidden one');
      expect(c.prompt).toContain('says OK');
    }
    // evidence limited to the minibatch's tasks
    for (const p of res.patches) for (const e of p.edits) expect(e.edit.evidence.every((id) => p.taskIds.includes(id))).toBe(true);
    // same seed → same grouping
    const again = await reflect({ call, skill: '# S', scopeNote: 'all', rollouts, tasks, rejected: [], metaSkill: '', history: '', maxEdits: 3, minibatchSize: 2, seed: 5, concurrency: 4 });
    expect(again.patches.map((p) => p.taskIds)).toEqual(res.patches.map((p) => p.taskIds));
  });
  it('truncates analyst edits to the budget and drops unusable replies without failing the step', async () => {
    let n = 0;
    const { call } = ctx({
      reflect: () => (n++ % 2 === 0 ? 'not json at all' : JSON.stringify({ edits: [edit('- a'), edit('- b'), edit('- c')] })),
    });
    const res = await reflect({ call, skill: '', scopeNote: '', rollouts: [rollout('t1', 0)], tasks, rejected: [], metaSkill: '', history: '', maxEdits: 2, minibatchSize: 8, seed: 1, concurrency: 1 });
    // first reply malformed → one repair attempt succeeds
    expect(res.patches[0].edits.map((e) => e.edit.content)).toEqual(['- a', '- b']);
    const { call: bad } = ctx({ reflect: () => '{"edits": "nope"}' });
    const res2 = await reflect({ call: bad, skill: '', scopeNote: '', rollouts: [rollout('t1', 0)], tasks, rejected: [], metaSkill: '', history: '', maxEdits: 2, minibatchSize: 8, seed: 1, concurrency: 1 });
    expect(res2.patches).toEqual([]);
    expect(res2.errors[0].minibatch).toBe('fail_000');
  });
  it('passes rejected edits and the meta skill to the analysts', async () => {
    const { backend, call } = ctx({ reflect: () => '{"edits":[]}' });
    await reflect({
      call,
      skill: '',
      scopeNote: '',
      rollouts: [rollout('t1', 0)],
      tasks,
      rejected: [{ op: 'add', content: '- always shout', scoreDrop: 0.2, source: 'gate' }],
      metaSkill: 'prefer small edits',
      history: '',
      maxEdits: 2,
      minibatchSize: 8,
      seed: 1,
      concurrency: 1,
    });
    const p = backend.calls[0].payload as ReflectPayload;
    expect(p.rejectedEdits[0].content).toBe('- always shout');
    expect(p.metaSkill).toBe('prefer small edits');
    expect(backend.calls[0].prompt).toContain('always shout');
    expect(backend.calls[0].prompt).toContain('prefer small edits');
  });
});

const proposed = (content: string, source: 'failure' | 'success' = 'failure', support = 1): ProposedEdit => ({ edit: edit(content, ['t']), source, support, level: 0 });
const patch = (id: string, source: 'failure' | 'success', contents: string[]): Patch => ({ id, source, taskIds: ['t'], edits: contents.map((c) => proposed(c, source)) });

describe('aggregate', () => {
  it('a lone patch passes through with no call; hierarchical levels merge in groups', async () => {
    const { backend, call } = ctx({
      merge: (req) => {
        const p = req.payload as MergePayload;
        return JSON.stringify({ edits: p.patches.flat().slice(0, 1) });
      },
    });
    const one = await aggregate({ call, skill: '', patches: [patch('fail_000', 'failure', ['- a', '- b'])], metaSkill: '', mergeBatchSize: 2, concurrency: 2 });
    expect(backend.calls).toHaveLength(0);
    expect(one.edits.map((e) => e.edit.content)).toEqual(['- a', '- b']);
    const five = ['a', 'b', 'c', 'd', 'e'].map((x, i) => patch(`fail_00${i}`, 'failure', [`- ${x}`]));
    const res = await aggregate({ call, skill: '', patches: five, metaSkill: '', mergeBatchSize: 2, concurrency: 2 });
    // level 1: [a,b] [c,d] [e] → 2 calls; level 2: [ab, cd] [e] → 1 call; level 3: [abcd, e] → 1 call
    expect(backend.calls).toHaveLength(4);
    expect(res.merges).toBe(4);
    expect(res.edits.map((e) => e.edit.content)).toEqual(['- a']);
    expect(res.edits[0].level).toBe(3);
  });
  it('merge batch size below 2 is clamped (upstream looped forever)', async () => {
    const { call } = ctx({ merge: (req) => JSON.stringify({ edits: (req.payload as MergePayload).patches.flat() }) });
    const res = await aggregate({ call, skill: '', patches: [patch('f0', 'failure', ['- a']), patch('f1', 'failure', ['- b']), patch('f2', 'failure', ['- c'])], metaSkill: '', mergeBatchSize: 1, concurrency: 1 });
    expect(res.edits).toHaveLength(3);
  });
  it('unusable merge replies fall back deterministically: concatenation, duplicates folded, failures first', async () => {
    const { call } = ctx({ merge: () => 'I cannot do that' });
    const res = await aggregate({
      call,
      skill: '',
      patches: [patch('succ_000', 'success', ['- s1', '- shared']), patch('fail_000', 'failure', ['- f1', '- shared']), patch('fail_001', 'failure', ['- f2', '- SHARED '])],
      metaSkill: '',
      mergeBatchSize: 8,
      concurrency: 1,
    });
    expect(res.fallbacks.map((f) => f.merge)).toEqual(['failure level 1 batch 0', 'final']);
    expect(res.edits.map((e) => e.edit.content)).toEqual(['- f1', '- shared', '- f2', '- s1']);
    const shared = res.edits.find((e) => e.edit.content === '- shared')!;
    expect(shared.source).toBe('failure');
    expect(shared.support).toBe(3);
  });
  it('final merge gets [failure group, success group] in that order', async () => {
    const { backend, call } = ctx({ merge: (req) => JSON.stringify({ edits: (req.payload as MergePayload).patches.flat() }) });
    await aggregate({ call, skill: '', patches: [patch('succ_000', 'success', ['- s']), patch('fail_000', 'failure', ['- f'])], metaSkill: '', mergeBatchSize: 8, concurrency: 1 });
    const final = backend.calls.at(-1)!.payload as MergePayload;
    expect(final.patches.map((g) => g.map((e) => e.content))).toEqual([['- f'], ['- s']]);
    expect(backend.calls.at(-1)!.prompt).toContain('Group 1 (failure-driven, HIGH priority): 1 edits');
  });
  it('dedupeEdits folds identical edits', () => {
    expect(dedupeEdits([proposed('- x', 'success'), proposed('-  X', 'failure'), proposed('- y')]).map((p) => [p.edit.content, p.source, p.support])).toEqual([
      ['- x', 'failure', 2],
      ['- y', 'failure', 1],
    ]);
  });
});

describe('select', () => {
  const pool = ['- a', '- b', '- c', '- d'].map((c) => proposed(c));
  it('within budget: unchanged, no call', async () => {
    const { backend, call } = ctx({});
    const r = await selectEdits({ call, skill: '', edits: pool, budget: 4, metaSkill: '' });
    expect(r.selected).toHaveLength(4);
    expect(backend.calls).toHaveLength(0);
  });
  it('budget 0 selects nothing (upstream selected one)', async () => {
    const { call } = ctx({ rank: () => '{"order":[0,1]}' });
    expect((await selectEdits({ call, skill: '', edits: pool, budget: 0, metaSkill: '' })).selected).toHaveLength(0);
  });
  it('ranking: valid, unseen, in-range indices in order, capped at the budget', async () => {
    const { backend, call } = ctx({ rank: () => '{"order":[9, 2, 2, 0, 3]}' });
    const r = await selectEdits({ call, skill: '', edits: pool, budget: 2, metaSkill: '' });
    expect(r.selected.map((p) => p.edit.content)).toEqual(['- c', '- a']);
    expect((backend.calls[0].payload as RankPayload).budget).toBe(2);
    expect(pickIndices([1, -1, 1.5, 3, 0], 4, 5)).toEqual([1, 3, 0]);
  });
  it('falls back to merge order when the ranking names nothing valid or is unusable', async () => {
    const { call } = ctx({ rank: () => '{"order":[99]}' });
    const r = await selectEdits({ call, skill: '', edits: pool, budget: 3, metaSkill: '' });
    expect(r.selected.map((p) => p.edit.content)).toEqual(['- a', '- b', '- c']);
    expect(r.fallback).toMatch(/truncated 4→3/);
    const { call: bad } = ctx({ rank: () => 'garbage' });
    expect((await selectEdits({ call: bad, skill: '', edits: pool, budget: 1, metaSkill: '' })).selected.map((p) => p.edit.content)).toEqual(['- a']);
  });
  it('autonomous budget is clamped to [min,max] and what is available; a bad reply gives min', async () => {
    const { call } = ctx({ lr_budget: () => '{"budget": 50, "reason": "go big"}' });
    const d = await decideBudget({ call, skill: '', edits: pool, step: 1, totalSteps: 4, min: 1, max: 3, recentAcceptRate: 0.5, metaSkill: '' });
    expect(d.budget).toBe(3);
    const { call: bad } = ctx({ lr_budget: () => 'nope' });
    const d2 = await decideBudget({ call: bad, skill: '', edits: pool, step: 1, totalSteps: 4, min: 2, max: 3, recentAcceptRate: 0.5, metaSkill: '' });
    expect(d2).toMatchObject({ budget: 2, fallback: true });
  });
});
