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

/** The cheap columns of every file row (no parser state), for the unchanged-file check. */
export type FileStampRow = Pick<FileRow, 'path' | 'agent' | 'dev' | 'ino' | 'size' | 'mtimeMs' | 'offset' | 'sessionId'>;

export function loadFileStamps(db: Db): Map<string, FileStampRow> {
  // raw rows: building 10,000 keyed objects costs more than the query on an unchanged pass
  const rows = db.prepare('SELECT path, agent, dev, ino, size, mtime_ms, offset, session_id FROM files').raw(true).all() as Array<
    [string, string, number, number, number, number, number, string | null]
  >;
  const map = new Map<string, FileStampRow>();
  for (const [p, agent, dev, ino, size, mtimeMs, offset, sessionId] of rows) map.set(p, { path: p, agent, dev, ino, size, mtimeMs, offset, sessionId });
  return map;
}

export function getFileRow(db: Db, filePath: string): FileRow | undefined {
  return db
    .prepare(
      'SELECT path, agent, dev, ino, size, mtime_ms AS mtimeMs, offset, head_hash AS headHash, head_len AS headLen, session_id AS sessionId, state, error FROM files WHERE path = ?',
    )
    .get(filePath) as FileRow | undefined;
}

export function upsertFileRow(db: Db, r: FileRow, now = Date.now()): void {
  cachedStatement(db,
    `INSERT INTO files(path, agent, dev, ino, size, mtime_ms, offset, head_hash, head_len, session_id, state, error, updated_at)
     VALUES (@path, @agent, @dev, @ino, @size, @mtimeMs, @offset, @headHash, @headLen, @sessionId, @state, @error, @now)
     ON CONFLICT(path) DO UPDATE SET agent = excluded.agent, dev = excluded.dev, ino = excluded.ino, size = excluded.size,
       mtime_ms = excluded.mtime_ms, offset = excluded.offset, head_hash = excluded.head_hash, head_len = excluded.head_len,
       session_id = excluded.session_id, state = excluded.state, error = excluded.error, updated_at = excluded.updated_at`,
  ).run({ ...r, now });
}

export function deleteFileRow(db: Db, filePath: string): void {
  cachedStatement(db, 'DELETE FROM files WHERE path = ?').run(filePath);
}

export function countFiles(db: Db): number {
  return (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
}
