/** OpenCode's opencode.db → sessions and events, per schema era, and its failure cases. */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { agentOfFile, getAdapter } from '../../adapters/index.js';
import { opencodeDatabases } from '../../adapters/opencode/paths.js';
import { processFile } from '../../src/harvest/process-file.js';
import type { SessionEvent } from '../../src/core/records.js';
import { buildOpencodeDb } from '../helpers/opencode-db.js';
import { makeTempDir } from '../helpers/sandbox.js';
import { defaultConfig } from '../../src/core/config.js';
import { CORPUS_SECRETS } from '../fixtures/secret-corpus.js';

const adapter = getAdapter('opencode');
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function db(name = 'opencode', extra = ''): string {
  const dir = makeTempDir();
  dirs.push(dir);
  return buildOpencodeDb(path.join(dir, 'opencode'), name, extra);
}

function harvestAll(dbPath: string) {
  const root = { agent: 'opencode' as const, path: dbPath, exists: true, kind: 'opencode-db' };
  const paths = adapter.listFiles(root);
  const stamps = adapter.store!.stampAll(paths);
  return paths.map((p, i) => processFile({ path: p, agent: 'opencode', offset: 0, state: null, headHash: null, headLen: 0, maxLineBytes: 1 << 24, stamp: stamps[i]! }));
}

function withRoots(roots: string[]) {
  const config = defaultConfig();
  config.agents.opencode.roots = roots;
  return config;
}

const texts = (events: SessionEvent[], kind: string) => events.filter((e) => e.kind === kind).map((e) => e.text);

