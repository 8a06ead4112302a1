/**
 * `stat` of every listed file, the whole cost of an unchanged pass, on this thread.
 *
 * - Only the numbers a pass compares are kept, in one typed array: holding 10,000 `Stats` objects
 *   until the loop ends made each young-generation GC copy them (a profile put 10% of the pass in
 *   the scavenger).
 * - libuv's thread pool (`fs.stat`) was measured and not kept. Over 10,000 files it ran the
 *   system calls on the other core and made back-to-back rescans 15% faster (40–50 ms against
 *   48–53), but its first use in a process cost 100–190 ms against 80 for this loop, and in a
 *   fresh process it lost outright (280–320 ms against 230–285). A daemon rescans after a wake or
 *   a watcher overflow, hours apart: each rescan is closer to a first use than to a steady state.
 */
import fs from 'node:fs';
import type { FileStamp } from './tailer.js';

const FIELDS = 5; // kind (0 = missing: the array's initial value), dev, ino, size, mtimeMs
const FILE = 1;
const NOT_A_FILE = 2;
const FAILED = 3;

/** What `statMany` saw, per path in the order given. */
export class StatResults {
  private readonly values: Float64Array;
  private readonly errors = new Map<number, Error>();

  constructor(readonly length: number) {
    this.values = new Float64Array(length * FIELDS);
  }

  /** @internal */
  set(i: number, st: fs.Stats | undefined): void {
    const o = i * FIELDS;
    if (!st) return; // missing: kind stays 0
    this.values[o] = st.isFile() ? FILE : NOT_A_FILE;
    this.values[o + 1] = st.dev;
    this.values[o + 2] = st.ino;
    this.values[o + 3] = st.size;
    this.values[o + 4] = st.mtimeMs;
  }

  /** A stamp the path's adapter took itself (a session in a database: ../../adapters/types.ts RecordStore); null = gone. */
  setStamp(i: number, stamp: FileStamp | null): void {
    const o = i * FIELDS;
    this.values[o] = stamp ? FILE : 0;
    if (!stamp) return;
    this.values[o + 1] = stamp.dev;
    this.values[o + 2] = stamp.ino;
    this.values[o + 3] = stamp.size;
    this.values[o + 4] = stamp.mtimeMs;
  }

  /** @internal */
  fail(i: number, err: Error): void {
    this.values[i * FIELDS] = FAILED;
    this.errors.set(i, err);
  }

  /** The error that stopped this path's stat (not "it does not exist"), if any. */
  error(i: number): Error | undefined {
    return this.errors.get(i);
  }

  exists(i: number): boolean {
    const k = this.values[i * FIELDS];
    return k === FILE || k === NOT_A_FILE;
  }

  isFile(i: number): boolean {
    return this.values[i * FIELDS] === FILE;
  }

  mtimeMs(i: number): number {
    return this.values[i * FIELDS + 4];
  }

  /** Same file (device and inode), same size and same whole-millisecond mtime as `known`? */
  matches(i: number, known: readonly number[]): boolean {
    const o = i * FIELDS;
    const v = this.values;
    return known[0] === v[o + 1] && known[1] === v[o + 2] && known[2] === v[o + 3] && known[3] === Math.trunc(v[o + 4]);
  }

  sameFile(i: number, known: readonly number[]): boolean {
    const o = i * FIELDS;
    return known[0] === this.values[o + 1] && known[1] === this.values[o + 2];
  }

  stamp(i: number): FileStamp {
    const o = i * FIELDS;
    const v = this.values;
    return { dev: v[o + 1], ino: v[o + 2], size: v[o + 3], mtimeMs: Math.trunc(v[o + 4]) };
  }
}

/** `stamped`: stamps taken by the paths' adapters (sessions in a database, `storeStamps`), by index; `stat` serves the rest. */
export function statMany(paths: readonly string[], stamped?: ReadonlyMap<number, FileStamp | null>): StatResults {
  const out = new StatResults(paths.length);
  for (let i = 0; i < paths.length; i++) {
    const own = stamped?.get(i);
    if (own !== undefined) {
      out.setStamp(i, own);
      continue;
    }
    try {
      out.set(i, fs.statSync(paths[i], { throwIfNoEntry: false }));
    } catch (err) {
      // a file where a folder of the path should be: the path does not exist (Node 22's
      // throwIfNoEntry says so itself; Node 20 throws ENOTDIR), not an error of the file
      if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') out.set(i, undefined);
      else out.fail(i, err as Error);
    }
  }
  return out;
}
