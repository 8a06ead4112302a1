import { describe, expect, it } from 'vitest';
import type { Edit, Rollout, Task } from '../../src/core/records.js';
import type { ReflectPayload, SlowUpdatePayload } from '../../src/core/protocol.js';
import { reflect } from '../../src/trainer/optimizer/reflect.js';
import { slowUpdate } from '../../src/trainer/passes/slow-update.js';
import { clipReply, fenceFor, fenced } from '../../src/trainer/optimizer/evidence.js';
import { UsageMeter } from '../../src/trainer/optimizer/call.js';
import { scriptedBackend } from '../helpers/scripted-backend.js';
import { makeTask } from '../helpers/tasks.js';

const SEALED_TEXT = 'SECRET-SEALED-NEEDLE';
const task: Task = makeTask({
  id: 't1',
  intent: 'write the changelog entry for the release',
  split: 'train',
  judge: {
    checks: [
      { id: 'unrel', op: 'section_present', value: 'Unreleased', weight: 1, sealed: false, description: 'has an Unreleased section' },
      { id: 'noemoji', op: 'not_contains', value: '🎉', weight: 1, sealed: false, description: 'uses no emojis' },
      { id: 'hidden', op: 'contains', value: SEALED_TEXT, weight: 1, sealed: true, description: `says ${SEALED_TEXT}` },
    ],
    reference: { kind: 'rubric', rubric: '- Lists every user-visible change.\n- Links the PR numbers.', passThreshold: 0.7 },
  },
  corrections: ['please no emojis in the changelog, keep it plain'],
  correctionSources: [{ session: 'sess-42', at: Date.UTC(2026, 10, 3, 9, 30) }],
});

// a long reply with fences of its own (a 4-backtick block inside) and the failing emoji in the middle
const reply = [
  '# Changelog',
  '```md',
  '## 1.2.0',
  '```',
  'x'.repeat(1500),
  'Shipped the parser 🎉 with `code` spans',
  '````',
  'nested ``` fence',
  '````',
  'y'.repeat(1500),
  'Done.',
].join('\n');
const rollout: Rollout = {
  taskId: 't1',
  skillHash: 'h',
  sample: 0,
  backend: 'scripted',
  model: 'm',
  response: reply,
  toolsCalled: ['Read', 'Edit', 'Edit', 'Bash'],
  changedFiles: ['CHANGELOG.md'],
  hardScore: 0,
  softScore: 0.33,
  checks: [
    { checkId: 'unrel', passed: false, score: 0, sealed: false, feedback: 'Failed check "unrel": has an Unreleased section — the response must have a "Unreleased" section' },
    { checkId: 'noemoji', passed: false, score: 0, sealed: false, feedback: 'Failed check "noemoji": uses no emojis' },
    { checkId: 'hidden', passed: true, score: 1, sealed: true, feedback: '' },
  ],
  feedback: 'Failed check "unrel": has an Unreleased section — the response must have a "Unreleased" section\nFailed check "noemoji": uses no emojis',
  tokensIn: 0,
  tokensOut: 0,
  costUsd: 0,
  latencyMs: 0,
  cached: false,
};

