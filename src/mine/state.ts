/**
 * Persistence of the mining state (migration 003): cluster centroids and keys, members with their
 * outcomes, document frequencies. Read lazily during a run, written in one transaction at the end.
 */
import type { Db } from '../store/db.js';
import { kvGet, kvSet } from '../store/repos/kv.js';
import { MutableDf, tierOf, type ClusterSource, type ClusterState } from './cluster.js';
import { termsFromJson, termsToJson } from './features.js';
import type { Outcome } from './outcome.js';
import { TaskSchema, type Task } from '../core/records.js';

const DOCS_KEY = 'mine.docs';

export function dbClusterSource(db: Db, maxPostings = 100): ClusterSource {
  const postings = db.prepare('SELECT cluster_id FROM cluster_keys WHERE term = ? AND big = ? LIMIT ?').pluck();
  const load = db.prepare('SELECT id, centroid, size, session_count, task_id, created_at FROM clusters WHERE id = ?');
  const member = db.prepare('SELECT 1 FROM cluster_members WHERE cluster_id = ? AND session_id = ? LIMIT 1').pluck();
  const keys = db.prepare('SELECT term FROM cluster_keys WHERE cluster_id = ?').pluck();
  return {
    postings: (term, tier) => postings.all(term, tier === 'big' ? 1 : 0, maxPostings) as string[],
    load: (id) => {
      const r = load.get(id) as
        | { id: string; centroid: string; size: number; session_count: number; task_id: string | null; created_at: number }
        | undefined;
      if (!r) return undefined;
      const state: ClusterState = {
        id: r.id,
        centroid: termsFromJson(JSON.parse(r.centroid) as Record<string, number>),
        size: r.size,
        sessionCount: r.session_count,
        keys: keys.all(id) as string[],
        keyTier: tierOf(r.size),
        taskId: r.task_id,
        createdAt: r.created_at,
      };
      return state;
    },
    hasSessionMember: (clusterId, sessionId) => member.get(clusterId, sessionId) !== undefined,
  };
}

/** Loads the document frequencies (the whole table: a few MB at most for years of prompts). */
export function loadDf(db: Db): MutableDf {
  const counts = new Map<string, number>();
  for (const r of db.prepare('SELECT term, df FROM mine_df').raw().iterate() as Iterable<[string, number]>) counts.set(r[0], r[1]);
  return new MutableDf(kvGet<number>(db, DOCS_KEY) ?? 0, counts);
}

export interface MemberRow {
  sessionId: string;
  seq: number;
  clusterId: string;
  project: string | null;
  agent: string;
  ts: number | null;
  similarity: number;
  prompt: string;
  outcome: Outcome;
}

/**
 * Writes changed clusters, their keys, new members and df changes; applies merges (members of an
 * absorbed cluster and its tasks move to the survivor, whose tasks are then re-synthesized). Call inside a transaction. Returns the recounted session counts of merge survivors.
 */
