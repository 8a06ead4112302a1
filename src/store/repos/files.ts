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
  /**
   * the file's lines that could not be stored, by reason, as JSON text (`{"malformed":2}`), since it
   * was last read from its start; null or absent: none
   */
  damaged?: string | null;
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

/** After a rollback of file-row writes: the cached stamps are dropped, the next load reads them again. */
export function forgetFileStamps(db: Db): void {
  stampCaches.delete(db);
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
    'SELECT path, agent, dev, ino, size, mtime_ms AS mtimeMs, offset, head_hash AS head, session_id AS sessionId, state, error, damaged FROM files WHERE path = ?',
  ).get(filePath) as (Omit<FileRow, 'headHash' | 'headLen'> & { head: string | null }) | undefined;
  if (!r) return undefined;
  const { head, ...rest } = r;
  return { ...rest, ...splitHead(head) };
}

export function upsertFileRow(db: Db, r: FileRow, now = Date.now()): void {
  // positional parameters: binding by name looks every key up on an object, per call
  cachedStatement(db,
    `INSERT INTO files(path, agent, dev, ino, size, mtime_ms, offset, head_hash, session_id, state, error, damaged, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(path) DO UPDATE SET agent = excluded.agent, dev = excluded.dev, ino = excluded.ino, size = excluded.size,
       mtime_ms = excluded.mtime_ms, offset = excluded.offset, head_hash = excluded.head_hash,
       session_id = excluded.session_id, state = excluded.state, error = excluded.error, damaged = excluded.damaged, updated_at = excluded.updated_at`,
  ).run(r.path, r.agent, r.dev, r.ino, r.size, r.mtimeMs, r.offset, r.headHash ? `${r.headLen}:${r.headHash}` : null, r.sessionId, r.state, r.error, r.damaged ?? null, now);
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

/**
 * A file whose newest read could not be stored at all: its error is recorded on its row, which
 * keeps the stamp of the last read that was (a new row gets none), so every pass tries it again
 * from where that read stopped. What was stored of it before stays.
 */
export function recordFileFailure(db: Db, filePath: string, agent: string, error: string, now = Date.now()): void {
  cachedStatement(
    db,
    `INSERT INTO files(path, agent, error, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(path) DO UPDATE SET error = excluded.error, updated_at = excluded.updated_at`,
  ).run(filePath, agent, error, now);
  // (the stamp is unchanged, or all zeros for a new row: the cached stamps take the row as written)
  const row = cachedStatement(db, 'SELECT dev, ino, size, mtime_ms FROM files WHERE path = ?').raw(true).get(filePath) as FileStamp;
  stampCaches.get(db)?.pending.push([filePath, row]);
}

/** A file with a problem: its last read failed (`error`) or some of its lines could not be stored (`damaged`). */
export interface FileProblem {
  path: string;
  agent: string;
  error: string | null;
  /** lines not stored, by reason */
  damaged: Record<string, number>;
  /** when the row was last written (ms) */
  updatedAt: number;
}

function parseDamage(text: string | null): Record<string, number> {
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, number>) : {};
  } catch {
    return {};
  }
}

/**
 * The transcript files with a problem (`status`, `doctor`): how many, how many lines they lost in
 * all, and the newest few. Duplicates of another file's session are not problems.
 */
export function fileProblems(db: Db, limit = 5): { count: number; errors: number; damagedLines: number; sample: FileProblem[] } {
  const where = "(error IS NOT NULL AND error NOT LIKE 'duplicate of %') OR damaged IS NOT NULL";
  const counts = db
    .prepare(`SELECT count(*) AS n, sum(error IS NOT NULL AND error NOT LIKE 'duplicate of %') AS errors, group_concat(damaged, char(10)) AS damaged FROM files WHERE ${where}`)
    .get() as { n: number; errors: number | null; damaged: string | null };
  let damagedLines = 0;
  for (const line of counts.damaged?.split('\n') ?? []) for (const n of Object.values(parseDamage(line))) damagedLines += Number(n) || 0;
  const rows = db
    .prepare(`SELECT path, agent, error, damaged, updated_at AS updatedAt FROM files WHERE ${where} ORDER BY updated_at DESC, path LIMIT ?`)
    .all(limit) as Array<{ path: string; agent: string; error: string | null; damaged: string | null; updatedAt: number }>;
  const sample = rows.map((r) => ({ ...r, error: r.error?.startsWith('duplicate of ') ? null : r.error, damaged: parseDamage(r.damaged) }));
  return { count: counts.n, errors: counts.errors ?? 0, damagedLines, sample };
}

/** Whether any file was ever recorded (false: the store has not been harvested yet). */
export function hasFileRows(db: Db): boolean {
  return cachedStatement(db, 'SELECT EXISTS (SELECT 1 FROM files)').pluck().get() === 1;
}

export function countFiles(db: Db): number {
  return (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
}
