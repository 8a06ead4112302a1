/**
 * The mining state in the store (migration 003: clusters, their index keys, their members, document
 * frequencies) and the session/event reads mining needs. Every SQL statement of src/mine lives here,
 * so the mining code deals in clusters and asks, not in tables. Rows go in and out as plain data
 * (JSON columns as text); src/mine/state.ts turns them into the clusterer's types.
 */
import type { Db } from '../db.js';

// ---- sessions and events to mine ----------------------------------------------------------------

export interface SessionToMine {
  id: string;
  agent: string;
  project: string | null;
  updated_at: number;
  mined_at: number | null;
}

/** Interactive and headless sessions never mined or grown since (all of them on a refresh), oldest first. */
export function sessionsToMine(db: Db, opts: { refresh: boolean; project?: string }): SessionToMine[] {
  return db
    .prepare(
      `SELECT id, agent, project, updated_at, mined_at FROM sessions
       WHERE kind IN ('interactive','headless') ${opts.refresh ? '' : 'AND (mined_at IS NULL OR mined_at < updated_at)'}
       ${opts.project !== undefined ? 'AND project = @project' : ''}
       ORDER BY COALESCE(started_at, 0), id`,
    )
    .all(opts.project !== undefined ? { project: opts.project } : {}) as SessionToMine[];
}

/** seq, ts, role, kind, tool_name, is_error, text, meta.final, meta.interrupted, meta.skill, meta.callId, meta.wrote */
export type MinedEventTuple = [number, number | null, string, string, string | null, number, string, unknown, unknown, unknown, unknown, unknown];

/**
 * A reader of one session's events, with only what outcome inference needs: a prompt's text, the
 * heads of other texts, flags and skills from meta; a tool call's input in full when it may name a
 * skill (`skillTools`: the vendors' skill tool names, or a read of a SKILL.md), else its head (the
 * file written or the command run: what the agent did, src/mine/work.ts, and what it verified).
 * Outcome evidence (src/mine/kept/artifacts.ts) reads more: a `git commit` command in full (its
 * message), a final reply's head long enough for a proposed commit message, the call id that
 * pairs a result with its command, and the content a whole-file write stored (`meta.wrote`).
 */
export function sessionEventReader(db: Db, skillTools: readonly string[]): (sessionId: string) => MinedEventTuple[] {
  const names = skillTools.length ? skillTools.map((_, i) => `@t${i}`).join(', ') : "''";
  const stmt = db
    .prepare(
      `SELECT seq, ts, role, kind, tool_name, is_error,
         CASE WHEN kind = 'prompt' THEN text
           WHEN kind = 'tool_call' THEN CASE WHEN instr(text, 'commit') > 0 AND instr(text, 'git') > 0 THEN text
             WHEN tool_name IN (${names}) OR instr(text, 'SKILL.md') > 0 THEN substr(text, 1, 400) ELSE substr(text, 1, 300) END
           WHEN kind = 'text' AND instr(text, 'commit') > 0 THEN substr(text, 1, 4000)
           ELSE substr(text, 1, 400) END AS text,
         json_extract(meta, '$.final') AS final, json_extract(meta, '$.interrupted') AS interrupted, json_extract(meta, '$.skill') AS skill,
         json_extract(meta, '$.callId') AS call_id, CASE WHEN kind = 'tool_call' THEN json_extract(meta, '$.wrote') END AS wrote
       FROM events WHERE sid = (SELECT sid FROM sessions WHERE id = @sid) ORDER BY seq`,
    )
    .raw();
  const params: Record<string, string> = {};
  skillTools.forEach((t, i) => (params[`t${i}`] = t));
  return (sessionId) => stmt.all({ ...params, sid: sessionId }) as MinedEventTuple[];
}

/** Marks sessions mined (with the time they count as mined up to). Call inside a transaction. */
export function markSessionsMined(db: Db, rows: Array<{ id: string; minedAt: number }>): void {
  const stmt = db.prepare('UPDATE sessions SET mined_at = ? WHERE id = ?');
  for (const r of rows) stmt.run(r.minedAt, r.id);
}

// ---- clusters ----------------------------------------------------------------------------------

export interface ClusterRow {
  id: string;
  /** JSON {term: weight} */
  centroid: string;
  size: number;
  sessionCount: number;
  taskId: string | null;
  createdAt: number;
  keys: string[];
  miner?: string;
  /** JSON of the last cluster review of this cluster (llm review pass), if any */
  review?: string | null;
}

/** Lazy reads of the cluster index, with statements prepared once per run. */
export interface ClusterReads {
  postings(term: string, big: boolean, limit: number): string[];
  load(id: string): ClusterRow | undefined;
  hasSessionMember(clusterId: string, sessionId: string): boolean;
}

