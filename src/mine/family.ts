/**
 * A recurring family (an intent cluster seen in several sessions) becomes one task per occurrence,
 * as upstream mines one task per session digest: each instance keeps its own ask (what the user
 * asked that time), while the family shares what was learned across occurrences — the judge's
 * checks (from the asks and every correction; sealed ones stay sealed) and the corrections as
 * evidence. Several instances per family let the splits put some in train and some in validation,
 * so the gate measures whether a lesson generalises to another occurrence of the same job.
 *
 * Instances: one per session (a second ask of the same family in one session is part of the same
 * occurrence), and asks with the same wording once incidental detail is stripped (same content
 * words: "draft the release notes for v2.4.0" / "… v2.7.0") are one instance, so a near-duplicate
 * can never sit in train and in validation at once.
 *
 * Task ids are `stableId('task', session, seq)` of the instance's first ask: independent of the
 * cluster id, so a family merged into another keeps its tasks and their splits (a task trained on
 * is never held out later).
 */
import type { AgentId, Check, KeptOutcome, Split, Task } from '../core/records.js';
import { AgentId as AgentIdSchema, TaskSchema } from '../core/records.js';
import { stableId } from '../core/ids.js';
import type { StoredMember } from './state.js';
import { keyOf, normalizePrompt } from './normalize.js';
import { dedupeKeyOf } from './ask-keys.js';
import { rubricFor, synthesizeJudge } from './judge-synth.js';
import { MAX_INTENT, mergeTask, pickRepresentative, uniqueCorrections } from './synthesize.js';
import { contradicts } from '../skilldoc/wording-lint.js';
import { staleByKept } from '../skilldoc/stale-value.js';
import { assignFamilySplits, type FamilyMember } from './splits.js';
import { memoizeText } from './memo.js';
import { correctionsOf } from './outcome.js';
import { askKey, type AskEvidence } from './kept/evidence.js';
import { groundedChecks } from './kept/grounded-judge.js';
import { mergeProcedures } from './kept/procedures.js';

const MAX_CONTEXT = 1500;

/** Task ids of recently seen asks: every re-synthesis of a family looks up each of its asks' ids. Bounded. */
const TASK_ID_MEMO = new Map<string, string>();
const TASK_ID_MEMO_MAX = 100_000;

export function instanceTaskId(sessionId: string, seq: number): string {
  const k = `${sessionId}#${seq}`;
  const memo = TASK_ID_MEMO.get(k);
  if (memo !== undefined) return memo;
  const id = stableId('task', sessionId, String(seq));
  if (TASK_ID_MEMO.size >= TASK_ID_MEMO_MAX) TASK_ID_MEMO.clear();
  TASK_ID_MEMO.set(k, id);
  return id;
}

export interface FamilyInstance {
  id: string;
  /** the instance's first ask (its wording is the task's intent) */
  anchor: StoredMember;
  /** every ask folded into this instance, oldest first */
  members: StoredMember[];
}

const byAge = (a: StoredMember, b: StoredMember) => (a.ts ?? 0) - (b.ts ?? 0) || a.sessionId.localeCompare(b.sessionId) || a.seq - b.seq;

/**
 * Near-duplicate key: the set of content words left after incidental detail is stripped
 * (ask-keys.ts). Memoised for asks stored without their keys (before migration 011).
 */
export const dedupeKey: (prompt: string) => string = memoizeText((prompt) => dedupeKeyOf(prompt));

/** Groups a family's asks into instances: one per session, near-identical asks merged. */
export function familyInstances(members: StoredMember[]): FamilyInstance[] {
  const sorted = [...members].sort(byAge);
  const parent = sorted.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const union = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    // the older ask stays the root, so the anchor (and the task id) does not depend on arrival order
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  const bySession = new Map<string, number>();
  const byKey = new Map<string, number>();
  sorted.forEach((m, i) => {
    const s = bySession.get(m.sessionId);
    if (s === undefined) bySession.set(m.sessionId, i);
    else union(s, i);
    const k = m.dedupeKey ?? dedupeKey(m.prompt);
    const j = byKey.get(k);
    if (j === undefined) byKey.set(k, i);
    else union(j, i);
  });
  const groups = new Map<number, StoredMember[]>();
  sorted.forEach((m, i) => {
    // (push, not spread: an ask repeated in hundreds of sessions is one instance of hundreds of members)
    const r = find(i);
    const g = groups.get(r);
    if (g) g.push(m);
    else groups.set(r, [m]);
  });
  return [...groups.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, ms]) => ({ id: instanceTaskId(ms[0].sessionId, ms[0].seq), anchor: ms[0], members: ms }));
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, n - 2).trimEnd() + ' …';
}

