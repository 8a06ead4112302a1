/**
 * Listing transcript folders: a depth-limited walk that treats missing or vanishing directories as
 * normal (agents create and delete them while we look), and path helpers for either separator.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DirReader } from '../types.js';

/** The plain directory reader: one `readdir` per call. */
export const readDirEntries: DirReader = (dir) => {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
};

/**
 * Lists files below `dir` (depth-limited) that `accept` keeps. Missing or vanishing directories
 * and unreadable entries are skipped: a tree that changes while we walk is normal.
 */
export function walkFiles(
  dir: string,
  accept: (p: string, name: string, depth: number) => boolean,
  maxDepth: number,
  prune?: (p: string, name: string) => boolean,
  readDir: DirReader = readDirEntries,
): string[] {
  const out: string[] = [];
  // children are joined by concatenation onto the normalized root (path.join per entry was a
  // visible share of an unchanged pass over thousands of files)
  const visit = (d: string, depth: number) => {
    const entries = readDir(d);
    if (!entries) return;
    const prefix = d === '.' ? '' : d.endsWith(path.sep) ? d : d + path.sep;
    for (const e of entries) {
      const p = prefix + e.name;
      if (e.isDirectory()) {
        if (depth < maxDepth && !(prune && prune(p, e.name))) visit(p, depth + 1);
      } else if ((e.isFile() || e.isSymbolicLink()) && accept(p, e.name, depth)) out.push(p);
    }
  };
  visit(path.normalize(dir), 0);
  return out;
}

/** Whether `p` is a directory now: the one check, in core/fsutil.ts. */
export { isDirectory as dirExists } from '../../src/core/fsutil.js';

/** Path helpers that work for either separator (transcript paths can come from any OS). */
export function segments(p: string): string[] {
  return p.split(/[\\/]+/).filter(Boolean);
}
