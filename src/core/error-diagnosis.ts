/**
 * Names what went wrong when a failure is not one of ours: a system error (EROFS, EACCES/EPERM,
 * ENOSPC), an SQLite error (busy, damaged, full, read-only) or a native module that cannot load.
 * Each becomes a SleepError whose hint says what the user can do; "report it" is left for what we
 * cannot name. The advice never includes moving or deleting the database: that loses decisions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SleepError } from './errors.js';
import { packageRoot } from './version.js';

/** The data-safe way to deal with a damaged store (doctor --repair rebuilds from backups and records on disk). */
export const DAMAGED_DB_HINT =
  'run `skillopt-sleep doctor --repair`: it rebuilds the store from the newest backup and the proposal and apply records on disk; do not delete the file (copy it aside if you want to keep it)';

const BINDING_PATTERNS = [/could not locate the bindings file/i, /NODE_MODULE_VERSION/, /was compiled against a different Node\.js version/i, /better_sqlite3\.node/, /invalid ELF header/i];

/** True for a native addon (the SQLite binding) that is missing or built for another Node. */
export function isMissingBinding(err: unknown): boolean {
  const msg = err instanceof Error ? err.message : String(err);
  return BINDING_PATTERNS.some((re) => re.test(msg));
}

/** The command that rebuilds the SQLite binding where this copy of skillopt-sleep is installed. */
export function rebuildCommand(installDir = packageRoot()): string {
  return installDir ? `cd ${JSON.stringify(installDir)} && npm rebuild better-sqlite3` : 'npm rebuild better-sqlite3 (in the folder skillopt-sleep is installed in)';
}

function codeOf(err: unknown): string {
  return String((err as { code?: unknown } | null)?.code ?? '');
}

/** The path a system error names, if any. */
function pathOf(err: unknown): string | undefined {
  const p = (err as { path?: unknown } | null)?.path;
  return typeof p === 'string' ? p : undefined;
}

/** Refuses to go on in a state folder that cannot be written (a read-only mount, another user's folder), naming it. */
export function assertWritableFolder(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    const code = String((err as NodeJS.ErrnoException).code);
    const ro = code === 'EROFS' || (code === 'ENOENT' && readOnlyAncestor(dir));
    throw (
      diagnoseError(Object.assign(new Error(`cannot write ${dir}`), { code: ro ? 'EROFS' : code, path: dir })) ??
      new SleepError('INVALID_INPUT', `the state folder ${dir} cannot be written (${code})`, { hint: 'set SKILLOPT_SLEEP_HOME to a writable folder', cause: err })
    );
  }
}

/** A mkdir under a read-only mount fails with ENOENT for the missing part: the nearest existing folder says why. */
function readOnlyAncestor(dir: string): boolean {
  let cur = dir;
  while (!fs.existsSync(cur) && path.dirname(cur) !== cur) cur = path.dirname(cur);
  try {
    fs.accessSync(cur, fs.constants.W_OK);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EROFS';
  }
}

/**
 * A SleepError that says what happened and what to do, or null when the error is none of the kinds
 * we can name. `where` names the file involved when the error does not (an SQLite error).
 */
export function diagnoseError(err: unknown, where?: string): SleepError | null {
  if (!(err instanceof Error)) return null;
  const code = codeOf(err);
  // a system error names its own path; an SQLite one is about the file it was given
  const target = pathOf(err) ?? (code.startsWith('SQLITE_') || code.startsWith('E') ? where : undefined);
  const at = target ? ` (${target})` : '';
  const folder = target ? path.dirname(target) : 'the folder named above';
  if (isMissingBinding(err)) {
    return new SleepError('NATIVE_BINDING', `the SQLite module's native binding cannot be loaded: ${err.message.split('\n')[0]}`, {
      hint: `rebuild it for this Node (${process.version}): ${rebuildCommand()}; your data is fine, do not move it`,
      cause: err,
    });
  }
  if (code === 'EROFS' || code === 'SQLITE_READONLY_DIRECTORY' || (code.startsWith('SQLITE_READONLY') && code !== 'SQLITE_READONLY_DBMOVED')) {
    return new SleepError('READ_ONLY', `cannot write${at}: the file system or file is read-only (${code})`, {
      hint: `remount it read-write or set SKILLOPT_SLEEP_HOME to a writable folder; \`status\`, \`proposals list\`, \`history\` and \`skills\` still read a read-only state folder`,
      cause: err,
    });
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return new SleepError('NO_PERMISSION', `permission denied${at} (${code}): ${err.message}`, {
      hint: `give your user write access to ${folder} (\`ls -ld ${folder}\` shows the owner), then run again; nothing was changed there`,
      cause: err,
    });
  }
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL') {
    return new SleepError('DISK_FULL', `no space left${at} (${code})`, {
      hint: `free space on the disk that holds ${folder} (\`df -h ${folder}\`), then run again; files are written to a temporary name first, so none was left half-written`,
      cause: err,
    });
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new SleepError('DB_LOCKED', `the database${at} is locked by another process (${code})`, {
      hint: 'wait for the other skillopt-sleep process (a night, a harvest or the daemon: `skillopt-sleep status`) to finish, then run again; the file is fine',
      cause: err,
    });
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new SleepError('DB_CORRUPT', `the database${at} is damaged (${code}): ${err.message}`, { hint: DAMAGED_DB_HINT, cause: err });
  }
  return null;
}
