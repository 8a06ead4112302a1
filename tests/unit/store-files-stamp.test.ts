import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, schemaVersion } from '../../src/store/db.js';
import { LATEST_VERSION, MIGRATIONS } from '../../src/store/migrations/index.js';
import { deleteFileRow, fileRowsCommitted, getFileRow, loadFileStamps, upsertFileRow } from '../../src/store/repos/files.js';
import { makeTempDir } from '../helpers/sandbox.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('migration 5: covering index for the unchanged-pass stamp scan', () => {
  it('upgrades a version-4 store without touching its file rows, and the stamp scan uses the index', () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const file = path.join(dir, 'sleep.db');
    const raw = new Database(file);
    for (const m of MIGRATIONS.filter((m) => m.version <= 4)) {
      raw.exec(m.sql);
      raw.pragma(`user_version = ${m.version}`);
    }
    raw
      .prepare(
        `INSERT INTO files(path, agent, dev, ino, size, mtime_ms, offset, head_hash, session_id, state, error, updated_at)
         VALUES ('/t/a.jsonl', 'codex', 7, 42, 1234, 1700000000123, 1200, '1024:abc', 'codex:s1', '{"turn":3}', NULL, 1)`,
      )
      .run();
    raw.close();

    const db = openDb(file);
    expect(schemaVersion(db)).toBe(LATEST_VERSION);
    expect(getFileRow(db, '/t/a.jsonl')).toMatchObject({ dev: 7, ino: 42, size: 1234, mtimeMs: 1700000000123, offset: 1200, headHash: 'abc', headLen: 1024, sessionId: 'codex:s1', state: '{"turn":3}' });
    expect(loadFileStamps(db).get('/t/a.jsonl')).toEqual([7, 42, 1234, 1700000000123, '/t/a.jsonl']);
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT dev, ino, size, mtime_ms, path FROM files').all() as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/COVERING INDEX files_stamp/);

    // the index follows updates: an append changes size and mtime, and the scan sees the new values
    upsertFileRow(db, { ...getFileRow(db, '/t/a.jsonl')!, size: 2000, mtimeMs: 1700000000999, offset: 2000 });
    expect(loadFileStamps(db).get('/t/a.jsonl')).toEqual([7, 42, 2000, 1700000000999, '/t/a.jsonl']);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });
});

describe('the stamp cache of a long-lived connection', () => {
  const row = (p: string, size: number) => ({ path: p, agent: 'codex', dev: 1, ino: 2, size, mtimeMs: 1_700_000_000_000 + size, offset: size, headHash: null, headLen: 0, sessionId: null, state: null, error: null });
  const open = () => {
    const dir = makeTempDir();
    dirs.push(dir);
    return path.join(dir, 'sleep.db');
  };

  it('is reused while nothing changed, and takes this connection’s committed writes without a reload', () => {
    const db = openDb(open());
    upsertFileRow(db, row('/t/a', 10));
    const first = loadFileStamps(db);
    expect(loadFileStamps(db)).toBe(first);
    db.transaction(() => {
      upsertFileRow(db, row('/t/b', 20));
      deleteFileRow(db, '/t/a');
    }).immediate();
    fileRowsCommitted(db);
    const after = loadFileStamps(db);
    expect(after).toBe(first); // same map, updated in place
    expect([...after.keys()]).toEqual(['/t/b']);
    expect(after.get('/t/b')?.slice(0, 4)).toEqual([1, 2, 20, 1_700_000_000_020]);
    db.close();
  });

  it('reloads after a rolled-back write, so a row that was never stored is not taken as known', () => {
    const db = openDb(open());
    upsertFileRow(db, row('/t/a', 10));
    const first = loadFileStamps(db);
    expect(() =>
      db.transaction(() => {
        upsertFileRow(db, row('/t/a', 99));
        upsertFileRow(db, row('/t/c', 30));
        throw new Error('crash mid-batch');
      })(),
    ).toThrow('crash mid-batch');
    const after = loadFileStamps(db);
    expect(after).not.toBe(first);
    expect([...after.keys()]).toEqual(['/t/a']);
    expect(after.get('/t/a')?.[2]).toBe(10);
    db.close();
  });

  it('reloads when another connection (another process) committed', () => {
    const file = open();
    const db = openDb(file);
    upsertFileRow(db, row('/t/a', 10));
    const first = loadFileStamps(db);
    expect(loadFileStamps(db)).toBe(first);
    const other = openDb(file);
    upsertFileRow(other, row('/t/a', 50));
    deleteFileRow(other, '/t/gone');
    other.close();
    const after = loadFileStamps(db);
    expect(after).not.toBe(first);
    expect(after.get('/t/a')?.[2]).toBe(50);
    db.close();
  });
});
