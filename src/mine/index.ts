/**
 * Mining: sessions and events → recurring asks → judged tasks with stable splits.
 *
 * Incremental: only sessions never mined (or updated since) are read; their asks join the stored
 * clusters. Clusters seen in at least `mining.minSessions` sessions become tasks. The cluster state
 * is written first, tasks second, `sessions.mined_at` last (with the tasks), so a crash in between
 * re-reads those sessions, finds their asks already clustered, and only re-synthesizes the tasks.
 */
import crypto from 'node:crypto';
import type { Db } from '../store/db.js';
import type { Config } from '../core/config.js';
import type { Backend } from '../core/protocol.js';
import type { Split, Task } from '../core/records.js';
import { silentProgress, type Progress } from '../core/progress.js';
import { errorMessage, throwIfAborted } from '../core/errors.js';
import { acquireLease, releaseLease } from '../store/repos/leases.js';
import { addOccurrences, getTask, listTasks, upsertTask, type TaskOccurrence } from '../store/repos/tasks.js';
import { featuresOf } from './features.js';
import { keyOf } from './normalize.js';
import { IntentClusterer, type ClusterState } from './cluster.js';
import { extractIntents, type MinedEvent } from './outcome.js';
import { clusterMembers, dbClusterSource, loadDf, memberSeqs, persistState, type MemberRow, type StoredMember } from './state.js';
import { mergeTask, synthesizeTask, taskIdFor } from './synthesize.js';
import { mineWithLlm } from './llm-miner.js';
import { checkStoredSplitIntegrity, thinProjects, type SplitViolation, type ThinProject } from './splits.js';
import { validateJudge } from './judge-synth.js';

export { optimizerView, sealedChecks } from './view.js';
export { checkSplitIntegrity, checkStoredSplitIntegrity, assignSplit, thinProjects, SPLIT_FRACTIONS } from './splits.js';
export type { SplitViolation, ThinProject } from './splits.js';
export { normalizePrompt } from './normalize.js';
export { validateJudge } from './judge-synth.js';

export interface MineOptions {
  project?: string;
  backends?: { miner?: Backend };
  signal?: AbortSignal;
  progress?: Progress;
  now?: number;
}

export interface MineSummary {
  sessions: number;
  prompts: number;
  /** clusters in the store (singletons included) */
  clusters: number;
  /** clusters seen in at least mining.minSessions sessions */
  recurringTasks: number;
  newTasks: number;
  updatedTasks: number;
  /** clusters found to be the same ask and merged in this run (an absorbed cluster's task is folded into the survivor's) */
  mergedClusters: number;
  bySplit: Record<Split, number>;
  thin: ThinProject[];
  integrity: SplitViolation[];
  llm: { calls: number; failures: string[]; invalidChecks: string[] };
  durationMs: number;
}

/** At most this many miner calls per run; the rest keep their heuristic definition until next time. */
const MAX_LLM_CALLS = 40;
const LEASE_TTL_MS = 15 * 60_000;

interface SessionRow {
  id: string;
  agent: string;
  project: string | null;
  updated_at: number;
  mined_at: number | null;
}

