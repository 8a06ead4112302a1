import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Task } from '../../src/core/records.js';
import type { StoredMember } from '../../src/mine/state.js';
import type { Outcome } from '../../src/mine/outcome.js';
import { extractIntents, type MinedEvent } from '../../src/mine/outcome.js';
import { familyInstances, familyJudge, instanceTaskId, sameJson, synthesizeFamily } from '../../src/mine/family.js';
import { assignFamilySplits, checkSplitIntegrity } from '../../src/mine/splits.js';
import { optimizerView } from '../../src/mine/view.js';

const T0 = Date.UTC(2026, 9, 1);
function member(sessionId: string, prompt: string, over: Partial<StoredMember> & { corrections?: string[] } = {}): StoredMember {
  const outcome: Outcome = {
    tools: ['Edit'],
    toolErrors: 0,
    final: 'Added.',
    reactions: (over.corrections ?? []).map((text) => ({ kind: 'correction' as const, text })),
    label: over.corrections?.length ? 'corrected' : 'unknown',
  };
  return { sessionId, seq: over.seq ?? 0, project: over.project ?? '/src/ledgerline', agent: over.agent ?? 'claude-code', ts: over.ts ?? T0, similarity: 80, prompt, outcome };
}

const CHANGELOG = [
  member('claude-code:a', 'write a changelog entry for the rounding fix (#412)', { ts: T0 + 1, corrections: ['no, use Keep a Changelog format under ## [Unreleased]'] }),
  member('codex:b', 'add a changelog entry for the currency parser fix (#418)', { ts: T0 + 2, agent: 'codex', project: '/src/tallybook', corrections: ['link the PR'] }),
  member('copilot:c', 'changelog entry for the new formatCompact option (#421) please', { ts: T0 + 3, agent: 'copilot' }),
  member('claude-code:d', 'write the changelog entry for the locale fallback fix (#430)', { ts: T0 + 4 }),
  member('claude-code:e', 'add a CHANGELOG entry for the negative zero bug (#433)', { ts: T0 + 5 }),
];

describe('family instances', () => {
  it('one instance per session; near-identical asks are one instance anchored at the oldest', () => {
    const ms = [
      member('s1', 'draft the release notes for v2.4.0', { ts: T0 + 1 }),
      member('s1', 'draft release notes for 2.4.0 again', { seq: 6, ts: T0 + 2 }), // same session
      member('s2', 'draft the v2.7.0 release notes', { ts: T0 + 3 }), // same words once the version is stripped
      member('s3', 'write release notes for 2.5.0 covering the compact formatting', { ts: T0 + 4 }),
    ];
    const inst = familyInstances(ms);
    expect(inst.map((i) => i.members.map((m) => m.sessionId))).toEqual([['s1', 's1', 's2'], ['s3']]);
    expect(inst[0].id).toBe(instanceTaskId('s1', 0));
    // the order members arrive in does not change the instances or their ids
    expect(familyInstances([...ms].reverse()).map((i) => i.id)).toEqual(inst.map((i) => i.id));
  });
});