/** The fenced block that follows `Response:` in a prompt, parsed the way Markdown does. */
function fencedAfter(prompt: string, label: string): string {
  const start = prompt.indexOf(`${label}\n`) + label.length + 1;
  const open = /^(`{3,})\n/.exec(prompt.slice(start));
  if (!open) throw new Error('no fence');
  const body = prompt.slice(start + open[0].length);
  const close = body.indexOf(`\n${open[1]}\n`) >= 0 ? body.indexOf(`\n${open[1]}\n`) : body.lastIndexOf(`\n${open[1]}`);
  return body.slice(0, close);
}

describe('evidence in the reflect prompt', () => {
  it('quotes the corrections with session and time, the rubric, what each check wants, the tools and files; never a sealed check', async () => {
    const optimizer = scriptedBackend({ reflect: () => JSON.stringify({ edits: [] }) });
    await reflect({
      call: { optimizer, meter: new UsageMeter() },
      skill: '',
      scopeNote: 'all',
      rollouts: [rollout],
      tasks: new Map([[task.id, task]]),
      rejected: [],
      metaSkill: '',
      history: '',
      maxEdits: 3,
      minibatchSize: 4,
      seed: 1,
      concurrency: 1,
      failureOnly: true,
    });
    const req = optimizer.calls[0];
    const p = req.prompt;
    expect(p).toContain('> "please no emojis in the changelog, keep it plain" (session sess-42, 2026-11-03 09:30 UTC)');
    expect(p).toContain('Rubric the judge grades against:');
    expect(p).toContain('Links the PR numbers.');
    expect(p).toMatch(/\[MISSED\] has an Unreleased section \(the reply must have a "Unreleased" section/);
    expect(p).toContain('Tools called: Read, Edit×2, Bash');
    expect(p).toContain('Files changed: CHANGELOG.md');
    expect(p).not.toContain(SEALED_TEXT);
    expect(JSON.stringify(req.payload)).not.toContain(SEALED_TEXT);
    // the payload carries what the prompt carries (the sim reads only the payload)
    const d = (req.payload as ReflectPayload).rollouts[0];
    expect(d.corrections?.[0]).toMatchObject({ session: 'sess-42' });
    expect(d.rubric).toContain('Lists every user-visible change');
    expect(d.toolsCalled).toEqual(['Read', 'Edit×2', 'Bash']);
    // the reply: head, the failing part (the emoji), tail; inside a fence its own fences cannot close
    const shown = fencedAfter(p, 'Response:');
    expect(shown.startsWith('# Changelog\n```md')).toBe(true);
    expect(shown).toContain('Shipped the parser 🎉');
    expect(shown.endsWith('Done.')).toBe(true);
    expect(shown).toMatch(/…\[\d+ characters cut\]…/);
    expect(shown.length).toBeLessThan(1400);
  });

  it('shows a failing attempt what the user kept (agent beside kept, with commit and date) and the commands that failed and worked; a passing one none', async () => {
    const kept = [{ kind: 'file' as const, file: 'CHANGELOG.md', agent: '## Upcoming\n- Shipped the parser 🎉', kept: '## [Unreleased]\n### Changed\n- Shipped the parser (#12)', commit: 'a1b2c3d4e5f60718', at: Date.UTC(2026, 10, 12), session: 'sess-40' }];
    const procedures = [{ failed: 'npm test', worked: 'pnpm vitest run', purpose: 'test', sessions: 4, at: null }];
    const withOutcomes = { ...task, kept, procedures };
    const optimizer = scriptedBackend({ reflect: () => JSON.stringify({ edits: [] }) });
    const args = { call: { optimizer, meter: new UsageMeter() }, skill: '', scopeNote: 'all', tasks: new Map([[task.id, withOutcomes]]), rejected: [], metaSkill: '', history: '', maxEdits: 3, minibatchSize: 4, seed: 1, concurrency: 1 };
    await reflect({ ...args, rollouts: [rollout], failureOnly: true });
    const p = optimizer.calls[0].prompt;
    expect(p).toContain("What the user kept of this job (the agent's version beside the one that landed in git");
    expect(p).toContain('- file CHANGELOG.md, kept in commit a1b2c3d4e5f6 (2026-11-12):');
    expect(p).toContain('## [Unreleased]\n### Changed');
    expect(p).toContain('- `npm test` failed; `pnpm vitest run` worked (test), in 4 session(s)');
    const d = (optimizer.calls[0].payload as ReflectPayload).rollouts[0];
    expect(d.kept?.[0]).toMatchObject({ kind: 'file', file: 'CHANGELOG.md', commit: 'a1b2c3d4e5f6' });
    expect(d.procedures).toEqual([{ failed: 'npm test', worked: 'pnpm vitest run', purpose: 'test', sessions: 4 }]);
    const passing = scriptedBackend({ reflect: () => JSON.stringify({ edits: [] }) });
    await reflect({ ...args, call: { optimizer: passing, meter: new UsageMeter() }, rollouts: [{ ...rollout, hardScore: 1, softScore: 1 }], failureOnly: false });
    expect(passing.calls.length).toBeGreaterThan(0);
    for (const c of passing.calls) expect((c.payload as ReflectPayload).rollouts.every((r) => !r.kept && !r.procedures)).toBe(true);
  });

  it('an analyst that labels a failure a lapse gets no rule for it', async () => {
    const edit: Edit = { op: 'add', content: '- Add an Unreleased section.', rationale: 'r', evidence: ['t1'] };
    const optimizer = scriptedBackend({ reflect: () => JSON.stringify({ failures: [{ taskId: 't1', kind: 'lapse', why: 'the skill says it' }], edits: [edit] }) });
    const input = {
      call: { optimizer, meter: new UsageMeter() },
      skill: '- Add an Unreleased section.',
      scopeNote: 'all',
      rollouts: [rollout],
      tasks: new Map([[task.id, task]]),
      rejected: [],
      metaSkill: '',
      history: '',
      maxEdits: 3,
      minibatchSize: 4,
      seed: 1,
      concurrency: 1,
      failureOnly: true,
    };
    const r = await reflect(input);
    expect(r.patches).toEqual([]);
    expect(r.lapses).toBe(1);
    expect(optimizer.calls[0].system).toMatch(/"lapse"/);
    // the ablation (skillAware false) still reads the label but keeps the edit
    const ablated = await reflect({ ...input, call: { optimizer, meter: new UsageMeter() }, skillAware: false });
    expect(ablated.lapses).toBe(1);
    expect(ablated.patches.flatMap((p) => p.edits.map((e) => e.edit.content))).toEqual([edit.content]);
  });
});