/** A family-level definition written by the LLM miner (this run or an earlier one). */
export interface FamilyDefinition {
  checks: Check[];
  context?: string;
}

export interface FamilyFacts {
  clusterId: string;
  /** every ask of the family */
  members: StoredMember[];
  /** the family's stored tasks, by id */
  existing: Map<string, Task>;
  seed: number;
  definition?: FamilyDefinition;
  /** the replay target can run shell commands (`backendRunsCommands`): command checks may be made */
  targetRunsCommands?: boolean;
  /** outcome evidence per ask (`askKey`): what the user kept and the procedures (kept/evidence.ts); absent when `mining.outcomeEvidence` is off */
  evidence?: Map<string, AskEvidence>;
}

export interface InstanceWrite {
  task: Task;
  members: StoredMember[];
  isNew: boolean;
  /** the stored task differs from the one written now (or is new) */
  changed: boolean;
  /** the instance's asks differ from the stored task's (new, grown or regrouped): its occurrences are rewritten */
  membersChanged: boolean;
  /** the split came from the hash alone (a new task that inherits no stored split): it may still move train → val */
  splitFree: boolean;
}

export interface FamilySynthesis {
  instances: InstanceWrite[];
  /** stored tasks of the family no instance maps to any more (superseded by a merge or the old one-task-per-cluster form) */
  superseded: string[];
  /** the family's shared checks and corrections (what the miner may refine) */
  checks: Check[];
  corrections: string[];
  /** the family's most typical ask */
  typicalIntent: string;
}

const isCurated = (t: Task) => t.reviewed || t.origin === 'imported';

/**
 * Two records are the same as JSON (key order aside, keys holding `undefined` absent): the
 * schema orders a check's keys its own way, so comparing serializations would see a change in
 * every task.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => sameJson(x, bb[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  // (counted, not filtered into arrays: this compares every task of every touched family)
  let na = 0;
  for (const k in ra) {
    if (!Object.hasOwn(ra, k) || ra[k] === undefined) continue;
    na++;
    if (!Object.hasOwn(rb, k) || !sameJson(ra[k], rb[k])) return false;
  }
  let nb = 0;
  for (const k in rb) if (Object.hasOwn(rb, k) && rb[k] !== undefined) nb++;
  return na === nb;
}

/**
 * A changed mind: the corrections no later one replaced (the list is oldest first). The judge checks
 * and the rubric hold what the user asks for now, never a value a later correction took back.
 */
export function currentCorrections(corrections: string[]): string[] {
  return corrections.filter((c, i) => !corrections.slice(i + 1).some((later) => contradicts(c, later)));
}

