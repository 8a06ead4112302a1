/**
 * The mining state as the clusterer sees it: cluster centroids and keys, members with their
 * outcomes, document frequencies. Read lazily during a run, written in one transaction at the end.
 * The SQL lives in src/store/repos/mining.ts; this module converts rows to clusterer types.
 */
import type { Db } from '../store/db.js';
import { kvGet, kvSet } from '../store/repos/kv.js';
import {
  clusterMemberTuples,
  clusterReads,
  documentFrequencyReader,
  familyTaskRecords,
  membersNeedingKeys,
  sessionMemberClusters,
  setMemberKeys,
  writeMiningState,
  type ClusterMember,
  type PlacedMember,
} from '../store/repos/mining.js';
import { ASK_KEYS_VERSION, askKeysOf } from './ask-keys.js';
import { MutableDf, tierOf, type ClusterSource, type ClusterState } from './cluster.js';
import { termsFromJson, termsToJson } from './features.js';
import type { Outcome } from './outcome.js';
import { AgentId, TaskSchema, type Task } from '../core/records.js';

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

/** An ask the miner placed in a cluster, its outcome parsed. */
export type MemberRow = PlacedMember<Outcome>;

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

/** An ask read back from one cluster, its outcome parsed (keys absent on an ask not yet backfilled: family.ts computes them then). */
export type StoredMember = ClusterMember<Outcome>;

/** Members of a cluster, most recent first (bounded: big clusters are summarised by a sample). */
export function clusterMembers(db: Db, clusterId: string, limit = 500): StoredMember[] {
  // (tuples read, fields spelled out: a family of thousands of asks is read on every run that
  // touches it, and named rows copied by object spread cost more than the read itself)
  return clusterMemberTuples(db, clusterId, limit).map(([sessionId, seq, project, agent, ts, similarity, prompt, outcome, askKey, dedupeKey]) => {
    const m: StoredMember = { sessionId, seq, project, agent, ts, similarity, prompt, outcome: JSON.parse(outcome) as Outcome };
    if (askKey !== null) m.askKey = askKey;
    if (dedupeKey !== null) m.dedupeKey = dedupeKey;
    return m;
  });
}

const ASK_KEYS_KV = 'mine.askKeysVersion';
const BACKFILL_PAGE = 2000;

/**
 * Computes the keys of stored asks that lack them (rows mined before migration 011), or of every
 * stored ask when ASK_KEYS_VERSION moved on since they were computed. Once per store and version;
 * returns how many asks were keyed.
 */
export function backfillAskKeys(db: Db, now: number): number {
  const stored = kvGet<number>(db, ASK_KEYS_KV);
  if (stored === ASK_KEYS_VERSION) return 0;
  // (no version recorded: a store from before migration 011, whose rows all lack keys)
  const all = stored !== undefined;
  let n = 0;
  let after = 0;
  db.transaction(() => {
    for (;;) {
      const page = membersNeedingKeys(db, { all, afterRowid: after, limit: BACKFILL_PAGE });
      if (!page.length) break;
      setMemberKeys(db, page.map((r) => ({ rowid: r.rowid, ...askKeysOf(r.prompt) })));
      n += page.length;
      after = page[page.length - 1].rowid;
    }
    kvSet(db, ASK_KEYS_KV, ASK_KEYS_VERSION, now);
  }).immediate();
  return n;
}

/** Existing member keys of a session (a resumed session is re-read; its old asks are not re-clustered). */
export function memberSeqs(db: Db, sessionId: string): Map<number, string> {
  return sessionMemberClusters(db, sessionId);
}

/** The stored tasks of a family (its cluster), by id. */
export function familyTasks(db: Db, clusterId: string): Map<string, Task> {
  const out = new Map<string, Task>();
  for (const r of familyTaskRecords(db, clusterId)) {
    const task = storedTask(JSON.parse(r.record) as unknown);
    if (task) out.set(r.id, task);
  }
  return out;
}

const SPLITS = new Set(['train', 'val', 'test']);
// The fast path below follows the schema's own key list: a key the schema adds later (with a
// default) is missing from older records, and those must go through the schema to get it.
const TASK_KEYS = new Set(Object.keys(TaskSchema.shape));
const TASK_KEYS_PRESENT = [...TASK_KEYS].filter((k) => {
  const absent = TaskSchema.shape[k as keyof typeof TaskSchema.shape].safeParse(undefined);
  return !(absent.success && absent.data === undefined);
});
const isStringArray = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isIntOrNull = (v: unknown) => v === null || Number.isInteger(v);

/**
 * A stored task record as the schema made it. Every record was written through `TaskSchema.parse`
 * (upsertTask), so a record whose fields have the schema's shape is taken as it is: running the
 * whole schema (every check of the judge) over each task of every touched family was a third of an
 * incremental run. The judge is validated again before anything is written (index.ts), and a
 * record that is not of that shape (an older schema's, or edited by hand) goes through the schema.
 */
function storedTask(v: unknown): Task | undefined {
  const r = v as Record<string, unknown> | null;
  const judge = r?.judge as Record<string, unknown> | undefined;
  const shaped =
    !!r &&
    TASK_KEYS_PRESENT.every((k) => k in r) &&
    Object.keys(r).every((k) => TASK_KEYS.has(k)) &&
    (r.correctionSources === undefined || Array.isArray(r.correctionSources)) &&
    typeof r.id === 'string' &&
    (r.project === null || typeof r.project === 'string') &&
    typeof r.intent === 'string' &&
    typeof r.context === 'string' &&
    SPLITS.has(r.split as string) &&
    (r.origin === 'real' || r.origin === 'dream' || r.origin === 'imported') &&
    (r.status === 'active' || r.status === 'disabled') &&
    typeof r.reviewed === 'boolean' &&
    Number.isInteger(r.occurrences) &&
    (r.occurrences as number) >= 0 &&
    isIntOrNull(r.firstSeen) &&
    isIntOrNull(r.lastSeen) &&
    isStringArray(r.corrections) &&
    isStringArray(r.agents) &&
    (r.agents as string[]).every((a) => AgentId.safeParse(a).success) &&
    (r.family === undefined || r.family === null || typeof r.family === 'string') &&
    (r.skillHint === undefined || r.skillHint === null || typeof r.skillHint === 'string') &&
    typeof judge === 'object' &&
    judge !== null &&
    Array.isArray(judge.checks) &&
    typeof judge.reference === 'object';
  if (shaped) return r as unknown as Task;
  const parsed = TaskSchema.safeParse(v);
  return parsed.success ? parsed.data : undefined;
}
