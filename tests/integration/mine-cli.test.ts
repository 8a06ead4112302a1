import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { openDb } from '../../src/store/db.js';
import { resolvePaths } from '../../src/core/paths.js';
import { addSession } from '../../bench/mine-corpus.js';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';

const boxes: Sandbox[] = [];
afterEach(() => boxes.splice(0).forEach((b) => b.cleanup()));
beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
});

const T0 = Date.UTC(2026, 9, 1);
function seeded(): Sandbox {
  const box = makeSandbox();
  boxes.push(box);
  const db = openDb(resolvePaths({ env: box.env }).database);
  const asks = ['Write a changelog entry for the rounding fix (#412).', 'add a changelog entry for the pagination fix', 'update the changelog with the timezone fix'];
  asks.forEach((user, i) =>
    addSession(db, {
      id: `claude-code:s${i}`,
      project: '/home/dana/src/ledgerline',
      startedAt: T0 + i * 3_600_000,
      turns: [{ user, tools: ['Edit'] }, { user: i === 0 ? 'no, Keep a Changelog format' : 'link the PR' }],
    }),
  );
  db.close();
  return box;
}
const json = (r: { stdout: string; stderr: string; status: number | null }) => {
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('mine and tasks commands', () => {
  it('mine --json, tasks list/show/disable/enable', () => {
    const box = seeded();
    const mined = json(runCli(['mine', '--json'], box.env));
    expect(mined).toMatchObject({ ok: true, sessions: 3, newTasks: 3, recurringTasks: 1 }); // one family, a task per occurrence
    expect(mined.thin[0]).toMatchObject({ project: '/home/dana/src/ledgerline' });

    const list = json(runCli(['tasks', 'list', '--json', '--project', 'ledgerline'], box.env));
    expect(list.tasks).toHaveLength(3);
    expect(new Set(list.tasks.map((t: { family: string }) => t.family)).size).toBe(1);
    const id: string = list.tasks.find((t: { intent: string }) => /rounding/.test(t.intent)).id;
    const text = runCli(['tasks', 'list'], box.env);
    expect(text.stdout).toContain(id);
    expect(text.stdout).toMatch(/changelog/i);

    const shown = json(runCli(['tasks', 'show', id.slice(0, 10), '--json'], box.env));
    expect(shown.task.corrections).toEqual(['no, Keep a Changelog format', 'link the PR']);
    expect(shown.occurrences).toHaveLength(1);
    const human = runCli(['tasks', 'show', id], box.env).stdout;
    expect(human).toContain('corrections (what the user insisted on)');
    expect(human).toContain('[sealed]');
    expect(human).toContain('occurrences (1)');

    expect(json(runCli(['tasks', 'disable', id, '--json'], box.env)).status).toBe('disabled');
    expect(json(runCli(['tasks', 'list', '--json'], box.env)).tasks).toHaveLength(2);
    expect(json(runCli(['tasks', 'list', '--all', '--json'], box.env)).tasks).toHaveLength(3);
    expect(json(runCli(['tasks', 'enable', id, '--json'], box.env)).status).toBe('active');

    const missing = runCli(['tasks', 'show', 'task_nope'], box.env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/no task task_nope/);
    expect(runCli(['tasks', 'list', '--split', 'bogus'], box.env).status).toBe(2);
  });

  it('exports JSONL and promptfoo, and imports a reviewed file all-or-nothing', () => {
    const box = seeded();
    json(runCli(['mine', '--json'], box.env));
    const jsonl = runCli(['tasks', 'export', '--format', 'jsonl'], box.env);
    expect(jsonl.status).toBe(0);
    const exported = jsonl.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(exported).toHaveLength(3);

    const out = path.join(box.root, 'promptfooconfig.yaml');
    json(runCli(['tasks', 'export', '--format', 'promptfoo', '--out', out, '--json'], box.env));
    const pf = parseYaml(fs.readFileSync(out, 'utf8'));
    expect(pf.tests).toHaveLength(3);
    expect(pf.tests[0].vars.intent).toMatch(/changelog/i);
    expect(pf.tests[0].assert.map((a: { type: string }) => a.type)).toEqual(expect.arrayContaining(['javascript', 'llm-rubric']));

    const good = path.join(box.root, 'tasks.json');
    fs.writeFileSync(
      good,
      JSON.stringify({
        format: 'skillopt-sleep.tasks.v1',
        reviewed: true,
        tasks: [{ intent: 'Write the release notes for the next version', project: '/home/dana/src/ledgerline', judge: { checks: [{ op: 'section_present', value: 'Highlights' }] } }],
      }),
    );
    const imported = json(runCli(['tasks', 'import', good, '--json'], box.env));
    expect(imported).toMatchObject({ imported: 1, created: 1 });
    const all = json(runCli(['tasks', 'list', '--json'], box.env)).tasks;
    expect(all).toHaveLength(4);
    expect(all.find((t: { origin: string }) => t.origin === 'imported').reviewed).toBe(true);

    const bad = path.join(box.root, 'bad.jsonl');
    fs.writeFileSync(bad, [JSON.stringify({ intent: 'fine', judge: { checks: [{ op: 'no_refusal' }] } }), JSON.stringify({ intent: 'broken', judge: { checks: [{ op: 'regex', value: '([' }] } })].join('\n'));
    const r = runCli(['tasks', 'import', bad], box.env);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/task 2: .*invalid regex/);
    expect(json(runCli(['tasks', 'list', '--json'], box.env)).tasks).toHaveLength(4); // nothing imported
  });

  it('tasks edit validates on save: a valid edit is saved, an invalid one is refused and kept', () => {
    const box = seeded();
    json(runCli(['mine', '--json'], box.env));
    const id: string = json(runCli(['tasks', 'list', '--json'], box.env)).tasks[0].id;
    const editor = path.join(box.root, 'editor.mjs');
    // a scripted $EDITOR: applies the edit named in EDIT_MODE to the JSON file it is given
    fs.writeFileSync(
      editor,
      `#!/usr/bin/env node
import fs from 'node:fs';
const f = process.argv[2];
const t = JSON.parse(fs.readFileSync(f, 'utf8'));
if (process.env.EDIT_MODE === 'good') t.intent = 'Write a Keep a Changelog entry for the fix';
if (process.env.EDIT_MODE === 'regex') t.judge.checks.push({ id: 'mine', op: 'regex', value: '(', weight: 1, sealed: false });
if (process.env.EDIT_MODE === 'split') t.split = t.split === 'train' ? 'val' : 'train';
fs.writeFileSync(f, JSON.stringify(t, null, 2));
`,
      { mode: 0o755 },
    );
    const env = { ...box.env, EDITOR: `${process.execPath} ${editor}` };
    const saved = json(runCli(['tasks', 'edit', id, '--json'], { ...env, EDIT_MODE: 'good' }));
    expect(saved).toMatchObject({ changed: true });
    expect(saved.task.reviewed).toBe(true);
    expect(json(runCli(['tasks', 'show', id, '--json'], box.env)).task.intent).toBe('Write a Keep a Changelog entry for the fix');

    const badRegex = runCli(['tasks', 'edit', id], { ...env, EDIT_MODE: 'regex' });
    expect(badRegex.status).toBe(1);
    expect(badRegex.stderr).toMatch(/invalid regex/);
    expect(badRegex.stderr).toMatch(/your edit is kept in/);
    const moved = runCli(['tasks', 'edit', id], { ...env, EDIT_MODE: 'split' });
    expect(moved.status).toBe(1);
    expect(moved.stderr).toMatch(/split cannot change/);
    expect(json(runCli(['tasks', 'show', id, '--json'], box.env)).task.judge.checks.some((c: { id: string }) => c.id === 'mine')).toBe(false);
    expect(json(runCli(['tasks', 'edit', id, '--json'], { ...env, EDIT_MODE: 'none' }))).toMatchObject({ changed: false });
  });
});
