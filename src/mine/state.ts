/**
 * The mining state as the clusterer sees it: cluster centroids and keys, members with their
 * outcomes, document frequencies. Read lazily during a run, written in one transaction at the end.
 * The SQL lives in src/store/repos/mining.ts; this module converts rows to clusterer types.
 */
import type { Db } from '../store/db.js';
import { kvGet, kvSet } from '../store/repos/kv.js';
import { clusterMemberRows, clusterReads, documentFrequencyReader, familyTaskRecords, sessionMemberClusters, writeMiningState } from '../store/repos/mining.js';
import { MutableDf, tierOf, type ClusterSource, type ClusterState } from './cluster.js';
import { termsFromJson, termsToJson } from './features.js';
import type { Outcome } from './outcome.js';
import { TaskSchema, type Task } from '../core/records.js';

const DOCS_KEY = 'mine.docs';

export function dbClusterSource(db: Db, maxPostings = 100): ClusterSource {
  const reads = clusterReads(db);
  return {
    postings: (term, tier) => reads.postings(term, tier === 'big', maxPostings),
    load: (id) => {
      const r = reads.load(id);
      if (!r) return undefined;
      const state: ClusterState = {
        id: r.id,
        centroid: termsFromJson(JSON.parse(r.centroid) as Record<string, number>),
        size: r.size,
        sessionCount: r.sessionCount,
        keys: r.keys,
        keyTier: tierOf(r.size),
        taskId: r.taskId,
        createdAt: r.createdAt,
      };
      return state;
    },
    hasSessionMember: (clusterId, sessionId) => reads.hasSessionMember(clusterId, sessionId),
  };
}

/** The document frequencies, each term read from the store when first needed. */
export function loadDf(db: Db): MutableDf {
  return new MutableDf(kvGet<number>(db, DOCS_KEY) ?? 0, new Map(), documentFrequencyReader(db));
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
 * absorbed cluster and its tasks move to the survivor, whose tasks are then re-synthesized). Call
 * inside a transaction. Returns the recounted session counts of merge survivors.
 */
export function persistState(
  db: Db,
  clusters: ClusterState[],
  members: MemberRow[],
  df: MutableDf,
  now: number,
  merges: Array<[drop: string, keep: string]> = [],
): Map<string, number> {
  const counts = writeMiningState(db, {
    clusters: clusters.map((c) => ({
      id: c.id,
      centroid: JSON.stringify(termsToJson(c.centroid)),
      size: c.size,
      sessionCount: c.sessionCount,
      taskId: c.taskId,
      createdAt: c.createdAt,
      keys: c.keys,
      big: tierOf(c.size) === 'big',
    })),
    merges,
    members: members.map((m) => ({ ...m, outcome: JSON.stringify(m.outcome) })),
    df: df.entries(df.changed),
    now,
  });
  df.changed.clear();
  kvSet(db, DOCS_KEY, df.docs, now);
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
  return clusterMemberRows(db, clusterId, limit).map((r) => ({ ...r, outcome: JSON.parse(r.outcome) as Outcome }));
}

/** Existing member keys of a session (a resumed session is re-read; its old asks are not re-clustered). */
export function memberSeqs(db: Db, sessionId: string): Map<number, string> {
  return sessionMemberClusters(db, sessionId);
}

/** The stored tasks of a family (its cluster), by id. */
export function familyTasks(db: Db, clusterId: string): Map<string, Task> {
  const out = new Map<string, Task>();
  for (const r of familyTaskRecords(db, clusterId)) {
    const parsed = TaskSchema.safeParse(JSON.parse(r.record));
    if (parsed.success) out.set(r.id, parsed.data);
  }
  return out;
}