describe('clipping keeps fences whole', () => {
  it('picks a fence longer than any backtick run', () => {
    expect(fenceFor('plain')).toBe('```');
    expect(fenceFor('a ```` b')).toBe('`````');
    const text = 'x\n````\ny\n````';
    const f = fenced(text);
    expect(f.split('\n')[0]).toBe('`````');
    expect(f.endsWith('\n`````')).toBe(true);
  });
  it('a short reply is not clipped; a long one keeps head and tail', () => {
    expect(clipReply('short', 100)).toBe('short');
    const long = `HEAD${'a'.repeat(5000)}TAIL`;
    const c = clipReply(long, 500);
    expect(c.startsWith('HEAD')).toBe(true);
    expect(c.endsWith('TAIL')).toBe(true);
    expect(c.length).toBeLessThan(560);
  });
});

describe('evidence in the slow-update prompt', () => {
  it('shows the before/after replies and judge feedback of a regressed task', async () => {
    const optimizer = scriptedBackend({ slow_update: () => JSON.stringify({ guidance: '- keep the Unreleased section' }) });
    const passed: Rollout = { ...rollout, response: '## Unreleased\n- parser ```inline``` fix', hardScore: 1, softScore: 1, feedback: '', checks: [] };
    await slowUpdate({
      call: { optimizer, meter: new UsageMeter() },
      skillBefore: 'A',
      skillAfter: 'B',
      tasks: [task],
      before: { hard: 1, soft: 1, perTask: [{ taskId: 't1', hard: 1, soft: 1 }] },
      after: { hard: 0, soft: 0.33, perTask: [{ taskId: 't1', hard: 0, soft: 0.33 }] },
      metric: 'soft',
      rolloutsBefore: [passed],
      rolloutsAfter: [rollout],
    });
    const req = optimizer.calls[0];
    expect(req.prompt).toContain('Regressions (pass → fail)');
    expect(req.prompt).toContain('Reply before:\n````\n## Unreleased');
    expect(req.prompt).toContain('After — feedback: Failed check "unrel"');
    const t = (req.payload as SlowUpdatePayload).perTask[0].trajectory;
    expect(t?.after.feedback).toContain('noemoji');
    expect(req.prompt).not.toContain(SEALED_TEXT);
  });
});
