/**
 * Reading OpenCode's database (docs/transcript-formats.md, OpenCode): tables `session`,
 * `message` and `part`, each message's and part's body a JSON text in `data`.
 *
 * Opened read-only (`readonly`, `fileMustExist`, `PRAGMA query_only`), never written. Not with
 * `immutable=1`: OpenCode keeps the database in WAL mode and its recent sessions sit in the `-wal`
 * file until a checkpoint, which an immutable open would not see. Not copied either: a copy costs
 * the whole database on every pass. A read-only WAL reader only takes SQLite's shared-memory read
 * locks, which OpenCode's own connections expect; each session is read in one read transaction so
 * its messages and parts agree with each other.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { SourceStamp } from '../types.js';

/** OpenCode mid-write: wait this long for its lock before giving up on this pass. */
const BUSY_TIMEOUT_MS = 5_000;

const REQUIRED: Record<string, string[]> = {
  session: ['id', 'parent_id', 'directory', 'time_created', 'time_updated'],
  message: ['id', 'session_id', 'time_created', 'data'],
  part: ['id', 'message_id', 'session_id', 'time_created', 'data'],
};

// loaded on first use: a harvest worker that never meets an OpenCode database does not load the addon
let Database: typeof BetterSqlite3 | null = null;

function open(dbPath: string): BetterSqlite3.Database | null {
  Database ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  let db: BetterSqlite3.Database;
  try {
    db = new Database(dbPath, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_CANTOPEN') return null; // no database (yet)
    throw err;
  }
  db.pragma('query_only = ON');
  return db;
}

/** The columns of each table we read, or null when the database is not (yet) OpenCode's schema. */
function columns(db: BetterSqlite3.Database): Record<string, Set<string>> | null {
  const out: Record<string, Set<string>> = {};
  for (const [table, need] of Object.entries(REQUIRED)) {
    const cols = new Set((db.pragma(`table_info(${table})`) as Array<{ name: string }>).map((c) => c.name));
    if (!need.every((c) => cols.has(c))) return null;
    out[table] = cols;
  }
  return out;
}

function withDb<T>(dbPath: string, empty: T, fn: (db: BetterSqlite3.Database, cols: Record<string, Set<string>>) => T): T {
  const db = open(dbPath);
  if (!db) return empty;
  try {
    const cols = columns(db);
    return cols ? db.transaction(() => fn(db, cols))() : empty;
  } finally {
    db.close();
  }
}

/** Ids of the root sessions (no parent: sub-agent sessions are not harvested). */
export function listRootSessionIds(dbPath: string): string[] {
  return withDb(dbPath, [], (db) => (db.prepare('SELECT id FROM session WHERE parent_id IS NULL ORDER BY time_created, id').pluck().all() as unknown[]).filter((id): id is string => typeof id === 'string'));
}

/**
 * The change stamp of every root session of one database: its message and part counts and the
 * latest time of the session and its messages (`time_updated` where the table has it). Parts are
 * only counted, from their session index, never read: the part table is most of the database, and
 * a part rewritten in place (a streaming answer) belongs to a message that is itself updated when
 * it completes, which moves the stamp.
 */
export function stampSessions(dbPath: string): Map<string, SourceStamp> {
  return withDb(dbPath, new Map<string, SourceStamp>(), (db, cols) => {
    const messageTime = cols.message.has('time_updated') ? 'max(time_created, time_updated)' : 'time_created';
    const rows = db
      .prepare(
        `SELECT s.id AS id, max(s.time_created, s.time_updated) AS updated,
           coalesce(m.n, 0) AS messages, coalesce(m.t, 0) AS messageTime, coalesce(p.n, 0) AS parts
         FROM session s
         LEFT JOIN (SELECT session_id, count(*) AS n, max(${messageTime}) AS t FROM message GROUP BY session_id) m ON m.session_id = s.id
         LEFT JOIN (SELECT session_id, count(*) AS n FROM part GROUP BY session_id) p ON p.session_id = s.id
         WHERE s.parent_id IS NULL`,
      )
      .all() as Array<{ id: unknown; updated: unknown; messages: number; messageTime: unknown; parts: number }>;
    const out = new Map<string, SourceStamp>();
    for (const r of rows) {
      if (typeof r.id !== 'string') continue;
      const mtimeMs = Math.max(Number(r.updated) || 0, Number(r.messageTime) || 0);
      out.set(r.id, { dev: 0, ino: r.messages, size: r.parts, mtimeMs });
    }
    return out;
  });
}

/**
 * One session as parser records: the session row, then its messages (by time, then id), then their
 * parts (by message, then id), `data` left as the text stored (the parser parses it, and drops the
 * session when any does not parse). Null when the session is not there.
 */
export function readSession(dbPath: string, sessionId: string): { records: Array<Record<string, unknown>>; bytes: number } | null {
  return withDb(dbPath, null, (db, cols) => {
    const extra = ['title', 'agent', 'metadata'].filter((c) => cols.session.has(c));
    const session = db.prepare(`SELECT ${['id', 'parent_id', 'directory', 'time_created', 'time_updated', ...extra].join(', ')} FROM session WHERE id = ?`).get(sessionId) as Record<string, unknown> | undefined;
    if (!session) return null;
    const messages = db.prepare('SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id').all(sessionId) as Array<Record<string, unknown>>;
    const parts = db.prepare('SELECT id, message_id, time_created, data FROM part WHERE session_id = ? ORDER BY message_id, id').all(sessionId) as Array<Record<string, unknown>>;
    let bytes = 0;
    for (const r of [...messages, ...parts]) bytes += typeof r.data === 'string' ? Buffer.byteLength(r.data) : 0;
    return {
      records: [{ record: 'session', ...session }, ...messages.map((m) => ({ record: 'message', ...m })), ...parts.map((p) => ({ record: 'part', ...p }))],
      bytes,
    };
  });
}