export async function runMining(db: Db, config: Config, opts: MineOptions = {}): Promise<MineSummary> {
  const t0 = performance.now();
  const now = opts.now ?? Date.now();
  const progress = opts.progress ?? silentProgress;
  const holder = `mine:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  acquireLease(db, 'mine', holder, LEASE_TTL_MS, { project: opts.project ?? null }, now);
  try {
    return await mine(db, config, opts, now, progress, t0);
  } finally {
    releaseLease(db, 'mine', holder);
  }
}

async function mine(db: Db, config: Config, opts: MineOptions, now: number, progress: Progress, t0: number): Promise<MineSummary> {
  const sessions = db
    .prepare(
      `SELECT id, agent, project, updated_at, mined_at FROM sessions
       WHERE kind IN ('interactive','headless') AND (mined_at IS NULL OR mined_at < updated_at)
       ${opts.project !== undefined ? 'AND project = @project' : ''}
       ORDER BY COALESCE(started_at, 0), id`,
    )
    .all(opts.project !== undefined ? { project: opts.project } : {}) as SessionRow[];
  // only what outcome inference needs: prompt text, heads of other texts, flags from meta
  const events = db
    .prepare(
      `SELECT seq, ts, role, kind, tool_name, is_error,
         CASE WHEN kind = 'prompt' THEN text WHEN kind = 'tool_call' THEN '' ELSE substr(text, 1, 400) END AS text,
         json_extract(meta, '$.final') AS final, json_extract(meta, '$.interrupted') AS interrupted
       FROM events WHERE session_id = ? ORDER BY seq`,
    )
    .raw();
  const df = loadDf(db);
  const clusterer = new IntentClusterer(dbClusterSource(db), df, { threshold: config.mining.threshold, now });
  const members: MemberRow[] = [];
  const touched = new Set<string>();
  progress.start('mining sessions', sessions.length);
  let prompts = 0;
  for (const [i, s] of sessions.entries()) {
    if (i % 200 === 0) throwIfAborted(opts.signal);
    const evs = (events.all(s.id) as EventTuple[]).map(toEvent);
    // asks already clustered (a resumed session, or a run that stopped before marking sessions mined)
    const known = memberSeqs(db, s.id);
    for (const intent of extractIntents(evs)) {
      prompts++;
      const base = { sessionId: s.id, seq: intent.seq, project: s.project, agent: s.agent, ts: intent.ts, prompt: intent.norm.clean.slice(0, 4000), outcome: intent.outcome };
      const existing = known.get(intent.seq);
      if (existing) {
        // a resumed session: the ask is clustered already; only its outcome may have grown
        members.push({ ...base, clusterId: existing, similarity: 0 });
        touched.add(existing);
        continue;
      }
      const features = featuresOf(intent.norm.key);
      if (features.size === 0) continue;
      const a = clusterer.add(features, s.id, intent.seq);
      members.push({ ...base, clusterId: a.clusterId, similarity: a.similarity });
      touched.add(a.clusterId);
    }
    progress.tick(1);
  }
  const curated = db.prepare(
    "SELECT 1 FROM tasks WHERE cluster_id = ? AND (origin = 'imported' OR json_extract(record, '$.reviewed') = 1) LIMIT 1",
  ).pluck();
  const merges = clusterer.mergePass((id) => curated.get(id) === undefined);
  if (merges) progress.log(`merged ${merges} clusters that turned out to be the same ask`);
  clusterer.finalizeCentroids();
  const mergeList = [...clusterer.merged.keys()].map((drop) => [drop, clusterer.resolve(drop)] as [string, string]);
  const absorbers = new Set(mergeList.map((m) => m[1]));
  for (const m of members) m.clusterId = clusterer.resolve(m.clusterId);
  const resolvedTouched = new Set([...touched].map((id) => clusterer.resolve(id)));
  touched.clear();
  for (const id of resolvedTouched) touched.add(id);
  db.transaction(() => {
    const counts = persistState(db, clusterer.changed(), members, df, now, mergeList);
    for (const [id, n] of counts) {
      const c = clusterer.get(id);
      if (c) c.sessionCount = n;
    }
  }).immediate();
  throwIfAborted(opts.signal);

  // ---- tasks for recurring clusters touched by this run
  const summary = { newTasks: 0, updatedTasks: 0, llm: { calls: 0, failures: [] as string[], invalidChecks: [] as string[] } };
  const newMembersByCluster = new Map<string, MemberRow[]>();
  for (const m of members) {
    const list = newMembersByCluster.get(m.clusterId);
    if (list) list.push(m);
    else newMembersByCluster.set(m.clusterId, [m]);
  }
  const clusterInfo = db.prepare('SELECT COUNT(*) AS n, MIN(ts) AS first, MAX(ts) AS last FROM cluster_members WHERE cluster_id = ?');
  const minerOf = db.prepare('SELECT miner FROM clusters WHERE id = ?').pluck();
  const useLlm = config.mining.useLlm && !!opts.backends?.miner;
  const writes: Array<{ task: Task; clusterId: string; miner: string; occurrences: TaskOccurrence[]; isNew: boolean }> = [];
  const recurring = [...touched].map((id) => clusterer.get(id)).filter((c): c is ClusterState => !!c && c.sessionCount >= config.mining.minSessions);
  if (recurring.length) progress.log(`${recurring.length} recurring asks to (re)write as tasks`);
  for (const c of recurring) {
    throwIfAborted(opts.signal);
    const sample = clusterMembers(db, c.id, 100);
    const info = clusterInfo.get(c.id) as { n: number; first: number | null; last: number | null };
    // the typical ask is the most common phrasing (normalized key) in the sample
    const keyCounts = new Map<string, number>();
    const keys = new Map<StoredMember, string>();
    for (const m of sample) {
      const k = keyOf(m.prompt);
      keys.set(m, k);
      keyCounts.set(k, (keyCounts.get(k) ?? 0) + 1);
    }
    const typicality = (m: StoredMember) => (keyCounts.get(keys.get(m)!) ?? 0) / sample.length + m.similarity / 100;
    let fresh = synthesizeTask({ clusterId: c.id, members: sample, typicality, occurrences: info.n, firstSeen: info.first, lastSeen: info.last, seed: config.training.seed });
    const existing = getTask(db, fresh.id);
    let miner = (minerOf.get(c.id) as string | undefined) ?? 'heuristic';
    const isCurated = existing && (existing.reviewed || existing.origin === 'imported');
    let wroteNow = false;
    if (useLlm && !isCurated && summary.llm.calls < MAX_LLM_CALLS) {
      summary.llm.calls++;
      try {
        const llm = await mineWithLlm(
          opts.backends!.miner!,
          { prompts: sample.slice(0, 8).map((m) => m.prompt), corrections: fresh.corrections, project: fresh.project },
          opts.signal,
        );
        summary.llm.invalidChecks.push(...llm.invalid.map((e) => `${fresh.id}: ${e}`));
        const proposed = withLlmDefinition(fresh, llm);
        validateJudge(proposed.judge);
        fresh = proposed;
        miner = 'llm';
        wroteNow = true;
      } catch (err) {
        if ((err as { code?: string }).code === 'ABORTED') throw err;
        summary.llm.failures.push(`${fresh.id}: ${errorMessage(err)}`);
        progress.log(`miner failed for ${fresh.id}, kept the heuristic task: ${errorMessage(err)}`);
      }
    }
    // a definition the miner wrote on an earlier run survives a heuristic re-synthesis
    const task = mergeTask(existing, fresh, { keepDefinition: miner === 'llm' && !wroteNow });
    validateJudge(task.judge);
    const rows = existing && !absorbers.has(c.id) ? (newMembersByCluster.get(c.id) ?? []) : clusterMembers(db, c.id, 1_000_000);
    writes.push({
      task: task,
      clusterId: c.id,
      miner,
      isNew: !existing,
      occurrences: rows.map((m) => ({ taskId: task.id, sessionId: m.sessionId, eventSeq: m.seq, ts: m.ts, prompt: m.prompt, outcome: { ...m.outcome } })),
    });
  }

  const setCluster = db.prepare('UPDATE clusters SET task_id = ?, miner = ? WHERE id = ?');
  const markMined = db.prepare('UPDATE sessions SET mined_at = ? WHERE id = ?');
  db.transaction(() => {
    for (const w of writes) {
      upsertTask(db, w.task, { clusterId: w.clusterId, now });
      addOccurrences(db, w.occurrences);
      setCluster.run(w.task.id, w.miner, w.clusterId);
      if (w.isNew) summary.newTasks++;
      else summary.updatedTasks++;
    }
    for (const s of sessions) markMined.run(Math.max(now, s.updated_at), s.id);
  }).immediate();

  const active = listTasks(db, { status: 'active' });
  const bySplit: Record<Split, number> = { train: 0, val: 0, test: 0 };
  for (const t of active) bySplit[t.split]++;
  const counts = db
    .prepare('SELECT COUNT(*) AS clusters, SUM(session_count >= ?) AS recurring FROM clusters')
    .get(config.mining.minSessions) as { clusters: number; recurring: number | null };
  const result: MineSummary = {
    sessions: sessions.length,
    prompts,
    clusters: counts.clusters,
    recurringTasks: counts.recurring ?? 0,
    newTasks: summary.newTasks,
    updatedTasks: summary.updatedTasks,
    mergedClusters: merges,
    bySplit,
    thin: thinProjects(active, config.training.minValTasks),
    integrity: checkStoredSplitIntegrity(db),
    llm: summary.llm,
    durationMs: Math.round(performance.now() - t0),
  };
  progress.done(`${result.sessions} sessions, ${result.newTasks} new and ${result.updatedTasks} updated tasks`);
  return result;
}

type EventTuple = [number, number | null, string, string, string | null, number, string, unknown, unknown];

function toEvent(r: EventTuple): MinedEvent {
  const [seq, ts, role, kind, toolName, isError, text, final, interrupted] = r;
  const meta: Record<string, unknown> = {};
  if (final === 1 || final === true) meta.final = true;
  if (interrupted === 1 || interrupted === true) meta.interrupted = true;
  return { seq, ts, role, kind, toolName, isError: isError === 1, text: text ?? '', meta };
}

/** The miner's intent and checks replace the heuristic ones; the generic guards stay. */
function withLlmDefinition(fresh: Task, llm: { intent: string; context: string; checks: Task['judge']['checks'] }): Task {
  const intent = llm.intent.length >= 8 ? llm.intent : fresh.intent;
  const ids = new Set(llm.checks.map((c) => c.id));
  const guards = fresh.judge.checks.filter((c) => (c.op === 'no_refusal' || c.op === 'min_chars' || c.op === 'max_chars' || c.sealed) && !ids.has(c.id));
  const reference =
    fresh.judge.reference.kind === 'rubric'
      ? { ...fresh.judge.reference, rubric: fresh.judge.reference.rubric.replace(fresh.intent.slice(0, 400), intent.slice(0, 400)) }
      : fresh.judge.reference;
  return { ...fresh, intent, context: llm.context || fresh.context, judge: { checks: [...llm.checks, ...guards], reference } };
}

export { taskIdFor };
