/**
 * The daemon's rescans: one connection, many passes. After the first pass the listing and the file
 * stamps come from memory (nothing is read again from an unchanged tree), yet every kind of change
 * is still found: an append, a new session in a known folder, a new folder, a deleted file, a write
 * by another process, and a pass that failed half-way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { listingCacheFor } from '../../src/harvest/listing.js';
import { RACY_MS } from '../../src/harvest/dir-cache.js';
import { getFileRow } from '../../src/store/repos/files.js';
import { listSessions } from '../../src/store/repos/sessions.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { CLAUDE_PROJECT_DIR, FIXTURE_PROJECT, fixtureHome } from '../helpers/fixtures.js';

const CLAUDE_PROJECT = CLAUDE_PROJECT_DIR;
const CLAUDE_FILE = `${CLAUDE_PROJECT}/2e8f6d19-3a4c-4b7e-a1d0-5c9b8e7f6a23.jsonl`;

function claudeSession(id: string, text: string): string {
  const base = { sessionId: id, cwd: FIXTURE_PROJECT, version: '2.0.14', gitBranch: 'main' };
  return (
    [
      { ...base, type: 'user', uuid: `${id}-u1`, parentUuid: null, timestamp: '2026-11-20T10:00:00.000Z', message: { role: 'user', content: text } },
      { ...base, type: 'assistant', uuid: `${id}-a1`, parentUuid: `${id}-u1`, timestamp: '2026-11-20T10:00:05.000Z', message: { id: `msg-${id}`, role: 'assistant', content: [{ type: 'text', text: 'Done.' }] } },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n') + '\n'
  );
}

describe('rescans on one long-lived connection', () => {
  let sb: Sandbox;
  let db: Db;
  let claude: string;
  const config = defaultConfig();
  const harvest = (on: Db = db) => runHarvest(on, config, { env: sb.env, stateDir: path.join(sb.home, 'state') });

  beforeEach(async () => {
    sb = makeSandbox();
    claude = sb.env.CLAUDE_CONFIG_DIR!;
    fs.cpSync(fixtureHome('claude-code'), claude, { recursive: true });
    fs.cpSync(fixtureHome('codex'), sb.env.CODEX_HOME!, { recursive: true });
    fs.cpSync(fixtureHome('copilot-cli'), sb.env.COPILOT_HOME!, { recursive: true });
    // a listing is only kept once its folder has been still for the racy window
    await new Promise((r) => setTimeout(r, RACY_MS + 200));
    db = openDb(path.join(sb.home, 'state', 'sleep.db'));
  });
  afterEach(() => {
    db.close();
    sb.cleanup();
    vi.restoreAllMocks();
  });

  it('reads nothing again from an unchanged tree, and still finds every change', async () => {
    const cold = await harvest();
    expect(cold.errors).toEqual([]);
    const sessions = listSessions(db).length;
    expect(sessions).toBe(cold.sessions);

    const cache = listingCacheFor(db);
    const reads = cache.reads;
    const unchanged = await harvest();
    expect(unchanged.filesChanged).toBe(0);
    expect(cache.reads).toBe(reads); // no directory was read again
    expect(cache.rootHits).toBeGreaterThanOrEqual(3);

    // an append: found by the file's own stat (folders do not change)
    fs.appendFileSync(path.join(claude, CLAUDE_FILE), JSON.stringify({ type: 'user', uuid: 'extra-1', sessionId: '2e8f6d19-3a4c-4b7e-a1d0-5c9b8e7f6a23', timestamp: '2026-11-21T09:00:00.000Z', cwd: FIXTURE_PROJECT, message: { role: 'user', content: 'one more thing' } }) + '\n');
    const appended = await harvest();
    expect(appended.filesChanged).toBe(1);
    expect(appended.newSessionIds).toEqual([]);

    // a new session in a folder whose listing was kept
    const fresh = '11111111-2222-4333-8444-555555555555';
    fs.writeFileSync(path.join(claude, CLAUDE_PROJECT, `${fresh}.jsonl`), claudeSession(fresh, 'write the changelog entry'));
    const added = await harvest();
    expect(added.newSessionIds).toEqual([`claude-code:${fresh}`]);

    // a new project folder
    const other = '66666666-7777-4888-9999-000000000000';
    fs.mkdirSync(path.join(claude, 'projects/-home-mika-src-other'));
    fs.writeFileSync(path.join(claude, 'projects/-home-mika-src-other', `${other}.jsonl`), claudeSession(other, 'fix the lint error'));
    expect((await harvest()).newSessionIds).toEqual([`claude-code:${other}`]);

    // a deleted file: its row goes (the session stays)
    fs.rmSync(path.join(claude, 'projects/-home-mika-src-other', `${other}.jsonl`));
    await harvest();
    expect(getFileRow(db, path.join(claude, 'projects/-home-mika-src-other', `${other}.jsonl`))).toBeUndefined();
    expect(listSessions(db)).toHaveLength(sessions + 2);
    expect((await harvest()).filesChanged).toBe(0);
  });

  it('sees file rows another process wrote, and re-reads after a pass whose write failed', async () => {
    await harvest();
    const target = path.join(claude, CLAUDE_FILE);
    // another process (the daemon's twin, a `harvest` command) takes the append first
    fs.appendFileSync(target, JSON.stringify({ type: 'user', uuid: 'extra-2', sessionId: '2e8f6d19-3a4c-4b7e-a1d0-5c9b8e7f6a23', timestamp: '2026-11-21T09:05:00.000Z', cwd: FIXTURE_PROJECT, message: { role: 'user', content: 'and the docs' } }) + '\n');
    const twin = openDb(path.join(sb.home, 'state', 'sleep.db'));
    expect((await harvest(twin)).filesChanged).toBe(1);
    twin.close();
    expect((await harvest()).filesChanged).toBe(0); // this connection saw the twin's commit

    // a write batch that fails half-way on the store itself (the first file's rows written, the
    // second's throw SQLITE_IOERR, as better-sqlite3 reports a disk error): the transaction rolls
    // back, and the next pass reads both files again (a failure of one file's rows alone is
    // isolated instead: tests/integration/harvest-total.test.ts)
    const second = path.join(claude, `${CLAUDE_PROJECT}/5f0c2b7e-8d4a-4f61-9b3e-2a7c91d4e860.jsonl`);
    for (const [file, sid, n] of [[target, '2e8f6d19-3a4c-4b7e-a1d0-5c9b8e7f6a23', 3], [second, '5f0c2b7e-8d4a-4f61-9b3e-2a7c91d4e860', 4]] as const) {
      fs.appendFileSync(file, JSON.stringify({ type: 'user', uuid: `extra-${n}`, sessionId: sid, timestamp: '2026-11-21T09:10:00.000Z', cwd: FIXTURE_PROJECT, message: { role: 'user', content: 'and the tests' } }) + '\n');
    }
    const sessionsRepo = await import('../../src/store/repos/sessions.js');
    const real = sessionsRepo.upsertSession;
    const spy = vi
      .spyOn(sessionsRepo, 'upsertSession')
      .mockImplementationOnce((...args) => real(...args))
      .mockImplementationOnce(() => {
        throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
      });
    await expect(harvest()).rejects.toThrow('disk I/O error');
    expect(spy).toHaveBeenCalledTimes(2);
    spy.mockRestore();
    const retried = await harvest();
    expect(retried.filesChanged).toBe(2);
    expect(retried.events).toBeGreaterThan(0);
  });
});
