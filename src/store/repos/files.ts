/** The `files` table: per transcript file, where the last harvest stopped and how to recognise the file. */
import type { Db } from '../db.js';
import { cachedStatement } from './cached.js';

export interface FileRow {
  path: string;
  agent: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  offset: number;
  headHash: string | null;
  headLen: number;
  sessionId: string | null;
  state: string | null;
  error: string | null;
}

/** `[dev, ino, size, mtimeMs]` of a file row. */
export type FileStamp = [number, number, number, number];

/**
 * The stamps of one connection, kept between the passes of a long-lived process (the daemon):
 * reloading 10,000 rows was a fifth of an unchanged pass. Valid while
 *  - `PRAGMA data_version` is unchanged: it moves when another connection commits, and
 *  - every write this connection made to `files` since was confirmed committed
 *    (`fileRowsCommitted`): a write still `pending` at the next load may have been rolled back,
 *    so the stamps are read again.
 */
interface StampCache {
  dataVersion: number;
  stamps: Map<string, FileStamp>;
  pending: Array<[string, FileStamp | null]>;
}
const stampCaches = new WeakMap<Db, StampCache>();

function dataVersion(db: Db): number {
  return cachedStatement(db, 'PRAGMA data_version').pluck().get() as number;
}

/**
 * path → `[dev, ino, size, mtimeMs]` of every file row: all an unchanged pass needs. Raw arrays, not
 * objects: on an unchanged pass over 10,000 files, building keyed objects (and the garbage
 * collections they cause) cost more than the query. The map is this connection's cache: read it,
 * do not change it (writes go through `upsertFileRow` / `deleteFileRow`).
 */
export function loadFileStamps(db: Db): ReadonlyMap<string, FileStamp> {
  const version = dataVersion(db);
  const cached = stampCaches.get(db);
  if (cached && cached.dataVersion === version && cached.pending.length === 0) return cached.stamps;
  const map = new Map<string, FileStamp>();
  for (const r of db.prepare('SELECT dev, ino, size, mtime_ms, path FROM files').raw(true).all() as Array<[number, number, number, number, string]>) {
    map.set(r[4], r as unknown as FileStamp);
  }
  stampCaches.set(db, { dataVersion: version, stamps: map, pending: [] });
  return map;
}

/** After the transaction that wrote file rows committed: the cached stamps take those writes. */
export function fileRowsCommitted(db: Db): void {
  const c = stampCaches.get(db);
  if (!c || db.inTransaction) return; // inside an outer transaction nothing is committed yet
  for (const [p, stamp] of c.pending) {
    if (stamp) c.stamps.set(p, stamp);
    else c.stamps.delete(p);
  }
  c.pending = [];
}

/** The agent of each file row (for the rows a full pass did not list). */
export function fileAgents(db: Db): Map<string, string> {
  return new Map(db.prepare('SELECT path, agent FROM files').raw(true).all() as Array<[string, string]>);
}

/**
 * The head hash is stored with the number of bytes it covers, `<len>:<sha1>`, in the core
 * `head_hash` column (no schema dependency: a store at any migration level works).
 */
function splitHead(v: string | null): { headHash: string | null; headLen: number } {
  const m = v ? /^(\d+):([0-9a-f]+)$/.exec(v) : null;
  return m ? { headHash: m[2], headLen: Number(m[1]) } : { headHash: null, headLen: 0 };
}

export function getFileRow(db: Db, filePath: string): FileRow | undefined {
  const r = cachedStatement(
    db,
    'SELECT path, agent, dev, ino, size, mtime_ms AS mtimeMs, offset, head_hash AS head, session_id AS sessionId, state, error FROM files WHERE path = ?',
  ).get(filePath) as (Omit<FileRow, 'headHash' | 'headLen'> & { head: string | null }) | undefined;
  if (!r) return undefined;
  const { head, ...rest } = r;
  return { ...rest, ...splitHead(head) };
}

export function upsertFileRow(db: Db, r: FileRow, now = Date.now()): void {
  // positional parameters: binding by name looks every key up on an object, per call
  cachedStatement(db,
    `INSERT INTO files(path, agent, dev, ino, size, mtime_ms, offset, head_hash, session_id, state, error, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(path) DO UPDATE SET agent = excluded.agent, dev = excluded.dev, ino = excluded.ino, size = excluded.size,
       mtime_ms = excluded.mtime_ms, offset = excluded.offset, head_hash = excluded.head_hash,
       session_id = excluded.session_id, state = excluded.state, error = excluded.error, updated_at = excluded.updated_at`,
  ).run(r.path, r.agent, r.dev, r.ino, r.size, r.mtimeMs, r.offset, r.headHash ? `${r.headLen}:${r.headHash}` : null, r.sessionId, r.state, r.error, now);
  stampCaches.get(db)?.pending.push([r.path, [r.dev, r.ino, r.size, r.mtimeMs]]);
}

export function deleteFileRow(db: Db, filePath: string): void {
  cachedStatement(db, 'DELETE FROM files WHERE path = ?').run(filePath);
  stampCaches.get(db)?.pending.push([filePath, null]);
}

/** Files whose last read failed (not the duplicates of another file's session), newest first. */
export function unreadableFiles(db: Db, limit = 5): { count: number; sample: Array<{ path: string; error: string }> } {
  const where = "error IS NOT NULL AND error NOT LIKE 'duplicate of %'";
  const count = (db.prepare(`SELECT count(*) AS n FROM files WHERE ${where}`).get() as { n: number }).n;
  const sample = db.prepare(`SELECT path, error FROM files WHERE ${where} ORDER BY updated_at DESC LIMIT ?`).all(limit) as Array<{ path: string; error: string }>;
  return { count, sample };
}

/** Whether any file was ever recorded (false: the store has not been harvested yet). */
export function hasFileRows(db: Db): boolean {
  return cachedStatement(db, 'SELECT EXISTS (SELECT 1 FROM files)').pluck().get() === 1;
}

export function countFiles(db: Db): number {
  return (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
}