export function persistState(
  db: Db,
  clusters: ClusterState[],
  members: MemberRow[],
  df: MutableDf,
  now: number,
  merges: Array<[drop: string, keep: string]> = [],
): Map<string, number> {
  const upCluster = db.prepare(
    `INSERT INTO clusters(id, centroid, size, session_count, task_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(id) DO UPDATE SET centroid = excluded.centroid, size = excluded.size, session_count = excluded.session_count,
       task_id = excluded.task_id, updated_at = excluded.updated_at`,
  );
  const delKeys = db.prepare('DELETE FROM cluster_keys WHERE cluster_id = ?');
  const addKey = db.prepare('INSERT OR IGNORE INTO cluster_keys(term, big, cluster_id) VALUES (?, ?, ?)');
  for (const c of clusters) {
    upCluster.run(c.id, JSON.stringify(termsToJson(c.centroid)), c.size, c.sessionCount, c.taskId, c.createdAt, now);
    delKeys.run(c.id);
    const big = tierOf(c.size) === 'big' ? 1 : 0;
    for (const k of c.keys) addKey.run(k, big, c.id);
  }
  const move = db.prepare('UPDATE cluster_members SET cluster_id = ? WHERE cluster_id = ?');
  // an absorbed family's tasks move to the survivor with their ids and splits (see family.ts)
  const moveTasks = db.prepare('UPDATE tasks SET cluster_id = ? WHERE cluster_id = ?');
  const dropCluster = db.prepare('DELETE FROM clusters WHERE id = ?');
  for (const [drop, keep] of merges) {
    move.run(keep, drop);
    moveTasks.run(keep, drop);
    dropCluster.run(drop);
  }
  const addMember = db.prepare(
    `INSERT INTO cluster_members(session_id, event_seq, cluster_id, project, agent, ts, similarity, prompt, outcome)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(session_id, event_seq) DO UPDATE SET outcome = excluded.outcome`,
  );
  for (const m of members) {
    addMember.run(m.sessionId, m.seq, m.clusterId, m.project, m.agent, m.ts, m.similarity, m.prompt, JSON.stringify(m.outcome));
  }
  const upDf = db.prepare('INSERT INTO mine_df(term, df) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET df = excluded.df');
  for (const [t, n] of df.entries(df.changed)) upDf.run(t, n);
  df.changed.clear();
  kvSet(db, DOCS_KEY, df.docs, now);
  const recount = db.prepare('SELECT COUNT(DISTINCT session_id) FROM cluster_members WHERE cluster_id = ?').pluck();
  const setCount = db.prepare('UPDATE clusters SET session_count = ? WHERE id = ?');
  const counts = new Map<string, number>();
  for (const keep of new Set(merges.map((m) => m[1]))) {
    const n = recount.get(keep) as number;
    setCount.run(n, keep);
    counts.set(keep, n);
  }
  return counts;
}

export interface StoredMember {
  sessionId: string;
  seq: number;
  project: string | null;
  agent: string;
  ts: number | null;
  similarity: number;
  prompt: string;
  outcome: Outcome;
}

/** Members of a cluster, most recent first (bounded: big clusters are summarised by a sample). */
export function clusterMembers(db: Db, clusterId: string, limit = 500): StoredMember[] {
  const rows = db
    .prepare(
      `SELECT session_id, event_seq, project, agent, ts, similarity, prompt, outcome FROM cluster_members
       WHERE cluster_id = ? ORDER BY ts DESC, session_id, event_seq LIMIT ?`,
    )
    .all(clusterId, limit) as Array<{
    session_id: string;
    event_seq: number;
    project: string | null;
    agent: string;
    ts: number | null;
    similarity: number;
    prompt: string;
    outcome: string;
  }>;
  return rows.map((r) => ({
    sessionId: r.session_id,
    seq: r.event_seq,
    project: r.project,
    agent: r.agent,
    ts: r.ts,
    similarity: r.similarity,
    prompt: r.prompt,
    outcome: JSON.parse(r.outcome) as Outcome,
  }));
}

/** Existing member keys of a session (a resumed session is re-read; its old asks are not re-clustered). */
export function memberSeqs(db: Db, sessionId: string): Map<number, string> {
  const rows = db.prepare('SELECT event_seq, cluster_id FROM cluster_members WHERE session_id = ?').all(sessionId) as Array<{
    event_seq: number;
    cluster_id: string;
  }>;
  return new Map(rows.map((r) => [r.event_seq, r.cluster_id]));
}

/** The stored tasks of a family (its cluster), by id. */
export function familyTasks(db: Db, clusterId: string): Map<string, Task> {
  const rows = db.prepare('SELECT id, record FROM tasks WHERE cluster_id = ?').all(clusterId) as Array<{ id: string; record: string }>;
  const out = new Map<string, Task>();
  for (const r of rows) {
    const parsed = TaskSchema.safeParse(JSON.parse(r.record));
    if (parsed.success) out.set(r.id, parsed.data);
  }
  return out;
}