describe('OpenCode adapter', () => {
  it('looks in the data dirs, OPENCODE_DB and config roots; every channel database of a data dir', () => {
    const roots = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform = 'linux', extra: string[] = []) => {
      const config = defaultConfig();
      config.agents.opencode.roots = extra;
      return adapter.roots(config, { env, homedir: '/h', platform }).map((r) => [r.path.replace(/\\/g, '/'), r.kind]);
    };
    expect(roots({})).toEqual([['/h/.local/share/opencode', 'opencode-data']]);
    expect(roots({ XDG_DATA_HOME: '/x' })).toEqual([['/x/opencode', 'opencode-data'], ['/h/.local/share/opencode', 'opencode-data']]);
    expect(roots({ OPENCODE_DB: 'dev.db' })).toEqual([['/h/.local/share/opencode/dev.db', 'opencode-db']]);
    expect(roots({ OPENCODE_DB: ':memory:' })).toEqual([]);
    expect(roots({}, 'linux', ['/srv/oc.db'])[0]).toEqual(['/srv/oc.db', 'opencode-db']);
    if (process.platform !== 'win32') expect(roots({ LOCALAPPDATA: '/L', APPDATA: '/R' }, 'win32').map((r) => r[0])).toEqual(['/L/opencode', '/R/opencode', '/h/.local/share/opencode']);
    // a data dir holds one database per release channel: opencode.db, opencode-<channel>.db
    const dir = path.dirname(db());
    fs.copyFileSync(path.join(dir, 'opencode.db'), path.join(dir, 'opencode-dev.db'));
    fs.writeFileSync(path.join(dir, 'notes.db'), '');
    expect(opencodeDatabases({ env: {}, home: '/nowhere', config: withRoots([dir]) }).map((p) => path.basename(p))).toEqual(['opencode-dev.db', 'opencode.db']);
    const listed = adapter.listFiles({ agent: 'opencode', path: dir, exists: true, kind: 'opencode-data' });
    expect(listed.filter((p) => p.endsWith('#ses_root1')).map((p) => path.basename(p.split('#')[0])).sort()).toEqual(['opencode-dev.db', 'opencode.db']);
  });

  it('current schema: root sessions only, prompts, tool calls and results, the final answer', () => {
    const file = db();
    const results = harvestAll(file);
    // the sub-agent session (parent_id set) is not listed; the broken one is listed and dropped
    expect(results.map((r) => r.path.split('#')[1]).sort()).toEqual(['ses_broken', 'ses_root1']);
    expect(agentOfFile(results[0].path)).toBe('opencode');
    const root = results.find((r) => r.path.endsWith('#ses_root1'))!;
    const s = root.output!.session!;
    expect(s.id).toBe('opencode:ses_root1');
    expect(s.cwd).toBe('/work/acme');
    expect(s.title).toBe('Fix the flaky test');
    expect(s.startedAt).toBe(1767225600000);
    expect(s.promptCount).toBe(2);
    expect(s.toolErrorCount).toBe(1);
    const ev = root.output!.events;
    // the synthetic text part is not what the user typed
    expect(texts(ev, 'prompt')).toEqual(['fix the flaky test in tests/api.test.ts', 'no, that is wrong: do not use fake timers, raise the timeout instead']);
    expect(ev.filter((e) => e.kind === 'tool_call').map((e) => e.toolName)).toEqual(['bash', 'edit', 'skill']);
    expect(ev.find((e) => e.kind === 'tool_call' && e.toolName === 'skill')!.meta).toMatchObject({ skill: 'test-timeouts' });
    const results2 = ev.filter((e) => e.kind === 'tool_result');
    expect(results2.map((e) => [e.toolName, e.isError === true])).toEqual([['bash', false], ['edit', true], ['skill', false]]);
    const finals = ev.filter((e) => e.kind === 'text' && e.meta?.final === true).map((e) => e.text);
    expect(finals).toEqual(['The test waits on a real timer; I replaced it with fake timers and it passes now.', 'Raised the timeout to 20 s; the test passes.']);
    // reasoning is not conversation
    expect(ev.some((e) => e.text.includes('Let me run the test first'))).toBe(false);
    expect(root.bytesRead).toBeGreaterThan(0);
  });

  it('a part whose data does not parse drops its whole session', () => {
    const broken = harvestAll(db()).find((r) => r.path.endsWith('#ses_broken'))!;
    expect(broken.output!.session).toBeNull();
    expect(broken.output!.events).toEqual([]);
    expect(broken.skipped['unparsable-session']).toBe(1);
  });

  it('an earlier schema (no title, no time_updated on rows) and the legacy tool-invocation part', () => {
    const [r] = harvestAll(db('opencode-early'));
    expect(r.output!.session).toMatchObject({ id: 'opencode:ses_early', cwd: '/work/legacy', title: null });
    const ev = r.output!.events;
    expect(texts(ev, 'prompt')).toEqual(['list the migrations that never ran']);
    expect(ev.filter((e) => e.kind === 'tool_call').map((e) => e.toolName)).toEqual(['bash']);
    expect(texts(ev, 'tool_result')[0]).toContain('002_users.sql');
  });

  it('a database that is not OpenCode, or missing, gives nothing and no error', () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const other = path.join(dir, 'opencode.db');
    new Database(other).exec('CREATE TABLE session (id text)').close();
    const root = { agent: 'opencode' as const, path: other, exists: true, kind: 'opencode-db' };
    expect(adapter.listFiles(root)).toEqual([]);
    expect(adapter.listFiles({ ...root, path: path.join(dir, 'none.db') })).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'none.db'))).toBe(false); // never created
  });

  it('the stamp moves when a part is added or its message is updated, not otherwise', () => {
    const file = db();
    const p = `${file}#ses_root1`;
    const before = adapter.store!.stampAll([p])[0]!;
    expect(adapter.store!.stampAll([p])[0]).toEqual(before);
    const w = new Database(file);
    // a streaming answer: its part rewritten in place, then its message marked complete
    w.prepare("UPDATE part SET time_updated = 1767225999000, data = json_set(data, '$.text', 'longer answer') WHERE id = 'prt_04c'").run();
    w.prepare("UPDATE message SET time_updated = 1767225999000 WHERE id = 'msg_04'").run();
    w.prepare("INSERT INTO part VALUES ('prt_04d', 'msg_04', 'ses_root1', 1767225721000, 1767225721000, '{\"type\":\"step-finish\"}')").run();
    w.close();
    const after = adapter.store!.stampAll([p])[0]!;
    expect(after.mtimeMs).toBe(1767225999000);
    expect(after.size).toBe(before.size + 1);
    expect(adapter.store!.stampAll([`${file}#ses_gone`])[0]).toBeNull();
  });

  it('never writes the database: its bytes are the same after a harvest', () => {
    const file = db();
    const w = new Database(file);
    w.pragma('wal_checkpoint(TRUNCATE)');
    w.close();
    const before = fs.readFileSync(file);
    harvestAll(file);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('sees what OpenCode has not checkpointed yet (the -wal), without writing the database or its -wal', () => {
    const file = db();
    const writer = new Database(file);
    writer.pragma('wal_autocheckpoint = 0'); // OpenCode still running: its writes stay in the -wal
    writer.prepare("INSERT INTO message VALUES ('msg_09', 'ses_root1', 1767225900000, 1767225900000, ?)").run(JSON.stringify({ role: 'user', time: { created: 1767225900000 } }));
    writer.prepare("INSERT INTO part VALUES ('prt_09', 'msg_09', 'ses_root1', 1767225900000, 1767225900000, ?)").run(JSON.stringify({ type: 'text', text: 'one more thing' }));
    const main = fs.readFileSync(file);
    const wal = fs.readFileSync(`${file}-wal`);
    const root = harvestAll(file).find((r) => r.path.endsWith('#ses_root1'))!;
    expect(texts(root.output!.events, 'prompt').at(-1)).toBe('one more thing');
    expect(fs.readFileSync(file).equals(main)).toBe(true);
    expect(fs.readFileSync(`${file}-wal`).equals(wal)).toBe(true);
    writer.close();
  });

  it('planted secrets are redacted before anything leaves the parser', () => {
    const planted = CORPUS_SECRETS.slice(0, 6);
    const sql = planted
      .map(([, text], i) => `INSERT INTO part VALUES ('prt_s${i}', 'msg_03', 'ses_root1', 1767225661000, 1767225661000, ${sqlString(JSON.stringify({ type: 'text', text }))});`)
      .join('\n');
    const root = harvestAll(db('opencode', sql)).find((r) => r.path.endsWith('#ses_root1'))!;
    const stored = JSON.stringify(root.output) + (root.state ?? '');
    for (const [name, , secret] of planted) expect(stored.includes(secret), name).toBe(false);
    expect(root.redactions).toBeGreaterThanOrEqual(planted.length);
  });
});

function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
