import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';

/**
 * Directories that may hold transcript text are private to the user: each folder this call creates
 * is 0700 whatever the umask. A folder that already exists keeps its mode: it may be the user's
 * or the system's (`export --out /tmp/x.json`, a store opened in a shared folder), and chmodding
 * it would change a target the product did not derive (run as root, that once made /tmp 0700).
 */
export function ensurePrivateDir(dir: string): void {
  const firstCreated = fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (firstCreated === undefined) return;
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    try {
      fs.chmodSync(d, 0o700);
    } catch {
      /* created a moment ago and already gone or not ours: the creation mode applied */
    }
    if (d === path.resolve(firstCreated) || d === path.dirname(d)) break;
  }
}

/**
 * Atomic write: temp file in the same directory, fsync, rename, fsync the directory.
 * A crash at any point leaves either the old file or the new one, never a partial one.
 */
export function writeFileAtomic(file: string, data: string | Buffer, opts: { mode?: number } = {}): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  let mode = opts.mode;
  if (mode === undefined) {
    try {
      mode = fs.statSync(file).mode & 0o777;
    } catch {
      mode = 0o644;
    }
  }
  const fd = fs.openSync(tmp, 'w', mode);
  try {
    try {
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    // a full disk mid-write or a failed rename: no half-written temp file is left beside the target
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fsyncDir(dir);
}

export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    /* some platforms cannot fsync a directory; rename is still atomic */
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export function sha256(data: string | Buffer): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

export function readIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The folders from the nearest existing ancestor of `dir` (exclusive) down to `dir`: what `mkdir -p` would create, top-down. */
export function missingDirs(dir: string): string[] {
  const out: string[] = [];
  let cur = path.resolve(dir);
  while (!fs.existsSync(cur)) {
    out.unshift(cur);
    const parent = path.dirname(cur);
    if (parent === cur) break;
    cur = parent;
  }
  return out;
}

/**
 * `mkdir -p` that says which folders it created itself (top-down), so whoever made them can
 * take exactly those away again and never a folder that was there before.
 */
export function makeDirsTracked(dir: string): string[] {
  const created: string[] = [];
  for (const d of missingDirs(dir)) {
    try {
      fs.mkdirSync(d);
      created.push(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return created;
}

/** Removes the folders of `dirs` that are empty, deepest first; returns the ones removed. */
export function removeEmptyDirs(dirs: string[]): string[] {
  const removed: string[] = [];
  for (const d of [...new Set(dirs)].sort((a, b) => b.length - a.length)) {
    try {
      if (!fs.lstatSync(d).isDirectory()) continue;
      fs.rmdirSync(d);
      removed.push(d);
    } catch {
      /* not empty, gone already, or not ours to remove */
    }
  }
  return removed;
}

/** Whether `p` is a directory now (false when it is missing, a file, or unreadable). */
export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
