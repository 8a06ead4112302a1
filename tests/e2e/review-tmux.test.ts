/**
 * End to end: the real built binary (`skillopt-sleep review`) inside a real terminal (tmux), on
 * proposals staged by the trainer's own staging code. Keys go in with `send-keys`, the screen comes
 * back with `capture-pane`, and every decision is checked where it matters: on disk and in the store.
 * Skipped (with the reason printed) only when tmux is not installed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { seedReview, type SeededSkill } from '../helpers/seed-review.js';
import { openDb } from '../../src/store/db.js';
import { resolvePaths } from '../../src/core/paths.js';
import { getProposal } from '../../src/store/repos/proposals.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) console.warn('review-tmux: SKIPPED — tmux is not installed (apt-get install tmux)');

const session = `h8-review-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const tmux = (...args: string[]) => spawnSync('tmux', args, { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', session).stdout ?? '';
const keys = (...k: string[]) => {
  for (const key of k) tmux('send-keys', '-t', session, key);
};
const typeText = (text: string) => tmux('send-keys', '-t', session, '-l', text);

async function waitFor(pred: string | RegExp | ((s: string) => boolean), what: string, timeoutMs = 20_000): Promise<string> {
  const test = typeof pred === 'function' ? pred : (s: string) => (typeof pred === 'string' ? s.includes(pred) : pred.test(s));
  const end = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < end) {
    last = screen();
    if (test(last)) return last;
    await new Promise((r) => setTimeout(r, 80));
  }
  throw new Error(`timed out waiting for ${what}; screen was:\n${last}`);
}

/** Presses one key and waits until the screen shows its effect. */
async function press(key: string, expect: string | RegExp | ((s: string) => boolean), what = String(expect)) {
  keys(key);
  return waitFor(expect, what);
}

function proposalStatus(sb: Sandbox, id: string) {
  const db = openDb(resolvePaths({ env: sb.env }).database);
  try {
    return getProposal(db, id);
  } finally {
    db.close();
  }
}

