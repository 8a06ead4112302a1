/**
 * The transcript files the last harvests could not use, or used only in part: what `status` prints
 * and `doctor` warns about. Its own module so `status` loads no agent adapter (issue 40).
 */
import type { Db } from '../store/db.js';
import { fileProblems, type FileProblem } from '../store/repos/files.js';

/** A file's lost lines in a few words: `malformed 2, invalid-event 1`. */
function damageText(damaged: Record<string, number>): string {
  return Object.entries(damaged)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
}

/** What `status --json` says of the transcript files with a problem (`transcriptProblems`, docs/json/status.md). */
export interface TranscriptProblems {
  /** files whose last read failed or some of whose lines could not be stored */
  files: number;
  /** of those, files whose last read failed (their error) */
  errors: number;
  /** lines not stored, in all those files */
  damagedLines: number;
  /** the newest few: path, agent, error (null: read, some lines lost), damaged lines by reason, when (ms) */
  sample: FileProblem[];
}

export function transcriptProblems(db: Db, limit = 5): TranscriptProblems {
  const p = fileProblems(db, limit);
  return { files: p.count, errors: p.errors, damagedLines: p.damagedLines, sample: p.sample };
}

/** One line per problem file: its error, else its lost lines. */
export function describeProblem(f: FileProblem): string {
  const lost = damageText(f.damaged);
  return `${f.path} (${[f.error, lost ? `lines not stored: ${lost}` : ''].filter(Boolean).join('; ')})`;
}

