/**
 * OpenCode through the built CLI: `harvest` reads the root sessions of opencode.db (found in the
 * sandbox's ~/.local/share/opencode) with their prompts, project and corrections; a second harvest
 * of the unchanged database reads nothing; planted secrets never reach the store; the user's
 * database is left byte for byte as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { buildOpencodeDb } from '../helpers/opencode-db.js';
import { CORPUS_SECRETS } from '../fixtures/secret-corpus.js';

let sb: Sandbox;
let dbFile: string;
const planted = CORPUS_SECRETS.slice(0, 8);

beforeAll(() => {
  sb = makeSandbox();
  const sql = planted
    .map(([, text], i) => `INSERT INTO part VALUES ('prt_s${i}', 'msg_03', 'ses_root1', 1767225661000, 1767225661000, '${JSON.stringify({ type: 'text', text }).replace(/'/g, "''")}');`)
    .join('\n');
  dbFile = buildOpencodeDb(path.join(sb.env.HOME!, '.local/share/opencode'), 'opencode', sql);
  const w = new Database(dbFile);
  w.pragma('wal_checkpoint(TRUNCATE)');
  w.close();
});
afterAll(() => sb.cleanup());

interface Summary {
  files: number;
  filesChanged: number;
  sessions: number;
  bytesRead: number;
  redactions: number;
  errors: unknown[];
}

describe('harvest of OpenCode', () => {
  it('stores the root sessions with prompts, project and the correction; drops the broken one', () => {
    const before = fs.readFileSync(dbFile);
    const r = runCli(['harvest', '--agent', 'opencode', '--json'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Summary;
    expect(s.errors).toEqual([]);
    expect(s.files).toBe(2); // ses_root1 and ses_broken; the sub-agent session is not listed
    expect(s.bytesRead).toBeGreaterThan(1000);
    expect(s.redactions).toBeGreaterThanOrEqual(planted.length);
    expect(fs.readFileSync(dbFile).equals(before)).toBe(true);

    const list = JSON.parse(runCli(['sessions', 'list', '--agent', 'opencode', '--json'], sb.env).stdout) as { sessions: Array<{ id: string; cwd: string; project: string; title: string; promptCount: number }> };
    expect(list.sessions.map((x) => x.id)).toEqual(['opencode:ses_root1']);
    expect(list.sessions[0]).toMatchObject({ cwd: '/work/acme', project: '/work/acme', title: 'Fix the flaky test', promptCount: 2 });

    const show = runCli(['sessions', 'show', 'opencode:ses_root1', '--json'], sb.env);
    expect(show.status, show.stderr).toBe(0);
    const events = (JSON.parse(show.stdout) as { events: Array<{ kind: string; text: string; toolName?: string }> }).events;
    const prompts = events.filter((e) => e.kind === 'prompt').map((e) => e.text);
    expect(prompts[0]).toBe('fix the flaky test in tests/api.test.ts');
    expect(prompts[1]).toMatch(/^no, that is wrong: do not use fake timers/);
    expect(events.filter((e) => e.kind === 'tool_call').map((e) => e.toolName)).toEqual(['bash', 'edit', 'skill']);
    for (const [name, , secret] of planted) expect(show.stdout.includes(secret), name).toBe(false);
  });

  it('a second harvest of the unchanged database reads nothing; a new message is read again', () => {
    const again = JSON.parse(runCli(['harvest', '--agent', 'opencode', '--json'], sb.env).stdout) as Summary;
    expect(again.filesChanged).toBe(0);
    expect(again.bytesRead).toBe(0);

    const w = new Database(dbFile);
    w.prepare("INSERT INTO message VALUES ('msg_05', 'ses_root1', 1767225800000, 1767225800000, ?)").run(JSON.stringify({ role: 'user', time: { created: 1767225800000 } }));
    w.prepare("INSERT INTO part VALUES ('prt_05a', 'msg_05', 'ses_root1', 1767225800000, 1767225800000, ?)").run(JSON.stringify({ type: 'text', text: 'now run the whole suite' }));
    w.close();
    const third = JSON.parse(runCli(['harvest', '--agent', 'opencode', '--json'], sb.env).stdout) as Summary;
    expect(third.filesChanged).toBe(1);
    const list = JSON.parse(runCli(['sessions', 'list', '--agent', 'opencode', '--json'], sb.env).stdout) as { sessions: Array<{ promptCount: number }> };
    expect(list.sessions[0].promptCount).toBe(3);
  });
});
