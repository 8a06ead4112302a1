/**
 * `proposals show` and `tasks show` print every field whole: in a pipe nothing is cut or wrapped,
 * on a terminal long text wraps (tests/e2e covers the terminal); colour only when the terminal
 * takes it (FORCE_COLOR forces it, NO_COLOR and a pipe turn it off); transcript text is sanitised.
 * Runs the built CLI: `npm run build` first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { seedReview, type SeededSkill } from '../helpers/seed-review.js';
import { openDb } from '../../src/store/db.js';
import { resolvePaths } from '../../src/core/paths.js';
import { upsertTask } from '../../src/store/repos/tasks.js';
import { makeTask } from '../helpers/tasks.js';

const LONG = 'When the user asks for a changelog entry, ' + Array.from({ length: 40 }, (_, i) => `clause${i}`).join(' ') + ' END-OF-EDIT';
const ESC = '\u001b';

let sb: Sandbox;
let seeded: SeededSkill[];

beforeEach(() => {
  sb = makeSandbox();
  const project = path.join(sb.root, 'project');
  fs.mkdirSync(project);
  seeded = seedReview(sb.env, project);
  const db = openDb(resolvePaths({ env: sb.env }).database);
  // one edit with a long text and reason, and one task with a long correction and a terminal escape
  const p = seeded.find((s) => s.name === 'changelog')!.proposal;
  const record = { ...p, edits: p.edits.map((e, i) => (i === 0 ? { ...e, content: `${LONG}\nsecond line`, rationale: `${'because '.repeat(30)}WHY-END` } : e)) };
  db.prepare('UPDATE proposals SET record = ? WHERE id = ?').run(JSON.stringify(record), p.id);
  upsertTask(db, makeTask({ id: 't-long', intent: `summarise the release ${ESC}]52;c;aGk=\u0007notes`, judge: { checks: [], reference: { kind: 'rule' } }, split: 'train', corrections: [LONG] }));
  db.close();
});

afterEach(() => sb.cleanup());

describe('show commands print whole text', () => {
  it('proposals show in a pipe: every edit whole, no "…", no colour', () => {
    const id = seeded.find((s) => s.name === 'changelog')!.proposal.id;
    const r = runCli(['proposals', 'show', id], sb.env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(LONG); // one row, whole
    expect(r.stdout).toContain('second line');
    expect(r.stdout).toContain('WHY-END');
    expect(r.stdout).not.toContain(ESC);
  });

  it('proposals show colours the diff and statuses under FORCE_COLOR, and not under NO_COLOR', () => {
    const id = seeded.find((s) => s.name === 'changelog')!.proposal.id;
    const forced = runCli(['proposals', 'show', id], { ...sb.env, NO_COLOR: undefined, FORCE_COLOR: '1' });
    expect(forced.status, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(new RegExp(`${ESC}\\[32m\\+`)); // a green added line
    expect(forced.stdout).toMatch(new RegExp(`${ESC}\\[36mstaged`));
    const plain = runCli(['proposals', 'show', id], { ...sb.env, NO_COLOR: '1' });
    expect(plain.stdout).not.toContain(ESC);
    // the JSON never carries colour, whatever the environment says
    const json = runCli(['proposals', 'show', id, '--json'], { ...sb.env, NO_COLOR: undefined, FORCE_COLOR: '1' });
    expect(json.stdout).not.toContain(ESC);
    expect(JSON.parse(json.stdout).risk).toEqual([]);
  });

  it('tasks show prints a long correction whole and strips terminal escapes from mined text', () => {
    const r = runCli(['tasks', 'show', 't-long'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`  - ${LONG}\n`); // one row, whole
    expect(r.stdout).toContain('summarise the release');
    expect(r.stdout).not.toContain(ESC);
    expect(r.stdout).not.toContain(']52;');
  });
});
