import type { Migration } from './types.js';

/**
 * An unchanged harvest pass reads only `(path, dev, ino, size, mtime_ms)` of every file row; the
 * rows themselves also carry the parser state (hundreds of bytes each), so a full table scan reads
 * several times the pages. A covering index makes that scan read the stamps alone (~30 → ~19 ms
 * over 10,000 files in a fresh process). Index only: no data moves.
 */
export const m005_files_stamp: Migration = {
  version: 5,
  name: 'files-stamp',
  sql: `
CREATE INDEX IF NOT EXISTS files_stamp ON files(path, dev, ino, size, mtime_ms);
`,
};