describe.skipIf(!hasTmux)('review in a real terminal (tmux)', () => {
  let sb: Sandbox;
  let seeded: SeededSkill[];
  const byName = (n: string) => seeded.find((s) => s.name === n)!;

  beforeAll(() => {
    if (!fs.existsSync(CLI_BIN)) throw new Error(`${CLI_BIN} is missing: run \`npm run build\` first`);
    sb = makeSandbox();
    const project = path.join(sb.root, 'project');
    fs.mkdirSync(project);
    seeded = seedReview(sb.env, project, { extraProposals: 2 });
    // the user edits one live file after the night: its proposal is stale
    fs.appendFileSync(seeded.find((x) => x.name === 'extra-01')!.file, 'MY-HAND-EDIT\n');
    // an "editor" that appends a line, as a user would before saving
    const editor = path.join(sb.root, 'fake-editor.sh');
    fs.writeFileSync(editor, '#!/bin/sh\nprintf "EDITED-BY-USER\\n" >> "$1"\n', { mode: 0o755 });
    const env: NodeJS.ProcessEnv = { ...sb.env, EDITOR: editor, TERM: 'xterm-256color' };
    delete env.NO_COLOR;
    const script = path.join(sb.root, 'run-review.sh');
    const exports = Object.entries(env)
      .map(([k, v]) => `export ${k}='${String(v).replace(/'/g, `'\\''`)}'`)
      .join('\n');
    fs.writeFileSync(script, `${exports}\ncd '${project}'\n'${process.execPath}' '${CLI_BIN}' review\necho "REVIEW-EXITED:$?"\nsleep 60\n`);
    const r = tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '40', `sh '${script}'`);
    expect(r.status, r.stderr).toBe(0);
  });

  afterAll(() => {
    if (hasTmux) tmux('kill-session', '-t', session);
    sb?.cleanup();
  });

  it('opens, moves, applies, rejects, applies part of a proposal, edits in $EDITOR, quits', async () => {
    let s = await waitFor('5 waiting · 0 decided', 'the proposal list', 30_000);
    expect(s).toMatch(/extra-01 .*stale/);
    expect(s).toContain('What left this machine last night: 41 calls (claude ×41)');
    expect(s).toMatch(/❯ changelog/);

    // a small terminal (60×15): the list still fits, narrower columns; back to 120×40
    tmux('resize-window', '-t', session, '-x', '60', '-y', '15');
    s = await waitFor((x) => x.includes('waiting') && !x.includes('READ BY'), 'the 60-column layout');
    expect(s.split('\n').every((l) => l.length <= 60)).toBe(true);
    expect(s).toMatch(/❯ changelog/);
    tmux('resize-window', '-t', session, '-x', '120', '-y', '40');
    await waitFor('READ BY', 'the 120-column layout');

    // move down and back up
    await press('j', /❯ vitest-style/);
    await press('k', /❯ changelog/);

    // open the newest proposal and apply it → the live file changes on disk
    s = await press('Enter', 'hunk 1/1');
    expect(s).toContain('+Use the Keep a Changelog sections');
    // resize wide: these edits only add lines, so the diff stays unified (no empty left half);
    // d shows it side by side all the same; back at 120 columns, d returns to unified
    tmux('resize-window', '-t', session, '-x', '160', '-y', '40');
    await new Promise((r) => setTimeout(r, 800)); // the resize reaches the app
    s = await waitFor('unified', 'the 160-column unified diff');
    expect(s).not.toContain('side-by-side');
    s = await press('d', 'side-by-side');
    expect(s).toMatch(/Mention the issue\.\s+│\s+12\s+Mention the issue\./);
    tmux('resize-window', '-t', session, '-x', '120', '-y', '40');
    await press('d', 'unified');
    // the evidence of the first edit: the user's prompts from the transcripts
    s = await press('Tab', 'Edits: 2 of 2 included');
    expect(s).toContain('"changelog entry please, the usual format"  claude-code:sess-2#7');
    await press('Tab', 'passed after 1 trial(s)');
    await press('Tab', 'hunk 1/1');
    await press('a', '1. Yes, apply');
    await press('1', 'Applied changelog');
    const changelog = fs.readFileSync(byName('changelog').file, 'utf8');
    expect(changelog).toContain('Use the Keep a Changelog sections: Added, Changed, Fixed.');
    expect(changelog).toContain('Link the pull request as [#123](url).');
    expect(proposalStatus(sb, byName('changelog').proposal.id)?.status).toBe('applied');

    // back to the list; reject the next one with a reason → its status changes
    await press('q', /changelog .*applied/);
    await press('j', /❯ vitest-style/);
    await press('x', 'Reject vitest-style?');
    await press('2', 'Reason:');
    typeText('too noisy');
    await waitFor('Reason: too noisy', 'the typed reason');
    await press('Enter', 'Rejected vitest-style');
    const rejected = proposalStatus(sb, byName('vitest-style').proposal.id);
    expect(rejected?.status).toBe('rejected');
    expect(rejected?.reason).toBe('too noisy');
    expect(fs.readFileSync(byName('vitest-style').file, 'utf8')).toBe(byName('vitest-style').base);

    // partial apply: exclude edit 2 in the Evidence view, see the re-score, apply → only edit 1 lands
    await press('j', /❯ release-notes/);
    await press('Enter', 'hunk 1/1');
    await press('Tab', 'Edits: 2 of 2 included');
    await press('j', /❯ \[x\] 2\./);
    await press('Space', 'Edits: 1 of 2 included');
    s = await press('a', 'scored from cache');
    expect(s).toContain('Apply 1 of 2 edits');
    expect(s).toContain('validation 0.40 → 0.82 with these edits (all 2: 0.85)');
    await press('1', 'Applied 1 edit of release-notes');
    const notes = fs.readFileSync(byName('release-notes').file, 'utf8');
    expect(notes).toContain('KEEP-THIS: list breaking changes first.');
    expect(notes).not.toContain('DROP-THIS');

    // e: the candidate opens in $EDITOR (UI suspended), the edited text is applied after confirming
    await press('q', /release-notes .*applied/);
    await press('j', /❯ extra-00/);
    await press('Enter', 'hunk 1/1');
    await press('e', 'Apply your edited version');
    await press('1', 'Applied extra-00');
    const extra = fs.readFileSync(byName('extra-00').file, 'utf8');
    expect(extra).toContain('Extra rule 0.');
    expect(extra).toContain('EDITED-BY-USER');

    // a stale proposal: explained; cancel leaves the file alone; "apply anyway" overwrites with a
    // backup; u (undo) puts the user's hand-edited file back exactly
    await press('q', /extra-00 .*applied/);
    await press('j', /❯ extra-01/);
    s = await press('Enter', 'The live file changed since this proposal was made');
    await press('a', 'Re-run training for this skill now');
    await press('3', (x) => !x.includes('Re-run training'), 'the dialog to close');
    const handEdited = fs.readFileSync(byName('extra-01').file, 'utf8');
    expect(handEdited).toContain('MY-HAND-EDIT');
    await press('a', 'Apply anyway');
    await press('2', '1. Yes, apply');
    await press('1', 'Applied extra-01');
    expect(fs.readFileSync(byName('extra-01').file, 'utf8')).not.toContain('MY-HAND-EDIT');
    await press('u', 'Revert extra-01?');
    await press('1', 'Reverted extra-01');
    expect(fs.readFileSync(byName('extra-01').file, 'utf8')).toBe(handEdited);

    // quit from the detail: q back, q quit; the command exits 0
    await press('q', '0 waiting · 5 decided');
    await press('q', 'REVIEW-EXITED:0');
  }, 120_000); // a real process on a busy machine: generous, each step still waits only for its own screen

  it('refuses without a terminal and points at the scriptable commands', () => {
    const r = runCli(['review'], sb.env);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('review is interactive and needs a terminal');
    expect(r.stderr).toContain('skillopt-sleep proposals list');
  });
});
