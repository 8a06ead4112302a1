/**
 * The rollout cache table: one row per (skill text, task, target, judge, sample) key, holding the
 * scored rollout as JSON. Replay reads and writes it through RolloutCache; the review's re-scoring
 * looks up a document's rollouts by skill hash. Rows are returned raw: parsing is the caller's.
 */
import type { Db } from '../db.js';
import { cachedStatement } from './cached.js';

export function getRolloutRecord(db: Db, cacheKey: string): string | undefined {
  const row = cachedStatement(db, 'SELECT record FROM rollouts WHERE cache_key = ?').get(cacheKey) as { record: string } | undefined;
  return row?.record;
}

export function putRolloutRecord(db: Db, row: { cacheKey: string; taskId: string; skillHash: string; record: string; createdAt: number }): void {
  cachedStatement(
    db,
    'INSERT INTO rollouts (cache_key, task_id, skill_hash, record, created_at) VALUES (?, ?, ?, ?, ?) ' +
      'ON CONFLICT(cache_key) DO UPDATE SET record = excluded.record, created_at = excluded.created_at',
  ).run(row.cacheKey, row.taskId, row.skillHash, row.record, row.createdAt);
}

/** Drops every cached rollout of one task; returns how many. */
export function deleteTaskRollouts(db: Db, taskId: string): number {
  return db.prepare('DELETE FROM rollouts WHERE task_id = ?').run(taskId).changes;
}

/** Every cached rollout of one document (by its hash) on the given tasks. */
export function rolloutRecordsFor(db: Db, skillHash: string, taskIds: readonly string[]): Array<{ taskId: string; record: string }> {
  if (taskIds.length === 0) return [];
  const rows = db
    .prepare(`SELECT task_id, record FROM rollouts WHERE skill_hash = ? AND task_id IN (${taskIds.map(() => '?').join(',')})`)
    .all(skillHash, ...taskIds) as Array<{ task_id: string; record: string }>;
  return rows.map((r) => ({ taskId: r.task_id, record: r.record }));
}