export function clusterReads(db: Db): ClusterReads {
  const postings = db.prepare('SELECT cluster_id FROM cluster_keys WHERE term = ? AND big = ? LIMIT ?').pluck();
  const load = db.prepare('SELECT id, centroid, size, session_count, task_id, created_at, miner FROM clusters WHERE id = ?');
  const member = db.prepare('SELECT 1 FROM cluster_members WHERE cluster_id = ? AND session_id = ? LIMIT 1').pluck();
  const keys = db.prepare('SELECT term FROM cluster_keys WHERE cluster_id = ?').pluck();
  return {
    postings: (term, big, limit) => postings.all(term, big ? 1 : 0, limit) as string[],
    load: (id) => {
      const r = load.get(id) as { id: string; centroid: string; size: number; session_count: number; task_id: string | null; created_at: number; miner: string } | undefined;
      if (!r) return undefined;
      return { id: r.id, centroid: r.centroid, size: r.size, sessionCount: r.session_count, taskId: r.task_id, createdAt: r.created_at, keys: keys.all(id) as string[], miner: r.miner };
    },
    hasSessionMember: (clusterId, sessionId) => member.get(clusterId, sessionId) !== undefined,
  };
}

/** A reader of one term's document frequency (0 when never seen), with its statement prepared once. */
export function documentFrequencyReader(db: Db): (term: string) => number {
  const stmt = db.prepare('SELECT df FROM mine_df WHERE term = ?').pluck();
  return (term) => (stmt.get(term) as number | undefined) ?? 0;
}

/**
 * One ask in a cluster, the one shape the miner writes, reads back and reports on. `O` is its
 * outcome: JSON text in the store, the parsed `Outcome` in the miner.
 */
export interface ClusterMember<O = string> {
  sessionId: string;
  seq: number;
  project: string | null;
  agent: string;
  ts: number | null;
  similarity: number;
  prompt: string;
  outcome: O;
  /** the prompt's normalised and near-duplicate keys (migration 011; null or absent: computed on a later run) */
  askKey?: string | null;
  dedupeKey?: string | null;
}

/** A member with the cluster it belongs to (what is written; a read of one cluster knows it already). */
export type PlacedMember<O = string> = ClusterMember<O> & { clusterId: string };

/**
 * Writes changed clusters (and their index keys under the tier `big`), applies merges (members and
 * tasks of an absorbed cluster move to the survivor), writes new members (an existing member only
 * gets its outcome updated) and df changes. Call inside a transaction. Returns the recounted
 * session counts of merge survivors.
 */
export function writeMiningState(
  db: Db,
  w: {
    clusters: Array<Omit<ClusterRow, 'miner' | 'review'> & { big: boolean }>;
    merges: Array<[drop: string, keep: string]>;
    members: PlacedMember[];
    df: Array<[string, number]>;
    now: number;
  },
): Map<string, number> {
  const upCluster = db.prepare(
    `INSERT INTO clusters(id, centroid, size, session_count, task_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(id) DO UPDATE SET centroid = excluded.centroid, size = excluded.size, session_count = excluded.session_count,
       task_id = excluded.task_id, updated_at = excluded.updated_at`,
  );
  const delKeys = db.prepare('DELETE FROM cluster_keys WHERE cluster_id = ?');
  const addKey = db.prepare('INSERT OR IGNORE INTO cluster_keys(term, big, cluster_id) VALUES (?, ?, ?)');
  for (const c of w.clusters) {
    upCluster.run(c.id, c.centroid, c.size, c.sessionCount, c.taskId, c.createdAt, w.now);
    delKeys.run(c.id);
    for (const k of c.keys) addKey.run(k, c.big ? 1 : 0, c.id);
  }
  mergeClusters(db, w.merges);
  const addMember = db.prepare(
    `INSERT INTO cluster_members(session_id, event_seq, cluster_id, project, agent, ts, similarity, prompt, outcome, ask_key, dedupe_key)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(session_id, event_seq) DO UPDATE SET outcome = excluded.outcome,
       ask_key = COALESCE(excluded.ask_key, cluster_members.ask_key), dedupe_key = COALESCE(excluded.dedupe_key, cluster_members.dedupe_key)`,
  );
  for (const m of w.members) addMember.run(m.sessionId, m.seq, m.clusterId, m.project, m.agent, m.ts, m.similarity, m.prompt, m.outcome, m.askKey ?? null, m.dedupeKey ?? null);
  const upDf = db.prepare('INSERT INTO mine_df(term, df) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET df = excluded.df');
  for (const [t, n] of w.df) upDf.run(t, n);
  const counts = new Map<string, number>();
  for (const keep of new Set(w.merges.map((m) => m[1]))) counts.set(keep, recountSessions(db, keep));
  return counts;
}

