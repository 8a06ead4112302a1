/**
 * Mining: sessions and events → recurring asks → judged tasks with stable splits.
 *
 * Incremental: only sessions never mined (or updated since) are read; their asks join the stored
 * clusters. A cluster seen in at least `mining.minSessions` sessions is a recurring family, and each
 * of its occurrences becomes a task sharing the family's judge (family.ts). The cluster state
 * is written first, tasks second, `sessions.mined_at` last (with the tasks), so a crash in between
 * re-reads those sessions, finds their asks already clustered, and only re-synthesizes the tasks.
 */
import crypto from 'node:crypto';
import type { Db } from '../store/db.js';
import type { Config } from '../core/config.js';
import type { Backend } from '../core/protocol.js';
import type { Check, Split } from '../core/records.js';
import { silentProgress, type Progress } from '../core/progress.js';
import { errorMessage, throwIfAborted } from '../core/errors.js';
import { acquireLease, releaseLease } from '../store/repos/leases.js';
import { kvGet, kvSet } from '../store/repos/kv.js';
import { familyEvidence } from './kept/evidence.js';
import { GitHistory } from './kept/git-read.js';
import { getSession } from '../store/repos/sessions.js';
import { backendRunsCommands } from '../core/tool-kinds.js';
import { addOccurrences, deleteTask, syncOccurrences, upsertTask } from '../store/repos/tasks.js';
import {
  activeTaskSplitFacts,
  clusterCounts,
  clusterMinerReader,
  curatedClusterCheck,
  markSessionsMined,
  moveMembers,
  moveTasksOfMembers,
  recountSessions,
  sessionEventReader,
  sessionsToMine,
  setClusterTasks,
  type MinedEventTuple,
} from '../store/repos/mining.js';
import { skillToolNames } from '../../adapters/index.js';
import { featuresOf } from './features.js';
import { IntentClusterer, type ClusterState } from './cluster.js';
import { extractIntents, type MinedEvent } from './outcome.js';
import { backfillAskKeys, clusterMembers, dbClusterSource, familyTasks, loadDf, memberSeqs, persistState, type MemberRow } from './state.js';
import { askKeysOf } from './ask-keys.js';
import { taskIdFor } from './synthesize.js';
import { familyJudge, synthesizeFamily, type FamilyDefinition, type InstanceWrite } from './family.js';
import { mineWithLlm } from './llm-miner.js';
import { apartKey, loadReviewState, reviewClusters, saveReviewState, type ReviewAsk, type ReviewCandidate, type ReviewOutcome } from './cluster-review.js';
import { checkStoredSplitIntegrity, thinProjects, topUpThinValidation, type SplitViolation, type ThinProject, type TopUpFacts } from './splits.js';
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
  /** recurring families: clusters seen in at least mining.minSessions sessions (each occurrence is a task) */
  recurringTasks: number;
  newTasks: number;
  updatedTasks: number;
  /** clusters found to be the same ask and merged in this run (an absorbed cluster's task is folded into the survivor's) */
  mergedClusters: number;
  bySplit: Record<Split, number>;
  thin: ThinProject[];
  integrity: SplitViolation[];
  llm: { calls: number; failures: string[]; invalidChecks: string[] };
  /** the LLM cluster review of this run, when a miner backend is configured */
  review?: ReviewOutcome;
  /**
   * The asks this run read whose turn loaded one of the user's skills, as the transcripts record it
   * (a Skill / skill tool call, Copilot's skill.invoked, a Codex skill injection: adapters/skill-signal.ts),
   * and how often each skill was loaded: whether the agents load the skills when their jobs come up.
   */
  skillLoads: { asks: number; loaded: number; bySkill: Record<string, number> };
  durationMs: number;
}

/** At most this many miner calls per run; the rest keep their heuristic definition until next time. */
const MAX_LLM_CALLS = 40;
/**
 * Bump when what an ask's outcome records changes (2: the skills its turn used). A store mined by
 * an older version re-reads every session once, so existing families get the new evidence (their
 * skill hints, for one; 3: what the agent did, work.ts; 4: what it produced, kept/artifacts.ts) instead of only the families that happen to see new sessions.
 */
