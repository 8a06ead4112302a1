/**
 * Ingest is total (issue 43): one bad line, one bad file or one odd path never stops a harvest.
 * - a copy of a transcript line with `"timestamp": 1e20` used to fail every pass (`cannot store REAL
 *   value in INTEGER column sessions.ended_at`) and store nothing: now the line is stored with no
 *   time, the session keeps its real end, every other session is stored, and the pass exits 0;
 * - a file that starts with a UTF-8 byte order mark keeps its first line;
 * - a file whose rows cannot be stored rolls back alone: the others are stored, and its error shows
 *   in `status` and `doctor` (with the damaged-line counts of the files that lost lines);
 * - symbolic link loops and dangling links under a root are passed over with a note: exit 0, also
 *   on a pass that reads nothing new.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { getSession, listSessions } from '../../src/store/repos/sessions.js';
import { listEvents } from '../../src/store/repos/events.js';
import { getFileRow } from '../../src/store/repos/files.js';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { CLAUDE_PROJECT_DIR, FIXTURE_PROJECT, VSCODE_WORKSPACE, fixtureFile, fixtureHome } from '../helpers/fixtures.js';
import { processFile } from '../../src/harvest/process-file.js';

const SID = '2e8f6d19-3a4c-4b7e-a1d0-5c9b8e7f6a23';
let sb: Sandbox;
let claudeDir: string;

interface Summary {
  files: number;
  filesChanged: number;
  sessions: number;
  skipped: Record<string, number>;
  repaired: Record<string, number>;
  errors: Array<{ file: string; message: string }>;
  notes: Array<{ file: string; message: string }>;
}

function harvestJson(): { status: number | null; summary: Summary; stderr: string } {
  const r = runCli(['harvest', '--json'], sb.env);
  return { status: r.status, summary: JSON.parse(r.stdout || '{}') as Summary, stderr: r.stderr };
}

function prompt(id: string, uuid: string, text: string, timestamp: unknown): string {
  return JSON.stringify({ type: 'user', uuid, parentUuid: null, sessionId: id, cwd: FIXTURE_PROJECT, timestamp, message: { role: 'user', content: text } });
}

beforeEach(() => {
  sb = makeSandbox();
  fs.cpSync(fixtureHome('claude-code'), sb.env.CLAUDE_CONFIG_DIR!, { recursive: true });
  fs.cpSync(fixtureHome('codex'), sb.env.CODEX_HOME!, { recursive: true });
  fs.cpSync(fixtureHome('copilot-cli'), sb.env.COPILOT_HOME!, { recursive: true });
  claudeDir = path.join(sb.env.CLAUDE_CONFIG_DIR!, CLAUDE_PROJECT_DIR);
});
afterEach(() => sb.cleanup());

describe('one bad line never stops the harvest', () => {
  it('a line with "timestamp": 1e20 is stored without a time; every other session is stored; exit 0', () => {
    const clean = harvestJson();
    expect(clean.status, clean.stderr).toBe(0);
    const sessions = clean.summary.sessions;
    // a fresh store, and the poisoned copy of a line appended to one transcript
    fs.rmSync(sb.home, { recursive: true, force: true });
    const file = path.join(claudeDir, `${SID}.jsonl`);
    fs.appendFileSync(file, prompt(SID, 'poison-1', 'and one more thing, far in the future', 1e20) + '\n');
    const r = harvestJson();
    expect(r.status, r.stderr).toBe(0);
    expect(r.summary.errors).toEqual([]);
    expect(r.summary.sessions).toBe(sessions);
    const db = openDb(resolvePaths({ env: sb.env }).database, { readonly: true });
    try {
      expect(listSessions(db, { limit: 1000 })).toHaveLength(sessions);
      const poisoned = listEvents(db, `claude-code:${SID}`).find((e) => e.text === 'and one more thing, far in the future');
      expect(poisoned).toMatchObject({ kind: 'prompt', ts: null });
      // the session's end is still the last real instant, not lost to the bad one
      const s = getSession(db, `claude-code:${SID}`)!;
      expect(s.endedAt).toBeGreaterThan(Date.parse('2026-01-01'));
      expect(s.endedAt).toBeLessThan(Date.parse('2100-01-01'));
    } finally {
      db.close();
    }
    // and the next pass is clean too (the daemon would otherwise log `harvest failed` on each one)
    const again = harvestJson();
    expect(again.status, again.stderr).toBe(0);
    expect(again.summary.errors).toEqual([]);
  });

  it('timestamps that are negative, NaN-like, past year 9999 or of the wrong type are null; the lines are kept', () => {
    const id = '0a0a0a0a-0000-4000-8000-00000000bad1';
    const bad: unknown[] = [-5, 1e300, '+275760-09-13T00:00:00Z', 'not a date', { at: 1 }, [1, 2], true, 253_402_300_800_000];
    const lines = bad.map((ts, i) => prompt(id, `bad-${i}`, `prompt number ${i}`, ts));
    lines.push(prompt(id, 'good', 'the valid one', '2026-11-20T10:00:00.000Z'));
    fs.writeFileSync(path.join(claudeDir, `${id}.jsonl`), lines.join('\n') + '\n');
    const r = harvestJson();
    expect(r.status, r.stderr).toBe(0);
    expect(r.summary.errors).toEqual([]);
    const db = openDb(resolvePaths({ env: sb.env }).database, { readonly: true });
    try {
      const events = listEvents(db, `claude-code:${id}`).filter((e) => e.kind === 'prompt');
      expect(events.map((e) => e.text)).toEqual([...bad.map((_, i) => `prompt number ${i}`), 'the valid one']);
      expect(events.slice(0, -1).every((e) => e.ts === null)).toBe(true);
      expect(events[events.length - 1].ts).toBe(Date.parse('2026-11-20T10:00:00.000Z'));
      const s = getSession(db, `claude-code:${id}`)!;
      expect([s.startedAt, s.endedAt]).toEqual([Date.parse('2026-11-20T10:00:00.000Z'), Date.parse('2026-11-20T10:00:00.000Z')]);
    } finally {
      db.close();
    }
  });

  it('a file that starts with a byte order mark keeps its first line (and one after a rewrite mid-file)', () => {
    const id = '0b0b0b0b-0000-4000-8000-0000000000b0';
    const file = path.join(claudeDir, `${id}.jsonl`);
    fs.writeFileSync(file, '\uFEFF' + prompt(id, 'first', 'the first line, after a BOM', '2026-11-20T10:00:00.000Z') + '\n' + prompt(id, 'second', 'the second line', '2026-11-20T10:01:00.000Z') + '\n');
    const r = harvestJson();
    expect(r.status, r.stderr).toBe(0);
    expect(r.summary.skipped.malformed ?? 0).toBe(0);
    // a tool that appends a file of its own, BOM and all
    fs.appendFileSync(file, '\uFEFF' + prompt(id, 'third', 'appended with a BOM of its own', '2026-11-20T10:02:00.000Z') + '\n');
    const r2 = harvestJson();
    expect(r2.status, r2.stderr).toBe(0);
    expect(r2.summary.skipped.malformed ?? 0).toBe(0);
    const db = openDb(resolvePaths({ env: sb.env }).database, { readonly: true });
    try {
      expect(listEvents(db, `claude-code:${id}`).map((e) => e.text)).toEqual(['the first line, after a BOM', 'the second line', 'appended with a BOM of its own']);
    } finally {
      db.close();
    }
  });

  it('a whole-JSON transcript (VS Code) that starts with a byte order mark is read as without it', () => {
    const rel = `User/workspaceStorage/${VSCODE_WORKSPACE}/chatSessions/4c2a9e71-0d3b-4f5a-8e6c-7b1d2e3f4a5b.json`;
    const read = (tag: string, bom: boolean) => {
      const file = path.join(sb.root, tag, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.copyFileSync(fixtureFile('copilot-vscode', `User/workspaceStorage/${VSCODE_WORKSPACE}/workspace.json`), path.join(path.dirname(path.dirname(file)), 'workspace.json'));
      fs.writeFileSync(file, Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), fs.readFileSync(fixtureFile('copilot-vscode', rel))]));
      return processFile({ path: file, agent: 'copilot', offset: 0, state: null, headHash: null, headLen: 0, maxLineBytes: 1 << 20 });
    };
    const plain = read('plain', false);
    const withBom = read('bom', true);
    expect(plain.output!.events.length).toBeGreaterThan(0);
    expect(withBom.retry).toBeFalsy();
    expect(withBom.output!.events.map((e) => e.text)).toEqual(plain.output!.events.map((e) => e.text));
  });

  it('lone surrogates, invalid UTF-8 and numbers where text belongs are stored as text', () => {
    const id = '0c0c0c0c-0000-4000-8000-0000000000c0';
    const file = path.join(claudeDir, `${id}.jsonl`);
    const lines = [
      prompt(id, 'sur', 'half a pair: \ud800 and \udc00 alone', '2026-11-20T10:00:00.000Z').replace('\ud800', '\\ud800').replace('\udc00', '\\udc00'),
      JSON.stringify({ type: 'user', uuid: 'num', sessionId: id, cwd: 42, gitBranch: 7, timestamp: '2026-11-20T10:01:00.000Z', message: { role: 'user', content: 'cwd and branch are numbers' } }),
    ];
    fs.writeFileSync(file, Buffer.concat([Buffer.from(lines.join('\n') + '\n'), Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]), Buffer.from(prompt(id, 'after', 'after the bad bytes', '2026-11-20T10:02:00.000Z') + '\n')]));
    const r = harvestJson();
    expect(r.status, r.stderr).toBe(0);
    expect(r.summary.errors).toEqual([]);
    const db = openDb(resolvePaths({ env: sb.env }).database, { readonly: true });
    try {
      const texts = listEvents(db, `claude-code:${id}`).map((e) => e.text);
      expect(texts).toEqual(['half a pair: \uFFFD and \uFFFD alone', 'cwd and branch are numbers', 'after the bad bytes']);
      // the invalid bytes decode to U+FFFD inside a JSON object the parser had no use for: counted, not fatal
      expect(getFileRow(db, file)?.error ?? null).toBeNull();
    } finally {
      db.close();
    }
  });
});

describe('one bad file never blocks the others', () => {
  it('a file whose rows cannot be stored rolls back alone; its error shows in status and doctor', async () => {
    const id = '0d0d0d0d-0000-4000-8000-0000000000d0';
    const poisoned = path.join(claudeDir, `${id}.jsonl`);
    fs.writeFileSync(poisoned, prompt(id, 'p1', 'this session cannot be stored', '2026-11-20T10:00:00.000Z') + '\n');
    // and a file with damaged lines (stored in part)
    const damagedId = '0e0e0e0e-0000-4000-8000-0000000000e0';
    const damaged = path.join(claudeDir, `${damagedId}.jsonl`);
    fs.writeFileSync(damaged, ['{"type":"user", cut', prompt(damagedId, 'ok', 'a good line', '2026-11-20T10:00:00.000Z'), '[1,2,3]'].join('\n') + '\n');
    const dbPath = resolvePaths({ env: sb.env }).database;
    const db = openDb(dbPath);
    // a real SQLite failure for that one session's rows (a constraint the store raises), not a mock
    db.exec(`CREATE TRIGGER poison BEFORE INSERT ON sessions WHEN NEW.vendor_id = '${id}' BEGIN SELECT RAISE(ABORT, 'poisoned row'); END`);
    try {
      const summary = await runHarvest(db, defaultConfig(), { env: sb.env, stateDir: path.join(sb.home, 'state'), workers: 0 });
      expect(summary.errors).toHaveLength(1);
      expect(summary.errors[0]).toMatchObject({ file: poisoned });
      expect(summary.errors[0].message).toMatch(/not stored: poisoned row/);
      expect(getSession(db, `claude-code:${id}`)).toBeUndefined();
      expect(listSessions(db, { limit: 1000 })).toHaveLength(12); // the 11 fixture sessions and the damaged file's
      // the batch was rolled back and written again file by file: every stored file counted once
      expect(summary.sessions).toBe(12);
      expect(summary.newSessionIds).toHaveLength(12);
      expect(getFileRow(db, poisoned)?.error).toMatch(/poisoned row/);
      expect(JSON.parse(getFileRow(db, damaged)!.damaged!)).toEqual({ malformed: 1, 'not-object': 1 });
      // the failed file is tried again on the next pass (its rows were never stored)
      const again = await runHarvest(db, defaultConfig(), { env: sb.env, stateDir: path.join(sb.home, 'state'), workers: 0 });
      expect(again.errors.map((e) => e.file)).toEqual([poisoned]);
      expect(again.filesChanged).toBe(0);
    } finally {
      db.close();
    }
    const status = runCli(['status', '--json'], sb.env);
    expect(status.status, status.stderr).toBe(0);
    const tp = (JSON.parse(status.stdout) as { transcriptProblems: { files: number; errors: number; damagedLines: number; sample: Array<{ path: string; error: string | null; damaged: Record<string, number>; updatedAt: string }> } }).transcriptProblems;
    expect(tp).toMatchObject({ files: 2, errors: 1, damagedLines: 2 });
    expect(tp.sample.find((f) => f.path === poisoned)?.error).toMatch(/poisoned row/);
    expect(tp.sample.find((f) => f.path === damaged)).toMatchObject({ error: null, damaged: { malformed: 1, 'not-object': 1 } });
    expect(tp.sample[0].updatedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const text = runCli(['status'], sb.env);
    expect(text.stdout).toMatch(/transcripts:\s+2 files with problems \(1 not stored, 2 damaged lines skipped/);
    const doctor = runCli(['doctor', '--json'], sb.env);
    const check = (JSON.parse(doctor.stdout) as { checks: Array<{ name: string; status: string; detail: string }> }).checks.find((c) => c.name === 'transcript files');
    expect(check?.status).toBe('warn');
    expect(check?.detail).toContain(poisoned);
    expect(check?.detail).toMatch(/lines not stored: malformed 1, not-object 1/);
  });
});

describe('odd paths under a transcript root', () => {
  it('symbolic link loops and dangling links are passed over with a note; exit 0, also when nothing is new', () => {
    fs.symlinkSync('loop-b.jsonl', path.join(claudeDir, 'loop-a.jsonl'));
    fs.symlinkSync('loop-a.jsonl', path.join(claudeDir, 'loop-b.jsonl'));
    fs.symlinkSync('self.jsonl', path.join(claudeDir, 'self.jsonl'));
    fs.symlinkSync('nowhere.jsonl', path.join(claudeDir, 'dangling.jsonl'));
    fs.symlinkSync('..', path.join(claudeDir, 'up')); // a directory loop
    const first = harvestJson();
    expect(first.status, first.stderr).toBe(0);
    expect(first.summary.errors).toEqual([]);
    expect(first.summary.skipped['symlink-loop']).toBe(3);
    expect(first.summary.skipped['dangling-symlink']).toBe(1);
    expect(first.summary.notes.map((n) => path.basename(n.file)).sort()).toEqual(['dangling.jsonl', 'loop-a.jsonl', 'loop-b.jsonl', 'self.jsonl']);
    // the pass that reads nothing new used to exit 1 on these
    const second = runCli(['harvest'], sb.env);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/files\s+\d+ seen, 0 read/);
    expect(second.stdout).toMatch(/note\s+.*self\.jsonl: a symbolic link loop: skipped/);
  });

  it('a folder that cannot be listed is skipped with a note; the others are read; no error', async () => {
    // (the tests run as root, whom permissions do not stop: the refusal is the one readdir gives a user)
    const real = fs.readdirSync;
    const spy = vi.spyOn(fs, 'readdirSync').mockImplementation(((dir: fs.PathLike, opts?: unknown) => {
      if (String(dir) === claudeDir) throw Object.assign(new Error(`EACCES: permission denied, scandir '${String(dir)}'`), { code: 'EACCES' });
      return (real as (d: fs.PathLike, o?: unknown) => unknown)(dir, opts);
    }) as typeof fs.readdirSync);
    const db = openDb(resolvePaths({ env: sb.env }).database);
    try {
      const summary = await runHarvest(db, defaultConfig(), { env: sb.env, stateDir: path.join(sb.home, 'state'), workers: 0 });
      expect(summary.errors).toEqual([]);
      expect(summary.notes).toContainEqual({ file: claudeDir, message: expect.stringMatching(/could not be listed/) });
      expect(summary.skipped['unreadable-folder']).toBe(1);
      expect(summary.sessions).toBeGreaterThan(0); // Codex and Copilot were read
      expect(listSessions(db, { agent: 'claude-code', limit: 100 }).filter((x) => x.file.startsWith(claudeDir + path.sep))).toEqual([]);
    } finally {
      spy.mockRestore();
      db.close();
    }
  });
});
