/**
 * Which repository state a task's replay starts from: the session of its latest occurrence (its
 * cwd, branch and start time). A task with no recorded session (imported, dreamed) has none and is
 * replayed in an empty workspace.
 */
import type { Db } from '../store/db.js';
import type { ReplaySeed } from '../core/protocol.js';
import type { Task } from '../core/records.js';
import { latestOccurrenceSession } from '../store/repos/tasks.js';

export function replaySeedFor(db: Db, task: Task): ReplaySeed | undefined {
  const s = latestOccurrenceSession(db, task.id);
  const repo = s?.cwd ?? s?.project ?? null;
  if (!s || !repo) return undefined;
  return { repo, branch: s.gitBranch, before: s.startedAt ?? s.ts };
}
