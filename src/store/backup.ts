/**
 * Online backups of the database: SQLite's backup API (better-sqlite3's `db.backup()`) copies a
 * consistent snapshot while the database stays in use, into `<state>/db-backups/`, under a name
 * that sorts by time; the newest `keep` are kept. `doctor --repair` restores from the newest one
 * that passes an integrity check (proposals/rebuild.ts then adds what the proposal folders record
 * since). A backup is written under a temp name and renamed, so a crash leaves no half backup.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Db } from './db.js';
import { ensurePrivateDir } from '../core/fsutil.js';
import { SleepError } from '../core/errors.js';

const PREFIX = 'sleep-';
const SUFFIX = '.db';

export function dbBackupDir(stateDir: string): string {
  return path.join(stateDir, 'db-backups');
}

/** `sleep-20261205T031500123Z.db`: sorts by time as text. */
function backupName(now: number): string {
  return `${PREFIX}${new Date(now).toISOString().replace(/[-:.]/g, '')}${SUFFIX}`;
}

export interface BackupInfo {
  file: string;
  bytes: number;
}

/** The backups in `dir`, newest first. */
export function listDbBackups(dir: string): BackupInfo[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(PREFIX) && n.endsWith(SUFFIX))
    .sort()
    .reverse()
    .map((n) => {
      const file = path.join(dir, n);
      return { file, bytes: fs.statSync(file).size };
    });
}

/** Takes a consistent copy of `db` into `dir` and keeps the newest `keep`; returns the new file. */
export async function backupDatabase(db: Db, dir: string, keep: number, now = Date.now()): Promise<string> {
  ensurePrivateDir(dir);
  let file = path.join(dir, backupName(now));
  // two backups in the same millisecond (a test, a night and the daily timer together) never collide
  for (let n = 1; fs.existsSync(file); n++) file = path.join(dir, backupName(now).replace(SUFFIX, `-${n}${SUFFIX}`));
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await db.backup(tmp);
    fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  pruneDbBackups(dir, keep);
  return file;
}

/** Removes all but the newest `keep` backups. */
export function pruneDbBackups(dir: string, keep: number): string[] {
  const old = listDbBackups(dir).slice(Math.max(1, keep));
  for (const b of old) fs.rmSync(b.file, { force: true });
  return old.map((b) => b.file);
}

/**
 * Throws unless SQLite itself loads (its native binding): without it every database looks
 * damaged, and a repair must not move a healthy file aside for that.
 */
export function assertSqliteLoads(): void {
  try {
    new Database(':memory:').close();
  } catch (err) {
    throw new SleepError('INTERNAL', `SQLite does not load here: ${(err as Error).message}`, {
      hint: 'your database is probably fine; reinstall skillopt-sleep (`npm i -g skillopt-sleep`) or, in a clone, `npm rebuild better-sqlite3`; nothing was changed',
      cause: err,
    });
  }
}

/**
 * Whether `file` is a whole SQLite database of ours: it opens, passes `quick_check`, and has the
 * proposals table. Opened read-only, so a check never changes it.
 */
export function isHealthyDatabase(file: string): boolean {
  if (!fs.existsSync(file)) return false;
  let db: Db | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') return false;
    return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'proposals'").get() !== undefined;
  } catch {
    return false;
  } finally {
    db?.close();
  }
}
