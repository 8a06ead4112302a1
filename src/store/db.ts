/**
 * Opens the SQLite store: WAL, busy_timeout, foreign keys, STRICT tables, versioned migrations
 * applied on open. The file is created 0600 inside a 0700 directory. A corrupt file or one written
 * by a newer version is refused with a clear error; nothing is overwritten or recreated silently.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { SleepError } from '../core/errors.js';
import { DAMAGED_DB_HINT, diagnoseError } from '../core/error-diagnosis.js';
import { ensurePrivateDir } from '../core/fsutil.js';
import { MIGRATIONS, LATEST_VERSION } from './migrations/index.js';

export type Db = BetterSqlite3.Database;

// The SQLite binding loads on the first open, not with this module: `--help` and the other commands
// that never open the store do not pay for it (issue 40). It is a CommonJS package, so require is sync.
const require = createRequire(import.meta.url);
let binding: typeof BetterSqlite3 | undefined;
function Database(...args: ConstructorParameters<typeof BetterSqlite3>): Db {
  binding ??= require('better-sqlite3') as typeof BetterSqlite3;
  return new binding(...args);
}

export interface OpenOptions {
  readonly?: boolean;
  /** ms to wait on a locked database before SQLITE_BUSY */
  busyTimeoutMs?: number;
}

/**
 * A valid database that is busy (another process holds a write lock past the busy timeout), that we
 * may not write (read-only file or folder), that is damaged, or a SQLite binding that cannot load,
 * each named as such (core/error-diagnosis.ts): the old "damaged, move it away" advice would
 * discard staged proposals and the receipts `revert` needs, and was given for a missing binding too.
 */
function named(err: unknown, file: string): SleepError | null {
  const code = String((err as { code?: unknown }).code ?? '');
  const msg = (err as Error).message ?? '';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || /database is locked|database table is locked/i.test(msg)) {
    return new SleepError('DB_LOCKED', `database ${file} is locked by another process: ${msg}`, {
      hint: 'wait for the other skillopt-sleep process (a night, harvest or the daemon: see `skillopt-sleep status`) to finish, then run again; the file is fine',
      cause: err,
    });
  }
  if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN' || /readonly|read-only|attempt to write a readonly/i.test(msg)) {
    return new SleepError('READ_ONLY', `database ${file} cannot be written (read-only file or folder): ${msg}`, {
      hint: `give your user write access to ${path.dirname(file)} and the database files in it, or set SKILLOPT_SLEEP_HOME to a writable folder; the file is fine, do not move it away`,
      cause: err,
    });
  }
  return diagnoseError(err, file);
}

/** True when the folder holding `file` cannot be written (a read-only mount, or no permission). */
export function folderReadOnly(file: string): boolean {
  try {
    fs.accessSync(path.dirname(file), fs.constants.W_OK);
    return false;
  } catch (err) {
    return ['EROFS', 'EACCES', 'EPERM'].includes(String((err as NodeJS.ErrnoException).code));
  }
}

// SQLite reads URI filenames only when the binding loads with this set: openReadOnlyMedia needs one
// (`?immutable=1`). Our own paths never start with "file:", so no other open changes meaning.
process.env.SQLITE_USE_URI ??= '1';

/**
 * A WAL database in a folder we cannot write, with no -shm file beside it (the last connection
 * closed cleanly): SQLite cannot create the shared-memory file, so it is opened as immutable media.
 * Only for reading; a read-only mount cannot change under us.
 */
function openReadOnlyMedia(file: string): Db {
  return Database(`${pathToFileURL(file).href}?immutable=1`, { readonly: true, fileMustExist: true });
}

