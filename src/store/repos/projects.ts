/** Project identities (root commit by path) and moving a project's rows to the path its repository moved to. */
import type { Db } from '../db.js';

export interface ProjectIdentity {
  path: string;
  rootCommit: string;
  checkedAt: number;
}

export function listProjectIdentities(db: Db): ProjectIdentity[] {
  return db.prepare('SELECT path, root_commit AS rootCommit, checked_at AS checkedAt FROM project_identity ORDER BY path').all() as ProjectIdentity[];
}

export function putProjectIdentity(db: Db, id: ProjectIdentity): void {
  db.prepare(
    `INSERT INTO project_identity(path, root_commit, checked_at) VALUES (?, ?, ?)
     ON CONFLICT(path) DO UPDATE SET root_commit = excluded.root_commit, checked_at = excluded.checked_at`,
  ).run(id.path, id.rootCommit, id.checkedAt);
}

export interface RelocatedCounts {
  sessions: number;
  tasks: number;
  clusterMembers: number;
}

/**
 * Moves everything recorded under project `from` to `to`, in one transaction: sessions (their
 * project, and their cwd when it lies inside `from`), tasks (column and record), cluster members,
 * and the identity row. `from` no longer exists on disk; `to` is the same repository.
 */
export function relocateProjectRows(db: Db, from: string, to: string): RelocatedCounts {
  return db.transaction((): RelocatedCounts => {
    const sessions = db.prepare('UPDATE sessions SET project = ? WHERE project = ?').run(to, from).changes;
    // a cwd inside the old folder points at the same place inside the new one
    db.prepare(`UPDATE sessions SET cwd = ? || substr(cwd, ?) WHERE cwd = ? OR substr(cwd, 1, ?) = ?`).run(to, from.length + 1, from, from.length + 1, `${from}/`);
    const tasks = db.prepare(`UPDATE tasks SET project = ?, record = json_set(record, '$.project', ?) WHERE project = ?`).run(to, to, from).changes;
    const clusterMembers = db.prepare('UPDATE cluster_members SET project = ? WHERE project = ?').run(to, from).changes;
    db.prepare('DELETE FROM project_identity WHERE path = ?').run(from);
    return { sessions, tasks, clusterMembers };
  })();
}