/** Folds absorbed clusters into their survivors: members and tasks move (ids and splits kept). */
export function mergeClusters(db: Db, merges: Array<[drop: string, keep: string]>): void {
  if (!merges.length) return;
  const move = db.prepare('UPDATE cluster_members SET cluster_id = ? WHERE cluster_id = ?');
  const moveTasks = db.prepare('UPDATE tasks SET cluster_id = ? WHERE cluster_id = ?');
  const dropCluster = db.prepare('DELETE FROM clusters WHERE id = ?');
  for (const [drop, keep] of merges) {
    move.run(keep, drop);
    moveTasks.run(keep, drop);
    dropCluster.run(drop);
  }
}

/** Recounts a cluster's distinct sessions and stores the count. */
export function recountSessions(db: Db, clusterId: string): number {
  const n = db.prepare('SELECT COUNT(DISTINCT session_id) FROM cluster_members WHERE cluster_id = ?').pluck().get(clusterId) as number;
  db.prepare('UPDATE clusters SET session_count = ? WHERE id = ?').run(n, clusterId);
  return n;
}

/** Members of a cluster, most recent first (bounded: big clusters are summarised by a sample). */
export function clusterMemberRows(db: Db, clusterId: string, limit = 500): ClusterMember[] {
  return db
    .prepare(
      `SELECT session_id AS sessionId, event_seq AS seq, project, agent, ts, similarity, prompt, outcome, ask_key AS askKey, dedupe_key AS dedupeKey FROM cluster_members
       WHERE cluster_id = ? ORDER BY ts DESC, session_id, event_seq LIMIT ?`,
    )
    .all(clusterId, limit) as ClusterMember[];
}

/** One member as a tuple: session, seq, project, agent, ts, similarity, prompt, outcome (JSON), ask key, dedupe key. */
export type MemberTuple = [string, number, string | null, string, number | null, number, string, string, string | null, string | null];

/**
 * Members of a cluster as tuples, most recent first: the read that re-synthesizing a family makes
 * of every one of its asks (thousands, on every run that touches it), where building a named row
 * object per ask only to copy it again costs more than the read.
 */
export function clusterMemberTuples(db: Db, clusterId: string, limit: number): MemberTuple[] {
  return db
    .prepare(
      `SELECT session_id, event_seq, project, agent, ts, similarity, prompt, outcome, ask_key, dedupe_key FROM cluster_members
       WHERE cluster_id = ? ORDER BY ts DESC, session_id, event_seq LIMIT ?`,
    )
    .raw()
    .all(clusterId, limit) as MemberTuple[];
}

/**
 * Stored asks whose keys are missing (`all`: every ask, when the key functions changed), in pages
 * of `limit` after the given rowid, for the backfill of migration 011.
 */
export function membersNeedingKeys(db: Db, opts: { all: boolean; afterRowid: number; limit: number }): Array<{ rowid: number; prompt: string }> {
  return db
    .prepare(`SELECT rowid, prompt FROM cluster_members WHERE rowid > ? ${opts.all ? '' : 'AND (ask_key IS NULL OR dedupe_key IS NULL)'} ORDER BY rowid LIMIT ?`)
    .all(opts.afterRowid, opts.limit) as Array<{ rowid: number; prompt: string }>;
}

/** Stores computed keys of stored asks (by rowid). Call inside a transaction. */
export function setMemberKeys(db: Db, rows: Array<{ rowid: number; askKey: string; dedupeKey: string }>): void {
  const stmt = db.prepare('UPDATE cluster_members SET ask_key = ?, dedupe_key = ? WHERE rowid = ?');
  for (const r of rows) stmt.run(r.askKey, r.dedupeKey, r.rowid);
}

/** Existing member keys of a session (seq → cluster). */
export function sessionMemberClusters(db: Db, sessionId: string): Map<number, string> {
  const rows = db.prepare('SELECT event_seq, cluster_id FROM cluster_members WHERE session_id = ?').raw().all(sessionId) as Array<[number, string]>;
  return new Map(rows);
}

/** Every mined ask and the cluster it is in (benches and diagnostics). */
export function clusterAssignments(db: Db): Array<{ sessionId: string; seq: number; clusterId: string }> {
  const rows = db.prepare('SELECT session_id, event_seq, cluster_id FROM cluster_members').raw().all() as Array<[string, number, string]>;
  return rows.map(([sessionId, seq, clusterId]) => ({ sessionId, seq, clusterId }));
}

/** Moves some members to another (possibly new) cluster; used when a cluster is split. Call inside a transaction. */
export function moveMembers(db: Db, to: string, members: Array<{ sessionId: string; seq: number }>): void {
  const stmt = db.prepare('UPDATE cluster_members SET cluster_id = ? WHERE session_id = ? AND event_seq = ?');
  for (const m of members) stmt.run(to, m.sessionId, m.seq);
}

