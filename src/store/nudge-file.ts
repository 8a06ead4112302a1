/**
 * The nudge file: how many proposals wait for review, kept beside the database (state/nudge.json)
 * so `hooks nudge`, which runs at the start of every agent session, answers from one small file
 * without loading the SQLite binding or the store (issue 40).
 *
 * Written (nudge-refresh.ts) by whoever may have changed the count: every CLI command that opened the store, when it
 * closes it, and the daemon at each heartbeat (a night stages from its own process). The reader
 * treats a missing or unreadable file as "unknown" and its caller falls back to the database.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../core/fsutil.js';

export const NUDGE_FILE = 'nudge.json';

interface NudgeRecord {
  staged: number;
  at: number;
}

export function nudgeFilePath(databaseFile: string): string {
  return path.join(path.dirname(databaseFile), NUDGE_FILE);
}

/** Staged proposals as last recorded, or null when the file is missing or unreadable. */
export function readNudgeCount(databaseFile: string): number | null {
  try {
    const rec = JSON.parse(fs.readFileSync(nudgeFilePath(databaseFile), 'utf8')) as Partial<NudgeRecord>;
    return typeof rec.staged === 'number' && Number.isInteger(rec.staged) && rec.staged >= 0 ? rec.staged : null;
  } catch {
    return null;
  }
}

/** Records the staged count when it changed (nudge-refresh.ts counts it; this module stays free of the store). */
export function writeNudgeCount(databaseFile: string, staged: number): void {
  if (readNudgeCount(databaseFile) === staged) return;
  writeFileAtomic(nudgeFilePath(databaseFile), JSON.stringify({ staged, at: Date.now() } satisfies NudgeRecord) + '\n', { mode: 0o600 });
}