describe('synthesizeFamily', () => {
  const fam = synthesizeFamily({ clusterId: 'cl_changelog', members: CHANGELOG, existing: new Map(), seed: 1 });
  const tasks = fam.instances.map((i) => i.task);

  it('makes one task per occurrence, each with its own ask; train and val share the family judge, a test instance keeps its own', () => {
    expect(tasks).toHaveLength(5);
    expect(tasks.map((t) => t.intent)).toEqual(CHANGELOG.map((m) => m.prompt));
    expect(tasks.every((t) => t.family === 'cl_changelog')).toBe(true);
    expect(tasks.find((t) => /currency/.test(t.intent))!.project).toBe('/src/tallybook');
    const seen = tasks.filter((t) => t.split !== 'test');
    const held = tasks.filter((t) => t.split === 'test');
    expect(held.length).toBeGreaterThan(0);
    // the family judge is built from train and val sessions only: a test session's corrections never reach it
    const heldCorrections = new Set(held.flatMap((t) => CHANGELOG.find((m) => m.prompt === t.intent)!.outcome.reactions.map((r) => r.text)));
    for (const t of seen) {
      expect(t.judge.checks).toEqual(seen[0].judge.checks);
      expect(t.corrections).toEqual(['no, use Keep a Changelog format under ## [Unreleased]', 'link the PR'].filter((c) => !heldCorrections.has(c)));
    }
    // a test instance is judged by what its own session said
    for (const t of held) expect(t.corrections).toEqual([...CHANGELOG.find((m) => m.prompt === t.intent)!.outcome.reactions.map((r) => r.text)]);
    for (const t of tasks) expect(t.judge.reference.kind === 'rubric' ? t.judge.reference.rubric : '').toContain(t.intent);
    const sealed = tasks[0].judge.checks.filter((c) => c.sealed);
    expect(sealed.length).toBeGreaterThan(0); // the Keep a Changelog subsection check stays sealed…
    for (const t of tasks) expect(optimizerView(t).judge.checks.some((c) => c.sealed)).toBe(false); // …and hidden from the optimizer
    const withPrRule = seen.some((t) => t.judge.checks.some((c) => c.op === 'regex' && /pull/.test(String(c.value))));
    expect(withPrRule).toBe(!heldCorrections.has('link the PR')); // from another (train or val) session's correction
  });

  it('splits are stratified (train and val), integrity holds, and ids and splits are stable across re-mining', () => {
    expect(tasks.map((t) => t.split)).toEqual(expect.arrayContaining(['train', 'val']));
    expect(checkSplitIntegrity(tasks)).toEqual([]);
    const existing = new Map<string, Task>(tasks.map((t) => [t.id, t]));
    const again = synthesizeFamily({ clusterId: 'cl_changelog', members: [...CHANGELOG].reverse(), existing, seed: 1 });
    expect(again.instances.map((i) => [i.task.id, i.task.split])).toEqual(tasks.map((t) => [t.id, t.split]));
    expect(again.instances.every((i) => !i.changed && !i.isNew)).toBe(true);
    expect(again.superseded).toEqual([]);
  });

  it('a new session adds an instance; stored splits never move; a new correction reaches every train and val instance', () => {
    const existing = new Map<string, Task>(tasks.map((t) => [t.id, t]));
    const late = member('codex:f', 'write a changelog entry for dropping Node 18 (#440)', { ts: T0 + 9, agent: 'codex', corrections: ['use Keep a Changelog, not a bullet at the top'] });
    const next = synthesizeFamily({ clusterId: 'cl_changelog', members: [...CHANGELOG, late], existing, seed: 1 });
    expect(next.instances).toHaveLength(6);
    expect(next.instances.filter((i) => i.isNew).map((i) => i.task.id)).toEqual([instanceTaskId('codex:f', 0)]);
    for (const t of tasks) expect(next.instances.find((i) => i.task.id === t.id)!.task.split).toBe(t.split);
    const lateSplit = next.instances.find((i) => i.isNew)!.task.split;
    for (const i of next.instances.filter((x) => x.task.split !== 'test')) expect(i.task.corrections.includes('use Keep a Changelog, not a bullet at the top')).toBe(lateSplit !== 'test');
  });

  it('supersedes the old one-task-per-cluster row but keeps a curated one', () => {
    const legacy: Task = { ...tasks[0], id: 'task_legacy' };
    const curated: Task = { ...tasks[0], id: 'task_curated', reviewed: true, intent: 'A hand-written changelog task' };
    const r = synthesizeFamily({ clusterId: 'cl_changelog', members: CHANGELOG, existing: new Map([[legacy.id, legacy], [curated.id, curated]]), seed: 1 });
    expect(r.superseded).toEqual(['task_legacy']);
  });

  it('an instance asking what a replaced (possibly trained-on) task asked inherits its split', () => {
    const held = tasks.find((t) => t.split === 'val')!;
    const legacy: Task = { ...held, id: 'task_legacy', split: 'train' };
    const r = synthesizeFamily({ clusterId: 'cl_changelog', members: CHANGELOG, existing: new Map([[legacy.id, legacy]]), seed: 1 });
    expect(r.instances.find((i) => i.task.id === held.id)!.task.split).toBe('train');
    expect(r.instances.map((i) => i.task.split)).toContain('val'); // the family still gets a validation task
  });
});