/** The family's shared judge checks and corrections, from all its asks. */
export function familyJudge(members: StoredMember[], opts: { targetRunsCommands?: boolean; kept?: readonly KeptOutcome[] } = {}): { checks: Check[]; corrections: string[]; asked: string[]; typicalIntent: string } {
  const keyCounts = new Map<string, number>();
  const keys = new Map<StoredMember, string>();
  for (const m of members) {
    const k = m.askKey ?? keyOf(m.prompt);
    keys.set(m, k);
    keyCounts.set(k, (keyCounts.get(k) ?? 0) + 1);
  }
  const typicality = (m: StoredMember) => (keyCounts.get(keys.get(m)!) ?? 0) / members.length + m.similarity / 100;
  const rep = pickRepresentative(members, typicality);
  const corrections = uniqueCorrections(members);
  const typicalIntent = truncate(rep.prompt.trim(), MAX_INTENT);
  const accepted = members.filter((m) => m.outcome.label === 'success' && m.outcome.final).map((m) => m.outcome.final.length);
  // a value the user has since stopped keeping (their newest commits spell it another way) is asked for no longer
  const saidLast = (c: string): number | null => {
    const ts = members.filter((m) => correctionsOf(m.outcome).includes(c)).map((m) => m.ts ?? 0);
    return ts.length ? Math.max(...ts) : null;
  };
  const current = currentCorrections(corrections).filter((c) => !opts.kept || !staleByKept(c, opts.kept, saidLast(c)));
  const { judge } = synthesizeJudge({
    intent: typicalIntent,
    prompts: members.map((m) => m.prompt),
    corrections: current,
    acceptedLengths: accepted,
    occurrences: members.map((m) => ({ label: m.outcome.label, verified: m.outcome.verified })),
    agents: members.map((m) => m.agent),
    targetRunsCommands: opts.targetRunsCommands,
  });
  return { checks: judge.checks, corrections, asked: current, typicalIntent };
}

/**
 * The user's skill a family is done with: the skill invoked during at least half of the family's
 * asks, and in at least two of them (one invocation is an accident, not a habit); null otherwise.
 * Several qualifying skills: the most used, then the first by name, so the hint is deterministic.
 */
export function familySkillHint(members: StoredMember[]): string | null {
  // one vote per ask, names compared case-insensitively (as routing compares them); the first spelling seen is kept
  const votes = new Map<string, { name: string; n: number }>();
  for (const m of members) {
    const keys = new Set<string>();
    for (const name of m.outcome.skills ?? []) {
      const key = name.toLowerCase();
      if (keys.has(key)) continue;
      keys.add(key);
      const v = votes.get(key) ?? { name, n: 0 };
      v.n++;
      votes.set(key, v);
    }
  }
  const best = [...votes.values()]
    .filter((v) => v.n >= 2 && v.n * 2 >= members.length)
    .sort((a, b) => b.n - a.n || a.name.localeCompare(b.name))[0];
  return best?.name ?? null;
}

/**
 * One task per instance of the family, sharing the family's checks and corrections. Stored tasks
 * keep their id, split and status (and a curated one its definition); new instances get splits
 * stratified over the whole family.
 */
