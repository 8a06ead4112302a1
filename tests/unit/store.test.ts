import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { NEW_STORE_PAGE_SIZE, openDb, schemaVersion } from '../../src/store/db.js';
import { LATEST_VERSION, MIGRATIONS } from '../../src/store/migrations/index.js';
import { acquireLease, getLease, releaseLease } from '../../src/store/repos/leases.js';
import { kvGet, kvSet } from '../../src/store/repos/kv.js';
import { listEvents } from '../../src/store/repos/events.js';
import { sessionSid, upsertSession } from '../../src/store/repos/sessions.js';
import { SleepError } from '../../src/core/errors.js';
import { makeTempDir } from '../helpers/sandbox.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const tmp = () => {
  const d = makeTempDir();
  dirs.push(d);
  return d;
};

describe('store', () => {
  it('migrates an empty database and re-opens idempotently', () => {
    const file = path.join(tmp(), 'state', 'sleep.db');
    const db = openDb(file);
    expect(schemaVersion(db)).toBe(LATEST_VERSION);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type='table'").all().map((r) => (r as { name: string }).name);
    expect(tables).toEqual(expect.arrayContaining(['files', 'sessions', 'events', 'tasks', 'proposals', 'ledger', 'leases']));
    kvSet(db, 'k', { a: 1 });
    db.close();
    const again = openDb(file);
    expect(schemaVersion(again)).toBe(LATEST_VERSION);
    expect(kvGet(again, 'k')).toEqual({ a: 1 });
    expect(again.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(again.pragma('foreign_keys', { simple: true })).toBe(1);
    again.close();
  });

  it('creates a store with 16 KiB pages and keeps the page size of an existing one', () => {
    const fresh = path.join(tmp(), 'sleep.db');
    const db = openDb(fresh);
    expect(db.pragma('page_size', { simple: true })).toBe(NEW_STORE_PAGE_SIZE);
    kvSet(db, 'k', 1);
    db.close();
    // a store made with SQLite's default 4 KiB pages (by an older version) stays as it is, rows and all
    const old = path.join(tmp(), 'old.db');
    const raw = new Database(old);
    raw.exec('CREATE TABLE t(x)');
    raw.close();
    const reopened = openDb(old);
    try {
      expect(reopened.pragma('page_size', { simple: true })).toBe(4096);
      expect(schemaVersion(reopened)).toBe(LATEST_VERSION);
      kvSet(reopened, 'k', 2);
      expect(kvGet(reopened, 'k')).toBe(2);
    } finally {
      reopened.close();
    }
    const again = openDb(fresh);
    expect(kvGet(again, 'k')).toBe(1);
    again.close();
  });

  it('creates the file 0600 in a 0700 directory', () => {
    const dir = path.join(tmp(), 'state');
    const file = path.join(dir, 'sleep.db');
    openDb(file).close();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('uses STRICT tables', () => {
    const db = openDb(':memory:');
    expect(() => db.prepare('INSERT INTO kv(key, value, updated_at) VALUES (?, ?, ?)').run('k', 'v', 'not a number')).toThrow(/cannot store TEXT value in INTEGER column/);
    db.close();
  });

  it('refuses a database from a newer version without touching it', () => {
    const file = path.join(tmp(), 'sleep.db');
    const raw = new Database(file);
    raw.pragma(`user_version = ${LATEST_VERSION + 5}`);
    raw.close();
    const before = fs.readFileSync(file);
    expect(() => openDb(file)).toThrow(SleepError);
    try {
      openDb(file);
    } catch (err) {
      expect((err as SleepError).code).toBe('DB_TOO_NEW');
      expect((err as SleepError).hint).toMatch(/upgrade/);
    }
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('refuses a corrupt file with a clear error and leaves it in place', () => {
    const file = path.join(tmp(), 'sleep.db');
    fs.writeFileSync(file, 'this is definitely not sqlite'.repeat(200));
    const before = fs.readFileSync(file);
    let caught: unknown;
    try {
      openDb(file);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SleepError);
    expect((caught as SleepError).code).toBe('DB_CORRUPT');
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('leases: one holder at a time, dead holders are taken over', () => {
    const db = openDb(':memory:');
    acquireLease(db, 'night', 'a', 60_000);
    expect(() => acquireLease(db, 'night', 'b', 60_000)).toThrow(/already running/);
    releaseLease(db, 'night', 'a');
    expect(acquireLease(db, 'night', 'b', 60_000).holder).toBe('b');
    // a lease held by a pid that no longer exists is stale
    db.prepare('UPDATE leases SET pid = 2147480000 WHERE name = ?').run('night');
    expect(acquireLease(db, 'night', 'c', 60_000).holder).toBe('c');
    expect(getLease(db, 'night')?.pid).toBe(process.pid);
    db.close();
  });

  it('upgrades a version-3 store to lean events keyed by session number without losing rows', () => {
    const file = path.join(tmp(), 'sleep.db');
    const raw = new Database(file);
    for (const m of MIGRATIONS.filter((m) => m.version <= 3)) {
      raw.exec(m.sql);
      raw.pragma(`user_version = ${m.version}`);
    }
    raw.prepare("INSERT INTO sessions(id, agent, vendor_id, kind, file, updated_at) VALUES ('s1', 'codex', 'v', 'interactive', '/f', 1)").run();
    raw.prepare("INSERT INTO sessions(id, agent, vendor_id, kind, file, updated_at) VALUES ('s2', 'codex', 'w', 'interactive', '/g', 1)").run();
    raw.prepare("INSERT INTO events(session_id, seq, role, kind, text) VALUES ('s1', 0, 'user', 'prompt', 'hello')").run();
    raw.prepare("INSERT INTO events(session_id, seq, role, kind, text) VALUES ('s2', 0, 'user', 'prompt', 'other'), ('s1', 1, 'user', 'prompt', 'again')").run();
    raw.close();
    const db = openDb(file);
    expect(schemaVersion(db)).toBe(LATEST_VERSION);
    expect(listEvents(db, 's1').map((e) => [e.sessionId, e.seq, e.text])).toEqual([
      ['s1', 0, 'hello'],
      ['s1', 1, 'again'],
    ]);
    expect(listEvents(db, 's2').map((e) => e.text)).toEqual(['other']);
    // a new session gets the next number; an updated one keeps its own
    const s3 = upsertSession(db, { id: 's3', agent: 'codex', vendorId: 'x', project: null, cwd: null, startedAt: null, endedAt: null, kind: 'interactive', file: '/h', promptCount: 0, toolErrorCount: 0 });
    const s1 = upsertSession(db, { id: 's1', agent: 'codex', vendorId: 'v', project: null, cwd: null, startedAt: null, endedAt: null, kind: 'interactive', file: '/f', promptCount: 2, toolErrorCount: 0 });
    expect(s3).toBe(3);
    expect(s1).toBe(sessionSid(db, 's1'));
    expect(listEvents(db, 's1')).toHaveLength(2);
    // a row written without a number (by hand, or an older tool) gets one on its next upsert
    db.prepare("INSERT INTO sessions(id, agent, vendor_id, kind, file, updated_at) VALUES ('s4', 'codex', 'y', 'interactive', '/i', 1)").run();
    expect(sessionSid(db, 's4')).toBeUndefined();
    expect(upsertSession(db, { id: 's4', agent: 'codex', vendorId: 'y', project: null, cwd: null, startedAt: null, endedAt: null, kind: 'interactive', file: '/i', promptCount: 0, toolErrorCount: 0 })).toBe(4);
    const ddl = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'events'").get() as { sql: string }).sql;
    expect(ddl).toMatch(/WITHOUT ROWID/);
    db.prepare('DELETE FROM sessions WHERE id = ?').run('s1');
    expect(db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 1 }); // cascade still holds: only s2's is left
    db.close();
  });
});
