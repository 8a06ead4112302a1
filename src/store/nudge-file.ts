/**
 * The nudge file: how many proposals wait for review, kept beside the database (state/nudge.json)
 * so `hooks nudge`, which runs at the start of every agent session, answers from one small file
 * without loading the store (issue 40).
 *
 * Written (nudge-refresh.ts) by whoever may have changed the count: every CLI command that opened
 * the store, when it closes it, and the daemon at each heartbeat (a night stages from its own
 * process). The record carries the database files' size and mtime when it was written: if the
 * database changed since (a write by anything else), the count is read from the database itself,
 * with one indexed query on a read-only connection and nothing else of the store loaded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../core/fsutil.js';

export const NUDGE_FILE = 'nudge.json';

interface NudgeRecord {
  staged: number;
  at: number;
  /** the database and its WAL as they were when `staged` was counted */
  db: string;
}

export function nudgeFilePath(databaseFile: string): string {
  return path.join(path.dirname(databaseFile), NUDGE_FILE);
}

/** Size and mtime of the database and its write-ahead log: any committed write changes one of them. */
export function databaseSignature(databaseFile: string): string {
  return [databaseFile, `${databaseFile}-wal`]
    .map((f) => {
      try {
        const st = fs.statSync(f);
        return `${st.size}@${st.mtimeMs}`;
      } catch {
        return '-';
      }
    })
    .join(' ');
}

function readRecord(databaseFile: string): Partial<NudgeRecord> | null {
  try {
    return JSON.parse(fs.readFileSync(nudgeFilePath(databaseFile), 'utf8')) as Partial<NudgeRecord>;
  } catch {
    return null;
  }
}

/** Staged proposals as recorded, or null when the file is missing, unreadable or older than the database's last write. */
export function readNudgeCount(databaseFile: string): number | null {
  const rec = readRecord(databaseFile);
  if (!rec || typeof rec.staged !== 'number' || !Number.isInteger(rec.staged) || rec.staged < 0) return null;
  return rec.db === databaseSignature(databaseFile) ? rec.staged : null;
}

/** Records the staged count with the database's signature, when either changed (nudge-refresh.ts counts it). */
export function writeNudgeCount(databaseFile: string, staged: number): void {
  const db = databaseSignature(databaseFile);
  const rec = readRecord(databaseFile);
  if (rec?.staged === staged && rec.db === db) return;
  writeFileAtomic(nudgeFilePath(databaseFile), JSON.stringify({ staged, at: Date.now(), db } satisfies NudgeRecord) + '\n', { mode: 0o600 });
}

/**
 * The count from the database itself: the SQLite binding and one indexed query on a read-only
 * connection, without the store's modules (migrations, record schemas) that `openDb` loads.
 */
export async function countStagedInDatabase(databaseFile: string): Promise<number> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(databaseFile, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 1000');
    return (db.prepare("SELECT count(*) AS n FROM proposals WHERE status = 'staged'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}
