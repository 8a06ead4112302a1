/**
 * Rejected edits per skill: edits the gate measured as harmful (with the score drop) and edits the
 * user rejected in review. They are fed to later reflection so the optimizer does not propose them
 * again, and they outlive a run (resume, next night). `source` says why: `gate` = banned by a
 * validation drop the gate's interval called real (or a second noisy drop), `user` = rejected in
 * review, `demoted` = one drop that could be noise (kept as a record, not banned).
 */
import type { Db } from '../db.js';

export interface RejectedEditRow {
  skillKey: string;
  editHash: string;
  op: 'add' | 'delete' | 'replace';
  anchor: string | null;
  content: string;
  reason: string | null;
  scoreDrop: number | null;
  source: 'gate' | 'user' | 'demoted';
  createdAt: number;
}

interface RawRow {
  skill_key: string;
  edit_hash: string;
  op: string;
  anchor: string | null;
  content: string;
  reason: string | null;
  score_drop: number | null;
  source: string;
  created_at: number;
}

const fromRaw = (r: RawRow): RejectedEditRow => ({
  skillKey: r.skill_key,
  editHash: r.edit_hash,
  op: r.op as RejectedEditRow['op'],
  anchor: r.anchor,
  content: r.content,
  reason: r.reason,
  scoreDrop: r.score_drop,
  source: r.source as RejectedEditRow['source'],
  createdAt: r.created_at,
});

/** Inserts, or on a repeat keeps the larger measured drop and the latest reason. */
export function recordRejectedEdit(db: Db, row: Omit<RejectedEditRow, 'createdAt'> & { createdAt?: number }): void {
  db.prepare(
    `INSERT INTO rejected_edits (skill_key, edit_hash, op, anchor, content, reason, score_drop, source, created_at)
     VALUES (@skillKey, @editHash, @op, @anchor, @content, @reason, @scoreDrop, @source, @createdAt)
     ON CONFLICT (skill_key, edit_hash, source) DO UPDATE SET
       reason = excluded.reason,
       score_drop = CASE WHEN rejected_edits.score_drop IS NULL THEN excluded.score_drop
                         WHEN excluded.score_drop IS NULL THEN rejected_edits.score_drop
                         ELSE max(rejected_edits.score_drop, excluded.score_drop) END,
       created_at = excluded.created_at`,
  ).run({ ...row, createdAt: row.createdAt ?? Date.now() });
}

export function listRejectedEdits(db: Db, skillKey: string): RejectedEditRow[] {
  return (db.prepare(`SELECT * FROM rejected_edits WHERE skill_key = ? ORDER BY created_at, id`).all(skillKey) as RawRow[]).map(fromRaw);
}

/** One line for the review: why this edit is banned, or that it is only demoted. */
export function banLine(row: Pick<RejectedEditRow, 'source' | 'reason' | 'scoreDrop'>): string {
  const drop = row.scoreDrop === null ? '' : ` (val drop ${row.scoreDrop.toFixed(3)})`;
  if (row.source === 'user') return `banned: rejected by the user${row.reason ? ` — ${row.reason}` : ''}`;
  if (row.source === 'demoted') return `demoted, not banned: one drop that could be noise${drop}${row.reason ? ` — ${row.reason}` : ''}`;
  return `banned: ${row.reason ?? 'validation drop'}${drop}`;
}

/** The stored verdicts on one edit (any source), for the review's "why banned" line. */
export function rejectedEditVerdicts(db: Db, skillKeys: string[], editHash: string): RejectedEditRow[] {
  if (!skillKeys.length) return [];
  const marks = skillKeys.map(() => '?').join(', ');
  return (db.prepare(`SELECT * FROM rejected_edits WHERE edit_hash = ? AND skill_key IN (${marks}) ORDER BY created_at, id`).all(editHash, ...skillKeys) as RawRow[]).map(fromRaw);
}

/** Every rejected edit whose hash starts with `prefix` (any skill, any source). */
export function findRejectedEditsByHashPrefix(db: Db, prefix: string): RejectedEditRow[] {
  const like = `${prefix.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return (db.prepare(`SELECT * FROM rejected_edits WHERE edit_hash LIKE ? ESCAPE '\\' ORDER BY created_at, id`).all(like) as RawRow[]).map(fromRaw);
}

/** Removes an edit from a skill's rejected list (every source); returns how many rows went. */
export function deleteRejectedEdit(db: Db, skillKey: string, editHash: string): number {
  return db.prepare(`DELETE FROM rejected_edits WHERE skill_key = ? AND edit_hash = ?`).run(skillKey, editHash).changes;
}

/** How many edits the user's rejections ban (every skill). */
export function countUserBans(db: Db): number {
  return (db.prepare("SELECT count(*) AS n FROM rejected_edits WHERE source = 'user'").get() as { n: number }).n;
}