export function openDb(file: string, opts: OpenOptions = {}): Db {
  if (file !== ':memory:') {
    if (!opts.readonly) ensurePrivateDir(path.dirname(file));
    if (!fs.existsSync(file) && !opts.readonly) {
      // create with 0600 before SQLite opens it, so the file is never world-readable
      fs.closeSync(fs.openSync(file, 'a', 0o600));
    }
  }
  let db: Db;
  try {
    db = Database(file, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
    if (opts.readonly && file !== ':memory:' && !fs.existsSync(`${file}-shm`) && !fs.existsSync(`${file}-wal`) && folderReadOnly(file)) {
      // SQLite opens lazily: the first read is what fails to create the -shm file
      try {
        db.pragma('schema_version', { simple: true });
      } catch (err) {
        if (String((err as { code?: unknown }).code) !== 'SQLITE_CANTOPEN') throw err;
        db.close();
        db = openReadOnlyMedia(file);
      }
    }
  } catch (err) {
    throw (
      named(err, file) ??
      new SleepError('DB_CORRUPT', `cannot open database ${file}: ${(err as Error).message}`, {
        hint: `run \`skillopt-sleep doctor\`; if it says the file is damaged: ${DAMAGED_DB_HINT}`,
        cause: err,
      })
    );
  }
  try {
    if (!opts.readonly && file !== ':memory:') setNewStorePageSize(db);
    db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
    // Reading the header catches "file is not a database" before anything is written.
    db.pragma('schema_version', { simple: true });
    // Refuse a newer schema before switching journal mode, which would rewrite the header.
    checkVersion(db, file);
    if (!opts.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
  } catch (err) {
    db.close();
    if (err instanceof SleepError) throw err;
    const which = named(err, file);
    if (which && which.code !== 'DB_CORRUPT') throw which;
    throw new SleepError('DB_CORRUPT', `database ${file} is not a valid SQLite database: ${(err as Error).message}`, { hint: DAMAGED_DB_HINT, cause: err });
  }
  if (file !== ':memory:') {
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      try {
        fs.chmodSync(f, 0o600);
      } catch {
        /* -wal/-shm may not exist yet */
      }
    }
  }
  if (!opts.readonly) migrate(db, file);
  else checkVersion(db, file);
  return db;
}

/**
 * The page size of a store this open creates: 16 KiB instead of SQLite's 4 KiB. A first harvest
 * writes the whole transcript history at once, and with 4 KiB pages the B-trees split four times
 * as often and the WAL is written and checkpointed in four times as many pages: on the bench
 * corpus (100 MB, 14 MB of store) ~4% of a cold harvest's CPU. Only an empty file (no page yet)
 * takes it, before its first table; an existing store keeps the size it was created with (a
 * change would need a VACUUM, which a WAL store does not even allow).
 */
export const NEW_STORE_PAGE_SIZE = 16_384;
function setNewStorePageSize(db: Db): void {
  if (db.pragma('page_count', { simple: true }) === 0) db.pragma(`page_size = ${NEW_STORE_PAGE_SIZE}`);
}

function checkVersion(db: Db, file: string): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > LATEST_VERSION) {
    throw new SleepError(
      'DB_TOO_NEW',
      `database ${file} has schema version ${current}, newer than this skillopt-sleep understands (${LATEST_VERSION})`,
      { hint: 'upgrade skillopt-sleep (npm i -g skillopt-sleep) or point SKILLOPT_SLEEP_HOME elsewhere' },
    );
  }
  return current;
}

/** Applies pending migrations, each in its own transaction; idempotent. */
export function migrate(db: Db, file = ':memory:'): number {
  const current = checkVersion(db, file);
  const pending = MIGRATIONS.filter((m) => m.version > current).sort((a, b) => a.version - b.version);
  for (const m of pending) {
    const apply = db.transaction(() => {
      // another process opening the same new store (the daemon and a command started together)
      // may have applied it while this one waited for the write lock
      if ((db.pragma('user_version', { simple: true }) as number) >= m.version) return;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    });
    try {
      apply.immediate();
    } catch (err) {
      // a full disk, a lock or a read-only folder is named with its own fix; what is left is our bug
      throw (
        named(err, file) ??
        new SleepError('INTERNAL', `migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, {
          hint: 'the database was left at the previous version and is fine; run again with --debug and report the message',
          cause: err,
        })
      );
    }
  }
  return db.pragma('user_version', { simple: true }) as number;
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * A page cache of at least `mb` MB for a big write (a first harvest inserts events at random
 * places in the indexes, which thrash SQLite's default 2 MB). A larger setting is kept.
 */
export function ensureCacheSize(db: Db, mb: number): void {
  const kib = mb * 1024;
  const current = db.pragma('cache_size', { simple: true }) as number;
  if (current > -kib && current < kib / 4) db.pragma(`cache_size = -${kib}`);
}

/**
 * Runs `fn` with foreign-key checks off when they are on and no transaction is open (inside one the
 * pragma is a no-op), and switches them back on after. For bulk writes whose rows are consistent
 * by construction; synchronous, so no other code runs on this connection meanwhile.
 */
export function withoutForeignKeys<T>(db: Db, fn: () => T): T {
  const fk = !db.inTransaction && db.pragma('foreign_keys', { simple: true }) === 1;
  if (fk) db.pragma('foreign_keys = OFF');
  try {
    return fn();
  } finally {
    if (fk) db.pragma('foreign_keys = ON');
  }
}

/** Folds the write-ahead log back into the database file and truncates it (at a clean stop). */
export function checkpointWal(db: Db): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
}