export const OUTCOME_VERSION = 4;
const KV_OUTCOME_VERSION = 'mine.outcomeVersion';
const LEASE_TTL_MS = 15 * 60_000;

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
  // (a run limited to one project does not refresh: the rest of the store would stay behind)
  // asks mined before migration 011 (or before the key functions changed) get their stored keys
  const keyed = backfillAskKeys(db, now);
  if (keyed) progress.log(`computed the stored keys of ${keyed} mined ask${keyed === 1 ? '' : 's'} (once)`);
  const refresh = opts.project === undefined && (kvGet<number>(db, KV_OUTCOME_VERSION) ?? 1) < OUTCOME_VERSION;
  const sessions = sessionsToMine(db, { refresh, project: opts.project });
  const events = sessionEventReader(db, skillToolNames());
  const df = loadDf(db);
  // "ran the tests" checks only where the replay target can run a command at all (today: sim; the
  // agent CLIs replay with their shell switched off, see src/core/tool-kinds.ts)
  const targetRunsCommands = backendRunsCommands(config.roles.target.backend);
  const clusterer = new IntentClusterer(dbClusterSource(db), df, { threshold: config.mining.threshold, now });
  const members: MemberRow[] = [];
  const touched = new Set<string>();
  progress.start('mining sessions', sessions.length);
  let prompts = 0;
  for (const [i, s] of sessions.entries()) {
    if (i % 200 === 0) throwIfAborted(opts.signal);
    const evs = events(s.id).map(toEvent);
    // asks already clustered (a resumed session, or a run that stopped before marking sessions mined)
    const known = memberSeqs(db, s.id);
    for (const intent of extractIntents(evs, s.project)) {
      prompts++;
      const prompt = intent.norm.clean.slice(0, 4000);
      const base = { sessionId: s.id, seq: intent.seq, project: s.project, agent: s.agent, ts: intent.ts, prompt, outcome: intent.outcome, ...askKeysOf(prompt) };
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
  const curated = curatedClusterCheck(db);
  const review = loadReviewState(db);
  const apart = new Set(review.apart);
  const merges = clusterer.mergePass((id) => !curated(id), (a, b) => apart.has(apartKey(a, b)));
  if (merges) progress.log(`merged ${merges} cluster${merges === 1 ? '' : 's'} that turned out to be the same ask`);
  // ---- the optional LLM review of the clusters this run changed (one call)
  const useLlm = config.mining.useLlm && !!opts.backends?.miner;
  const storedMoves = new Map<string, { from: string; members: Array<{ sessionId: string; seq: number }> }>();
  let reviewOutcome: ReviewOutcome | undefined;
  if (useLlm) {
    const changed = [...new Set([...touched].map((id) => clusterer.resolve(id)))];
    const runAsks = new Map<string, ReviewAsk[]>();
    for (const m of members) {
      const id = clusterer.resolve(m.clusterId);
      runAsks.set(id, [...(runAsks.get(id) ?? []), { key: `${m.sessionId}#${m.seq}`, prompt: m.prompt, ...(m.outcome.work ? { work: m.outcome.work } : {}) }]);
    }
    const inRun = new Set(members.map((m) => `${m.sessionId}#${m.seq}`));
    const candidates: ReviewCandidate[] = changed.map((id) => {
      const stored = clusterMembers(db, id, 50)
        .map((m) => ({ key: `${m.sessionId}#${m.seq}`, prompt: m.prompt, ...(m.outcome.work ? { work: m.outcome.work } : {}) }))
        .filter((a) => !inRun.has(a.key));
      return { id, size: clusterer.get(id)?.size ?? 0, asks: [...(runAsks.get(id) ?? []), ...stored] };
    });
    const runMember = new Map(members.map((m) => [`${m.sessionId}#${m.seq}`, m]));
    try {
      reviewOutcome = await reviewClusters({
        db,
        backend: opts.backends!.miner!,
        clusterer,
        candidates,
        state: review,
        canAbsorb: (id) => !curated(id),
        now,
        signal: opts.signal,
        onMove: (moved) => {
          for (const [key, to] of moved) {
            touched.add(to);
            const m = runMember.get(key);
            if (m) {
              m.clusterId = to;
              continue;
            }
            const at = key.lastIndexOf('#');
            const from = candidates.find((c) => c.asks.some((a) => a.key === key))?.id ?? '';
            const entry = storedMoves.get(to) ?? { from, members: [] };
            entry.members.push({ sessionId: key.slice(0, at), seq: Number(key.slice(at + 1)) });
            storedMoves.set(to, entry);
          }
        },
      });
      if (reviewOutcome.called) {
        progress.log(`cluster review: ${reviewOutcome.reviewed} cluster(s), ${reviewOutcome.merges} merge(s), ${reviewOutcome.splits} split(s)${reviewOutcome.cached ? ' (cached)' : ''}`);
      }
    } catch (err) {
      if ((err as { code?: string }).code === 'ABORTED') throw err;
      reviewOutcome = { called: true, cached: false, reviewed: 0, merges: 0, splits: 0, named: 0, failure: errorMessage(err) };
      progress.log(`cluster review failed, kept the clusters as mined: ${errorMessage(err)}`);
    }
  }
  clusterer.finalizeCentroids();
  const mergeList = [...clusterer.merged.keys()].map((drop) => [drop, clusterer.resolve(drop)] as [string, string]);
  const absorbers = new Set(mergeList.map((m) => m[1]));
  for (const m of members) m.clusterId = clusterer.resolve(m.clusterId);
  const resolvedTouched = new Set([...touched].map((id) => clusterer.resolve(id)));
  touched.clear();
  for (const id of resolvedTouched) touched.add(id);
  db.transaction(() => {
    const counts = persistState(db, clusterer.changed(), members, df, now, mergeList);
    // asks a review split off that were clustered on an earlier run move with their tasks
    for (const [to, mv] of storedMoves) {
      const from = clusterer.resolve(mv.from);
      moveMembers(db, to, mv.members);
      moveTasksOfMembers(db, from, to, mv.members);
      counts.set(from, recountSessions(db, from));
      counts.set(to, recountSessions(db, to));
    }
    if (reviewOutcome?.called) {
      for (const [drop] of mergeList) delete review.names[drop];
      saveReviewState(db, review, now);
    }
    for (const [id, n] of counts) {
      const c = clusterer.get(id);
      if (c) c.sessionCount = n;
    }
  }).immediate();
  throwIfAborted(opts.signal);

  // ---- one task per occurrence of each recurring family touched by this run (family.ts)
  const summary = { newTasks: 0, updatedTasks: 0, llm: { calls: 0, failures: [] as string[], invalidChecks: [] as string[] } };
  const newMembersByCluster = new Map<string, Set<string>>();
  for (const m of members) {
    const set = newMembersByCluster.get(m.clusterId) ?? new Set<string>();
    set.add(`${m.sessionId}#${m.seq}`);
    newMembersByCluster.set(m.clusterId, set);
  }
  for (const id of absorbers) touched.add(id);
  const minerOf = clusterMinerReader(db);
  // outcome evidence reads each session's repository (read-only, kept/git-read.ts), each opened once per run
  const repos = new Map<string, GitHistory | null>();
  const cwdOf = (sessionId: string) => {
    const s = getSession(db, sessionId);
    return s?.cwd ?? s?.project ?? null;
  };
  const writes: Array<{ clusterId: string; miner: string; instances: InstanceWrite[]; superseded: string[]; newKeys: Set<string> }> = [];
  const recurring = [...touched].map((id) => clusterer.get(id)).filter((c): c is ClusterState => !!c && c.sessionCount >= config.mining.minSessions);
  if (recurring.length) progress.log(`${recurring.length} recurring ask${recurring.length === 1 ? '' : 's'} to (re)write as tasks`);
  for (const c of recurring) {
    throwIfAborted(opts.signal);
    const all = withKnownProject(clusterMembers(db, c.id, 1_000_000));
    const existing = familyTasks(db, c.id);
    let miner = minerOf(c.id) ?? 'heuristic';
    let definition: FamilyDefinition | undefined;
    const curatedOnly = existing.size > 0 && [...existing.values()].every((t) => t.reviewed || t.origin === 'imported');
    if (useLlm && !curatedOnly && summary.llm.calls < MAX_LLM_CALLS) {
      summary.llm.calls++;
      // (what the miner refines: computed only for it, synthesizeFamily derives its own)
      const heuristic = familyJudge(all, { targetRunsCommands });
      try {
        const project = new Set(all.map((m) => m.project)).size === 1 ? all[0].project : null;
        const llm = await mineWithLlm(opts.backends!.miner!, { prompts: all.slice(0, 8).map((m) => m.prompt), corrections: heuristic.corrections, project }, opts.signal);
        summary.llm.invalidChecks.push(...llm.invalid.map((e) => `${c.id}: ${e}`));
        definition = withLlmDefinition(heuristic.checks, llm);
        validateJudge({ checks: definition.checks, reference: { kind: 'rule' } });
        miner = 'llm';
      } catch (err) {
        if ((err as { code?: string }).code === 'ABORTED') throw err;
        definition = undefined;
        summary.llm.failures.push(`${c.id}: ${errorMessage(err)}`);
        progress.log(`miner failed for family ${c.id}, kept the heuristic checks: ${errorMessage(err)}`);
      }
    }
    if (!definition && miner === 'llm') {
      // a definition the miner wrote on an earlier run survives a heuristic re-synthesis
      const prior = [...existing.values()].find((t) => !t.reviewed && t.origin !== 'imported');
      if (prior) definition = { checks: prior.judge.checks, context: '' };
    }
    const evidence = config.mining.outcomeEvidence ? familyEvidence(all, cwdOf, repos) : undefined;
    const fam = synthesizeFamily({ clusterId: c.id, members: all, existing, seed: config.training.seed, definition, targetRunsCommands, evidence });
    for (const w of fam.instances) validateJudge(w.task.judge);
    writes.push({ clusterId: c.id, miner, instances: fam.instances, superseded: fam.superseded, newKeys: newMembersByCluster.get(c.id) ?? new Set() });
  }

  // (only a new task can move: a run that writes none skips reading the stored splits)
  if (writes.some((w) => w.instances.some((i) => i.splitFree))) holdOutForThinSkills(activeTaskSplitFacts(db), writes, config);

  db.transaction(() => {
    for (const w of writes) {
      for (const id of w.superseded) deleteTask(db, id);
      for (const inst of w.instances) {
        // unchanged tasks are not rewritten; an instance's occurrences are synced to its asks when
        // they changed (new, grown or regrouped: missing rows inserted, departed ones removed), and
        // otherwise only asks seen in this run (new, or a resumed session's grown outcome) are
        // written: a family's judge growing rewrites each task, not each task's hundreds of occurrences
        if (inst.changed) upsertTask(db, inst.task, { clusterId: w.clusterId, now });
        const occurrence = (m: (typeof inst.members)[number]) => ({ taskId: inst.task.id, sessionId: m.sessionId, eventSeq: m.seq, ts: m.ts, prompt: m.prompt, outcome: { ...m.outcome } });
        const seenNow = (o: { sessionId: string; eventSeq: number }) => w.newKeys.has(`${o.sessionId}#${o.eventSeq}`);
        if (inst.membersChanged) syncOccurrences(db, inst.task.id, inst.members.map(occurrence), seenNow);
        else {
          const rows = inst.members.filter((m) => w.newKeys.has(`${m.sessionId}#${m.seq}`));
          if (rows.length) addOccurrences(db, rows.map(occurrence));
        }
        if (inst.isNew) summary.newTasks++;
        else if (inst.changed) summary.updatedTasks++;
      }
    }
    setClusterTasks(db, writes.map((w) => ({ clusterId: w.clusterId, taskId: w.instances[0]?.task.id ?? null, miner: w.miner })));
    markSessionsMined(db, sessions.map((s) => ({ id: s.id, minedAt: Math.max(now, s.updated_at) })));
    if (refresh) kvSet(db, KV_OUTCOME_VERSION, OUTCOME_VERSION, now);
  }).immediate();

  // (split facts from the table's columns: parsing every task record was a tenth of an incremental run)
  const active = activeTaskSplitFacts(db);
  const bySplit: Record<Split, number> = { train: 0, val: 0, test: 0 };
  for (const t of active) bySplit[t.split]++;
  const counts = clusterCounts(db, config.mining.minSessions);
  const result: MineSummary = {
    sessions: sessions.length,
    prompts,
    clusters: counts.clusters,
    recurringTasks: counts.recurring,
    newTasks: summary.newTasks,
    updatedTasks: summary.updatedTasks,
    mergedClusters: merges,
    bySplit,
    thin: thinProjects(active, config.training.minValTasks),
    integrity: checkStoredSplitIntegrity(db, { activeTasks: active }),
    llm: summary.llm,
    ...(reviewOutcome ? { review: reviewOutcome } : {}),
    skillLoads: skillLoadsOf(members),
    durationMs: Math.round(performance.now() - t0),
  };
  progress.done(`mine: ${result.sessions ? `${result.sessions} session(s) read` : 'no new sessions'}; tasks ${result.newTasks} new, ${result.updatedTasks} updated`);
  return result;
}

/**
 * Tops up validation where a skill would be too thin to gate (splits.ts topUpThinValidation): the
 * stored tasks as they stand, overlaid with this run's writes; the chosen new tasks are written as
 * val. Only new train tasks move, so the judges (built from train and val asks alike) are unchanged.
 */
function holdOutForThinSkills(stored: ReturnType<typeof activeTaskSplitFacts>, writes: Array<{ instances: InstanceWrite[]; superseded: string[] }>, config: Config): void {
  const written = new Map(writes.flatMap((w) => w.instances.map((i) => [i.task.id, i] as const)));
  const gone = new Set(writes.flatMap((w) => w.superseded));
  const facts: TopUpFacts[] = stored.filter((t) => !written.has(t.id) && !gone.has(t.id)).map((t) => ({ ...t, movable: false }));
  for (const i of written.values()) facts.push({ ...i.task, movable: i.splitFree });
  for (const id of topUpThinValidation(facts, config.training.minValTasks, config.training.seed)) {
    const i = written.get(id)!;
    i.task = { ...i.task, split: 'val' };
  }
}

/** Asks of this run and the skills their turns loaded (an ask counts once, each skill once per ask). */
function skillLoadsOf(members: MemberRow[]): MineSummary['skillLoads'] {
  const bySkill: Record<string, number> = {};
  let loaded = 0;
  for (const m of members) {
    const skills = [...new Set(m.outcome.skills ?? [])];
    if (!skills.length) continue;
    loaded++;
    for (const k of skills) bySkill[k] = (bySkill[k] ?? 0) + 1;
  }
  return { asks: members.length, loaded, bySkill };
}

function toEvent(r: MinedEventTuple): MinedEvent {
  const [seq, ts, role, kind, toolName, isError, text, final, interrupted, skill, callId, wrote] = r;
  const meta: Record<string, unknown> = {};
  if (typeof callId === 'string') meta.callId = callId;
  if (typeof wrote === 'string') meta.wrote = wrote;
  if (final === 1 || final === true) meta.final = true;
  if (interrupted === 1 || interrupted === true) meta.interrupted = true;
  if (typeof skill === 'string') meta.skill = parseSkillMeta(skill);
  return { seq, ts, role, kind, toolName, isError: isError === 1, text: text ?? '', meta };
}

/** `meta.skill` is a name, or several as an array (json_extract hands an array back as JSON text). */
function parseSkillMeta(v: string): unknown {
  if (!v.startsWith('[')) return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

/**
 * A session without a project (a legacy Copilot CLI session has no cwd) says nothing about where a
 * job belongs: its asks take the family's one known project, so they never make a one-project job
 * cross-project (and route it to the personal skill). A family seen in several projects stays
 * cross-project; one seen only in project-less sessions keeps no project.
 */
export function withKnownProject<M extends { project: string | null }>(members: M[]): M[] {
  const known = new Set(members.map((m) => m.project).filter((p): p is string => p !== null));
  if (known.size !== 1 || members.every((m) => m.project !== null)) return members;
  const [project] = known;
  return members.map((m) => (m.project === null ? { ...m, project } : m));
}

/** The miner's checks replace the family's heuristic ones; the generic guards and sealed checks stay. */
function withLlmDefinition(heuristic: Check[], llm: { context: string; checks: Check[] }): FamilyDefinition {
  const ids = new Set(llm.checks.map((c) => c.id));
  const guards = heuristic.filter((c) => (c.op === 'no_refusal' || c.op === 'min_chars' || c.op === 'max_chars' || c.sealed) && !ids.has(c.id));
  return { checks: [...llm.checks, ...guards], context: llm.context };
}

export { taskIdFor };
