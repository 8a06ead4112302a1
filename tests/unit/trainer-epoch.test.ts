import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/records.js';
import { makeTask } from '../helpers/tasks.js';
import type { MetaSkillPayload, SlowUpdatePayload } from '../../src/core/protocol.js';
import { comparePairs, slowUpdate } from '../../src/trainer/passes/slow-update.js';
import { updateMetaSkill } from '../../src/trainer/passes/meta-skill.js';
import { UsageMeter } from '../../src/trainer/optimizer/call.js';
import { getGuidance, setGuidance } from '../../src/skilldoc/segments.js';
import { scriptedBackend } from '../helpers/scripted-backend.js';
import type { SplitScores } from '../../src/trainer/gate/gate.js';

const task = (id: string): Task => makeTask({ id, intent: `intent ${id}`, judge: { checks: [], reference: { kind: 'rule' } }, split: 'train' });
const sc = (rows: Array<[string, number, number]>): SplitScores => ({ hard: 0, soft: 0, perTask: rows.map(([taskId, hard, soft]) => ({ taskId, hard, soft })) });
const tasks = ['a', 'b', 'c', 'd'].map(task);
const before = sc([
  ['a', 0, 0.2],
  ['b', 1, 1],
  ['c', 0, 0.1],
  ['d', 1, 1],
]);
const after = sc([
  ['a', 1, 1],
  ['b', 0, 0.5],
  ['c', 0, 0.4],
  ['d', 1, 1],
]);

describe('slow update', () => {
  it('classifies each task improved / regressed / still failing / stable (pass = hard)', () => {
    expect(comparePairs(tasks, before, after, 'soft').map((p) => [p.taskId, p.status, p.before, p.after])).toEqual([
      ['a', 'improved', 0.2, 1],
      ['b', 'regressed', 1, 0.5],
      ['c', 'still_failing', 0.1, 0.4],
      ['d', 'stable', 1, 1],
    ]);
  });
  it('asks the optimizer with the typed payload and returns its guidance', async () => {
    const backend = scriptedBackend({ slow_update: () => '{"guidance":"- re-check regressions"}' });
    const res = await slowUpdate({ call: { optimizer: backend, meter: new UsageMeter() }, skillBefore: 'A', skillAfter: setGuidance('B\n', '- old'), tasks, before, after, metric: 'soft' });
    expect(res).toMatchObject({ guidance: '- re-check regressions', action: 'write_guidance' });
    const p = backend.calls[0].payload as SlowUpdatePayload;
    expect(p.currentGuidance).toBe('- old');
    expect(p.perTask.find((t) => t.taskId === 'b')?.status).toBe('regressed');
    expect(backend.calls[0].prompt).toContain('Regressions (pass → fail) — HIGHEST PRIORITY');
  });
  it('skips the call when nothing failed or regressed and there is no guidance yet', async () => {
    const backend = scriptedBackend({});
    const all = sc(tasks.map((t) => [t.id, 1, 1] as [string, number, number]));
    const res = await slowUpdate({ call: { optimizer: backend, meter: new UsageMeter() }, skillBefore: 'A', skillAfter: 'B', tasks, before: all, after: all, metric: 'hard' });
    expect(res.action).toBe('skip_nothing_to_say');
    expect(backend.calls).toHaveLength(0);
  });
  it('an unusable reply changes nothing', async () => {
    const backend = scriptedBackend({ slow_update: () => 'no' });
    const res = await slowUpdate({ call: { optimizer: backend, meter: new UsageMeter() }, skillBefore: 'A', skillAfter: 'B', tasks, before, after, metric: 'soft' });
    expect(res).toMatchObject({ guidance: null, action: 'call_failed' });
  });
  it('guidance lands only inside the protected block', () => {
    const doc = setGuidance('# S\n\n- rule\n', '- g');
    expect(getGuidance(doc)).toBe('- g');
    expect(doc.startsWith('# S\n\n- rule\n')).toBe(true);
  });
});

describe('meta skill', () => {
  it('sends accepted and rejected edits of the epoch with their drops', async () => {
    const backend = scriptedBackend({ meta_skill: () => '{"meta":"Prefer concrete examples."}' });
    const res = await updateMetaSkill({
      call: { optimizer: backend, meter: new UsageMeter() },
      previousMeta: 'old memory',
      epoch: 2,
      accepted: [{ op: 'add', content: '- good', rationale: '', evidence: [] }],
      rejected: [{ op: 'delete', anchor: '- x', content: '', rationale: '', evidence: [], scoreDrop: 0.1 }],
      valBefore: 0.5,
      valAfter: 0.6,
    });
    expect(res).toEqual({ meta: 'Prefer concrete examples.', action: 'write_meta_skill' });
    const p = backend.calls[0].payload as MetaSkillPayload;
    expect(p).toMatchObject({ previousMeta: 'old memory', epoch: 2, valBefore: 0.5, valAfter: 0.6 });
    expect(p.rejected[0].scoreDrop).toBe(0.1);
  });
  it('no evidence, no call', async () => {
    const backend = scriptedBackend({});
    const res = await updateMetaSkill({ call: { optimizer: backend, meter: new UsageMeter() }, previousMeta: '', epoch: 1, accepted: [], rejected: [], valBefore: 0, valAfter: 0 });
    expect(res.action).toBe('skip_no_evidence');
    expect(backend.calls).toHaveLength(0);
  });
});