export function synthesizeFamily(f: FamilyFacts): FamilySynthesis {
  const instances = familyInstances(f.members);
  const skillHint = familySkillHint(f.members);

  // a stored split wins; an instance that absorbed a stored train task stays train; an instance
  // asking what a task it replaces asked (a curated task, or the old one-task-per-cluster row a
  // night may have trained on) inherits that task's split, so no ask crosses from train to held out
  const ids = new Set(instances.map((i) => i.id));
  const curatedKeys = new Map<string, Split>();
  for (const t of f.existing.values()) {
    if (ids.has(t.id)) continue;
    const key = normalizePrompt(t.intent).key;
    if (curatedKeys.get(key) !== 'train') curatedKeys.set(key, t.split);
  }
  const splitMembers: FamilyMember[] = instances.map((inst) => {
    const stored = inst.members.map((m) => f.existing.get(instanceTaskId(m.sessionId, m.seq))).filter((t): t is Task => !!t);
    const own = f.existing.get(inst.id);
    const fixed: Split | undefined = stored.some((t) => t.split === 'train')
      ? 'train'
      : (own?.split ?? stored[0]?.split ?? curatedKeys.get(normalizePrompt(truncate(inst.anchor.prompt.trim(), MAX_INTENT)).key));
    return fixed ? { id: inst.id, fixed } : { id: inst.id };
  });
  const splits = assignFamilySplits(splitMembers, f.seed);
  const inherited = new Set(splitMembers.filter((m) => m.fixed).map((m) => m.id));

  // Held-out labels: the family's training judge comes from its train and val sessions only; a
  // test instance is judged by what its own session said (its corrections, accepted or not), so
  // the test score is not a second sample of the training signal.
  const isTest = (id: string) => splits.get(id) === 'test';
  const seen = instances.filter((i) => !isTest(i.id)).flatMap((i) => i.members);
  // checks grounded in what the user kept and the commands that worked, from the same train/val asks
  const evidenceOf = (ms: StoredMember[]) => {
    const per = ms.map((m) => ({ session: m.sessionId, ev: f.evidence?.get(askKey(m)) }));
    return {
      kept: per.flatMap((p) => p.ev?.kept ?? []),
      procedures: mergeProcedures(per.map((p) => ({ session: p.session, pairs: p.ev?.procedures ?? [] }))),
    };
  };
  const familyEvidence = evidenceOf(seen.length ? seen : f.members);
  const base = familyJudge(seen.length ? seen : f.members, { targetRunsCommands: f.targetRunsCommands, kept: familyEvidence.kept });
  const grounded = f.evidence ? groundedChecks(familyEvidence.kept, familyEvidence.procedures, { targetRunsCommands: f.targetRunsCommands }) : [];
  const definitionChecks = f.definition?.checks.length ? f.definition.checks : base.checks;
  const checks = [...definitionChecks, ...grounded.filter((g) => !definitionChecks.some((c) => c.id === g.id))];

  const out: InstanceWrite[] = instances.map((inst) => {
    const ms = inst.members;
    const own = isTest(inst.id) ? familyJudge(ms, { targetRunsCommands: f.targetRunsCommands }) : null;
    const judgeChecks = own ? own.checks : checks;
    const corrections = own ? own.corrections : base.corrections;
    const intent = truncate(inst.anchor.prompt.trim(), MAX_INTENT);
    const code = ms.find((m) => m.outcome.code)?.outcome.code;
    const context = code ? truncate(`The user provided:\n${code}`, MAX_CONTEXT) : (f.definition?.context ?? '');
    const projects = new Set(ms.map((m) => m.project));
    const agents = [...new Set(ms.map((m) => m.agent))].filter((a): a is AgentId => AgentIdSchema.safeParse(a).success).sort();
    const ts = ms.map((m) => m.ts).filter((x): x is number => x !== null);
    const fresh: Task = {
      id: inst.id,
      project: projects.size === 1 ? [...projects][0] : null,
      intent,
      context,
      judge: { checks: judgeChecks.map((c) => ({ ...c })), reference: { kind: 'rubric', rubric: rubricFor(intent, own ? currentCorrections(corrections) : base.asked), passThreshold: 0.7 } },
      split: splits.get(inst.id) ?? 'train',
      origin: 'real',
      skillHint,
      family: f.clusterId,
      occurrences: ms.length,
      firstSeen: ts.length ? Math.min(...ts) : null,
      lastSeen: ts.length ? Math.max(...ts) : null,
      status: 'active',
      reviewed: false,
      corrections,
      agents,
    };
    const outcomes = evidenceOf(ms);
    if (outcomes.kept.length) fresh.kept = outcomes.kept;
    if (outcomes.procedures.length) fresh.procedures = outcomes.procedures;
    const existing = f.existing.get(inst.id);
    // (the split computed above already honours the stored one; it only ever moves a task to train)
    // outcome evidence is always the fresh one (a curated task keeps its definition, not stale evidence)
    const merged = { ...mergeTask(existing, fresh), family: f.clusterId, split: fresh.split, kept: fresh.kept, procedures: fresh.procedures };
    // most instances of a big family are unchanged by a night's few new asks: when the merged
    // record is the stored one (same JSON), the stored (already valid) task stands and the schema
    // is not run again — validating thousands of unchanged tasks was most of an incremental run
    const same = existing !== undefined && sameJson(merged, existing);
    const task = same ? existing : TaskSchema.parse(merged);
    return {
      task,
      members: ms,
      isNew: !existing,
      changed: !same && (!existing || JSON.stringify(existing) !== JSON.stringify(task)),
      membersChanged: !existing || existing.occurrences !== ms.length,
      splitFree: !existing && !inherited.has(inst.id),
    };
  });
  const superseded = [...f.existing.values()].filter((t) => !ids.has(t.id) && !isCurated(t)).map((t) => t.id);
  return { instances: out, superseded, checks: base.checks, corrections: base.corrections, typicalIntent: base.typicalIntent };
}
