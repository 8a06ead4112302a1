/**
 * Directory listings kept between the harvest passes of one process (the daemon's rescans after
 * start, a wake or a watcher overflow), so an unchanged tree costs one `stat` per directory
 * instead of a `readdir` of it and a walk over its entries.
 *
 * A listing stays valid while its directory keeps the same inode, mtime and ctime: creating,
 * deleting or renaming an entry updates both times (POSIX requires it of the parent directory),
 * which is what git's untracked cache relies on too. Changes *inside* a listed file do not touch
 * its directory, which is why every file is still `stat`ed by the pass itself.
 *
 * Racy listings: on a filesystem with coarse timestamps, a second change in the same tick as the
 * one we saw would leave the times as they were. A listing is therefore kept only when its
 * directory last changed more than RACY_MS before we looked; a young directory is read again on
 * every pass until it settles.
 */
import fs from 'node:fs';
import type { Dirent } from 'node:fs';
import type { DirReader } from '../../adapters/types.js';

/** More than the coarsest common timestamp resolution (FAT: 2 s). */
export const RACY_MS = 2_500;
/** A bound on memory in a long-lived process: past it the cache starts over. */
const MAX_DIRS = 50_000;

/** What a directory looked like when it was listed; `ino: -1` = it did not exist. */
interface DirStamp {
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
}

interface Listing extends DirStamp {
  entries: readonly Dirent[];
}

/** A whole root's file list and every directory read to build it. */
interface RootListing {
  dirs: Array<[string, DirStamp]>;
  files: readonly string[];
}

const MISSING: DirStamp = { ino: -1, mtimeMs: 0, ctimeMs: 0 };

function statDir(dir: string): DirStamp | null {
  try {
    const st = fs.statSync(dir, { throwIfNoEntry: false });
    if (!st) return MISSING;
    return st.isDirectory() ? { ino: st.ino, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs } : MISSING;
  } catch {
    return null; // unreadable: never cached
  }
}

function sameStamp(a: DirStamp, b: DirStamp): boolean {
  return a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

export class DirListingCache {
  private readonly listings = new Map<string, Listing>();
  private readonly roots = new Map<string, RootListing>();
  /** directories read from disk; whole roots served from the cache (for tests and the bench) */
  reads = 0;
  rootHits = 0;
  /** folders that exist but could not be listed (permissions, a loop, an I/O error) since the last `takeUnreadable` */
  private unreadable = new Set<string>();

  /** `now`: the clock the racy window is measured on (tests move it forward) */
  constructor(private readonly now: () => number = Date.now) {}

  /**
   * The files of one root: `list` walks it with the reader it is given. When no directory that walk
   * read has changed since (one `stat` each), the previous result is returned as it was. The
   * result is shared: do not change it.
   */
  listRoot(key: string, list: (read: DirReader) => string[]): readonly string[] {
    const prev = this.roots.get(key);
    if (prev && prev.dirs.every(([dir, stamp]) => {
      const now = statDir(dir);
      return now !== null && sameStamp(now, stamp);
    })) {
      this.rootHits++;
      return prev.files;
    }
    const dirs: Array<[string, DirStamp]> = [];
    let settled = true;
    const files = list((dir) => {
      const r = this.readDir(dir);
      if (r.stamp && r.settled) dirs.push([dir, r.stamp]);
      else settled = false;
      return r.entries;
    });
    if (settled) this.roots.set(key, { dirs, files });
    else this.roots.delete(key);
    return files;
  }

  /** The folders that could not be listed since the last call (the harvest notes them). */
  takeUnreadable(): string[] {
    const out = [...this.unreadable];
    this.unreadable.clear();
    return out;
  }

  private readDir(dir: string): { entries: readonly Dirent[] | null; stamp: DirStamp | null; settled: boolean } {
    const now = this.now();
    const stamp = statDir(dir);
    if (!stamp || stamp.ino === -1) {
      this.listings.delete(dir);
      return { entries: null, stamp, settled: stamp !== null };
    }
    const cached = this.listings.get(dir);
    if (cached && sameStamp(cached, stamp)) {
      return { entries: cached.entries, stamp, settled: true };
    }
    let entries: Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // (a folder deleted while we looked is normal; one we may not read is worth a note)
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.unreadable.add(dir);
      this.listings.delete(dir);
      return { entries: null, stamp: null, settled: false };
    }
    this.reads++;
    // the times are from before the readdir: if the directory changed in between, the next pass
    // sees different times and reads it again
    const settled = now - Math.max(stamp.mtimeMs, stamp.ctimeMs) > RACY_MS;
    if (settled) {
      if (this.listings.size >= MAX_DIRS && !cached) this.listings.clear();
      this.listings.set(dir, { ...stamp, entries });
    } else {
      this.listings.delete(dir);
    }
    return { entries, stamp, settled };
  }
}
