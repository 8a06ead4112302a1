/**
 * Brings the nudge file (nudge-file.ts) up to date with the database: called when a CLI command
 * closes the store and at each daemon heartbeat.
 */
import type { Db } from './db.js';
import { countProposals } from './repos/proposals.js';
import { writeNudgeCount } from './nudge-file.js';

/**
 * Never throws: a read-only state folder or a full disk must not fail the command that closes the
 * store (`hooks nudge` then falls back to the database).
 */
export function refreshNudgeFile(db: Db, databaseFile: string): void {
  if (databaseFile === ':memory:' || db.readonly || !db.open) return;
  try {
    writeNudgeCount(databaseFile, countProposals(db, 'staged'));
  } catch {
    /* the reader falls back to the database */
  }
}
