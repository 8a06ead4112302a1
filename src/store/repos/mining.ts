/**
 * The mining state in the store (migration 003: clusters, their index keys, their members, document
 * frequencies) and the session/event reads mining needs. Every SQL statement of src/mine lives here,
 * so the mining code deals in clusters and asks, not in tables.
 */
import type { Db } from '../db.js';

/** Every mined ask and the cluster it is in (benches and diagnostics). */
export function clusterAssignments(db: Db): Array<{ sessionId: string; seq: number; clusterId: string }> {
  const rows = db.prepare('SELECT session_id, event_seq, cluster_id FROM cluster_members').raw().all() as Array<[string, number, string]>;
  return rows.map(([sessionId, seq, clusterId]) => ({ sessionId, seq, clusterId }));
}

/** Per family with tasks: the project its tasks carry (null = cross-project) and its members' projects. */
export function familyProjectsOfTasks(db: Db): Array<{ clusterId: string; taskProject: string | null; memberProjects: Array<string | null> }> {
  const fams = db
    .prepare("SELECT cluster_id, MAX(project IS NULL) AS anyNull, MAX(project) AS project FROM tasks WHERE cluster_id IS NOT NULL AND origin = 'real' GROUP BY cluster_id")
    .all() as Array<{ cluster_id: string; anyNull: number; project: string | null }>;
  const members = db.prepare('SELECT DISTINCT project FROM cluster_members WHERE cluster_id = ?').pluck();
  return fams.map((f) => ({
    clusterId: f.cluster_id,
    taskProject: f.anyNull ? null : f.project,
    memberProjects: members.all(f.cluster_id) as Array<string | null>,
  }));
}