/** Stored task records of a family (its cluster). */
export function familyTaskRecords(db: Db, clusterId: string): Array<{ id: string; record: string }> {
  return db.prepare('SELECT id, record FROM tasks WHERE cluster_id = ?').all(clusterId) as Array<{ id: string; record: string }>;
}

/** A predicate: does a cluster have a task a person curated (imported, or reviewed)? */
export function curatedClusterCheck(db: Db): (clusterId: string) => boolean {
  const stmt = db
    .prepare("SELECT 1 FROM tasks WHERE cluster_id = ? AND (origin = 'imported' OR json_extract(record, '$.reviewed') = 1) LIMIT 1")
    .pluck();
  return (id) => stmt.get(id) !== undefined;
}

/** Who wrote a cluster's task definition (heuristic | llm), if the cluster exists. */
export function clusterMinerReader(db: Db): (clusterId: string) => string | undefined {
  const stmt = db.prepare('SELECT miner FROM clusters WHERE id = ?').pluck();
  return (id) => stmt.get(id) as string | undefined;
}

/** Records the first task and the miner of each written family. Call inside a transaction. */
export function setClusterTasks(db: Db, rows: Array<{ clusterId: string; taskId: string | null; miner: string }>): void {
  const stmt = db.prepare('UPDATE clusters SET task_id = ?, miner = ? WHERE id = ?');
  for (const r of rows) stmt.run(r.taskId, r.miner, r.clusterId);
}

/** Clusters in the store and how many recur (seen in at least `minSessions` sessions). */
export function clusterCounts(db: Db, minSessions: number): { clusters: number; recurring: number } {
  const r = db.prepare('SELECT COUNT(*) AS clusters, SUM(session_count >= ?) AS recurring FROM clusters').get(minSessions) as { clusters: number; recurring: number | null };
  return { clusters: r.clusters, recurring: r.recurring ?? 0 };
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

/**
 * Moves the tasks of some asks (by their occurrences) from one family to another, keeping their ids
 * and splits, when a split moved those asks. Call inside a transaction.
 */
export function moveTasksOfMembers(db: Db, from: string, to: string, members: Array<{ sessionId: string; seq: number }>): void {
  const stmt = db.prepare(
    'UPDATE tasks SET cluster_id = ? WHERE cluster_id = ? AND id IN (SELECT task_id FROM task_occurrences WHERE session_id = ? AND event_seq = ?)',
  );
  for (const m of members) stmt.run(to, from, m.sessionId, m.seq);
}

/** Marks sessions to be read again by the next mining run (their families are re-synthesized). */
export function markSessionsUnmined(db: Db, sessionIds: Iterable<string>): void {
  const stmt = db.prepare('UPDATE sessions SET mined_at = NULL WHERE id = ?');
  for (const id of new Set(sessionIds)) stmt.run(id);
}

/** Pairs of active tasks in different splits fed by the same prompt (at most 100): a holdout leak. */
export function occurrencesSharedAcrossSplits(db: Db): Array<{ a: string; b: string; sa: string; sb: string; s: string; q: number }> {
  return db
    .prepare(
      `SELECT a.task_id AS a, b.task_id AS b, ta.split AS sa, tb.split AS sb, a.session_id AS s, a.event_seq AS q
       FROM task_occurrences a JOIN task_occurrences b ON a.session_id = b.session_id AND a.event_seq = b.event_seq AND a.task_id < b.task_id
       JOIN tasks ta ON ta.id = a.task_id JOIN tasks tb ON tb.id = b.task_id
       WHERE ta.split <> tb.split AND ta.status = 'active' AND tb.status = 'active' LIMIT 100`,
    )
    .all() as Array<{ a: string; b: string; sa: string; sb: string; s: string; q: number }>;
}

/**
 * The active tasks' split facts (id, project, intent, split, origin, status, family) from the
 * table's columns, without parsing each record: what a mining run's summary (split counts, thin
 * projects, split integrity) needs of every task in the store. Oldest first, as listTasks.
 */
export function activeTaskSplitFacts(db: Db): Array<{ id: string; project: string | null; intent: string; split: 'train' | 'val' | 'test'; origin: 'real' | 'dream' | 'imported'; status: 'active'; family: string | null }> {
  return db
    .prepare(
      `SELECT id, project, intent, split, origin, status, json_extract(record, '$.family') AS family FROM tasks
       WHERE status = 'active' ORDER BY created_at, id`,
    )
    .all() as Array<{ id: string; project: string | null; intent: string; split: 'train' | 'val' | 'test'; origin: 'real' | 'dream' | 'imported'; status: 'active'; family: string | null }>;
}
