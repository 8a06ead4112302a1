/**
 * Brings the nudge file (nudge-file.ts) up to date with the database: called when a CLI command
 * closes the store and at each daemon heartbeat.
 */
import type { Db } from './db.js';
import { countProposals } from './repos/proposal-counts.js';
import { writeNudgeCount } from './nudge-file.js';

/**
 * Counts, lets `release` run (closing the connection checkpoints the WAL, which changes the
 * database's signature), then records. Never throws: a read-only state folder or a full disk must
 * not fail the command that closes the store (`hooks nudge` then asks the database).
 */
export function refreshNudgeFile(db: Db, databaseFile: string, release: () => void = () => undefined): void {
  let staged: number | null = null;
  try {
    if (databaseFile !== ':memory:' && !db.readonly && db.open) staged = countProposals(db, 'staged');
  } catch {
    /* counted by the reader instead */
  }
  release();
  if (staged === null) return;
  try {
    writeNudgeCount(databaseFile, staged);
  } catch {
    /* the reader falls back to the database */
  }
}