describe('assignFamilySplits', () => {
  it('every family of 3+ has a train and a val task; test only from 4; deterministic', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 14 }), fc.integer({ min: 1, max: 5 }), (ids, seed) => {
        const members = ids.map((id) => ({ id }));
        const s = assignFamilySplits(members, seed);
        const splits = ids.map((id) => s.get(id)!);
        if (ids.length >= 3) {
          expect(splits).toContain('train');
          expect(splits).toContain('val');
        }
        if (ids.length < 4) expect(splits).not.toContain('test');
        expect([...assignFamilySplits([...members].reverse(), seed).entries()].sort()).toEqual([...s.entries()].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('stored splits are kept; only new members move to satisfy the family', () => {
    const s = assignFamilySplits([{ id: 'a', fixed: 'train' }, { id: 'b', fixed: 'train' }, { id: 'c' }], 1);
    expect(s.get('a')).toBe('train');
    expect(s.get('b')).toBe('train');
    expect(s.get('c')).toBe('val');
    // nothing new to move: the constraint waits (a trained task is never held out)
    const t = assignFamilySplits([{ id: 'a', fixed: 'train' }, { id: 'b', fixed: 'train' }, { id: 'c', fixed: 'train' }], 1);
    expect([...t.values()]).toEqual(['train', 'train', 'train']);
  });
});

describe('correction turns are evidence, not asks', () => {
  let seq = 0;
  const ev = (role: string, kind: string, text: string, meta: Record<string, unknown> = {}): MinedEvent => ({ seq: seq++, ts: T0 + seq, role, kind, toolName: null, isError: false, text, meta });
  it.each([
    ['add unit tests for roundHalfEven edge cases', 'wrap them in a describe block named after the function, and import from vitest explicitly'],
    ['draft the release notes for v2.4.0', 'start with a ## Highlights section, then ## Breaking changes even if empty'],
    ['add unit tests for roundHalfEven edge cases', 'use it.each for the table cases instead of repeating test()'],
    ['draft the release notes for v2.4.0', 'keep it under 200 words and list the upgrade steps'],
  ])('%s → "%s" attaches to the ask', (ask, follow) => {
    seq = 0;
    const intents = extractIntents([ev('user', 'prompt', ask), ev('assistant', 'text', 'Done.', { final: true }), ev('user', 'prompt', follow), ev('assistant', 'text', 'Updated.', { final: true })]);
    expect(intents).toHaveLength(1);
    expect(intents[0].outcome.reactions.map((r) => r.text)).toEqual([follow]);
    expect(intents[0].outcome.label).toBe('corrected');
  });

  it('a question or a new job after an ask is still an ask of its own', () => {
    seq = 0;
    const intents = extractIntents([
      ev('user', 'prompt', 'draft the release notes for v2.4.0'),
      ev('assistant', 'text', 'Done.', { final: true }),
      ev('user', 'prompt', 'is it possible to add caching to the rates api'),
      ev('assistant', 'text', 'Yes.', { final: true }),
      ev('user', 'prompt', 'add unit tests for roundHalfEven edge cases'),
    ]);
    expect(intents.map((i) => i.text)).toEqual(['draft the release notes for v2.4.0', 'is it possible to add caching to the rates api', 'add unit tests for roundHalfEven edge cases']);
  });
});

describe('re-synthesizing a family that did not change', () => {
  it('keeps every stored task as it is: nothing is rewritten, no occurrence re-written', () => {
    const first = synthesizeFamily({ clusterId: 'cl_changelog', members: CHANGELOG, existing: new Map(), seed: 1 });
    const stored = new Map(first.instances.map((i) => [i.task.id, i.task]));
    // the store hands tasks back in the schema's key order, not the order they were built in
    const reordered = new Map([...stored].map(([id, t]) => [id, JSON.parse(JSON.stringify(t, Object.keys(t).sort())) as Task]));
    for (const [id, t] of stored) reordered.set(id, { ...reordered.get(id)!, judge: { ...t.judge, checks: t.judge.checks.map((c) => Object.fromEntries(Object.entries(c).reverse()) as typeof c) } });
    const again = synthesizeFamily({ clusterId: 'cl_changelog', members: CHANGELOG, existing: reordered, seed: 1 });
    expect(again.instances.map((i) => [i.isNew, i.changed, i.membersChanged])).toEqual(CHANGELOG.map(() => [false, false, false]));
    // one new ask in a new session: only its instance is new; the others keep their asks
    const grown = synthesizeFamily({
      clusterId: 'cl_changelog',
      members: [...CHANGELOG, member('claude-code:f', 'write a changelog entry for the date parsing fix (#440)', { ts: T0 + 6 })],
      existing: reordered,
      seed: 1,
    });
    expect(grown.instances.filter((i) => i.isNew).length).toBe(1);
    expect(grown.instances.filter((i) => i.membersChanged).length).toBe(1);
  });

  it('groups thousands of repeats of one ask into one instance quickly (no quadratic copying)', () => {
    const many = Array.from({ length: 6000 }, (_, i) => member(`s${i}`, 'cut a patch release', { ts: T0 + i }));
    const t0 = process.cpuUsage();
    const inst = familyInstances(many);
    const cpu = process.cpuUsage(t0);
    expect(inst).toHaveLength(1);
    expect(inst[0].members).toHaveLength(6000);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(2000); // quadratic copying took far longer; generous under load
  });
});

describe('sameJson', () => {
  it('compares records as JSON: key order and undefined keys aside', () => {
    expect(sameJson({ a: 1, b: [1, { c: 2, d: 'x' }] }, { b: [1, { d: 'x', c: 2 }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1, u: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameJson({ a: null }, { a: {} })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: 0 })).toBe(false);
  });
});

describe('familyJudge and a changed mind shown only in what the user kept', () => {
  // said `## Unreleased` on day 1; the newer word was said in a held-out session only, but every
  // CHANGELOG.md the user committed from day 10 on has `## [Unreleased]` (outcome world seeds 5, 6)
  const DAY = 86_400_000;
  const keptOn = (day: number, heading: string) => ({ kind: 'file' as const, file: 'CHANGELOG.md', agent: '## Upcoming\n- x', kept: `${heading}\n- x (#${day})`, commit: `c${day}abcdef0`, at: T0 + day * DAY, session: `s${day}` });
  const kept = [keptOn(1, '## Unreleased'), keptOn(3, '## Unreleased'), keptOn(10, '## [Unreleased]'), keptOn(20, '## [Unreleased]')];
  const said = (day: number) => [
    member('s1', 'add a changelog entry for the rounding fix (#412)', { ts: T0 + day * DAY, corrections: ['put it under `## Unreleased`', 'link the PR, like `(#123)`'] }),
    member('s2', 'add a changelog entry for the parser fix (#418)', { ts: T0 + 2 * DAY }),
  ];
  const asks = (j: ReturnType<typeof familyJudge>) => j.checks.map((c) => c.description ?? '').join('\n');

  it('asks for the stated value no longer when the newest kept versions spell it another way', () => {
    const j = familyJudge(said(1), { kept });
    expect(j.asked).toEqual(['link the PR, like `(#123)`']);
    expect(asks(j)).not.toContain('## Unreleased');
    // the history of what was said stays (the start draft weighs it again with the same rule)
    expect(j.corrections).toContain('put it under `## Unreleased`');
    // without the kept versions nothing shows the change: it is asked for as said
    expect(familyJudge(said(1)).asked).toContain('put it under `## Unreleased`');
  });

  it('a value said after the user switched is the newer word: it stays', () => {
    expect(familyJudge(said(25), { kept }).asked).toContain('put it under `## Unreleased`');
  });
});
