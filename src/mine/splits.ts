/**
 * Train/val/test assignment and holdout integrity. A task's split is a pure function of its id (a
 * stable hash), so it never moves between nights: a task the optimizer trained on can never later
 * be used to validate it. Synthetic (dream) tasks are always train. `checkSplitIntegrity` is what
 * the gate calls before trusting a validation score: any violation blocks it.
 */
import crypto from 'node:crypto';
import type { Db } from '../store/db.js';
import type { Split, Task } from '../core/records.js';
import { occurrencesSharedAcrossSplits } from '../store/repos/mining.js';
import { listTasks } from '../store/repos/tasks.js';
import { normalizePrompt } from './normalize.js';
import { memoizeText } from './memo.js';

export const SPLIT_FRACTIONS = { val: 0.3, test: 0.15 } as const;

/** Uniform number in [0,1) from the task id (and the training seed). */
export function splitBucket(taskId: string, seed = 1): number {
  const h = crypto.createHash('sha256').update(`${seed}:${taskId}`).digest();
  return h.readUInt32BE(0) / 0x1_0000_0000;
}

export function assignSplit(taskId: string, origin: Task['origin'], seed = 1): Split {
  if (origin === 'dream') return 'train';
  const u = splitBucket(taskId, seed);
  if (u < SPLIT_FRACTIONS.val) return 'val';
  if (u < SPLIT_FRACTIONS.val + SPLIT_FRACTIONS.test) return 'test';
  return 'train';
}

export interface FamilyMember {
  id: string;
  /** the split the task already has (a stored task never moves); absent for a new one */
  fixed?: Split;
}

/**
 * Splits of one recurring family's tasks, stratified so the gate can measure the family. A family
 * of fewer than 3 takes the stable hash (test only from 4, else that bucket trains). From 3 on, the
 * family's split sizes follow the fractions (val ≈ 30%, at least one; test ≈ 15% from 4) instead of
 * the luck of a few hashes: 12 hashed tasks gave one validation task as often as five, and a thin
 * validation split left a whole job untrained. Stored tasks keep their split and count first (a task
 * trained on is never held out later); new tasks fill what is missing in hash order, lowest to val,
 * then test, the rest train. Deterministic and independent of member order.
 */
export function assignFamilySplits(members: FamilyMember[], seed = 1): Map<string, Split> {
  const n = members.length;
  const out = new Map<string, Split>();
  const fresh: Array<{ id: string; u: number }> = [];
  for (const m of members) {
    if (m.fixed) out.set(m.id, m.fixed);
    else fresh.push({ id: m.id, u: splitBucket(m.id, seed) });
  }
  fresh.sort((a, b) => a.u - b.u || a.id.localeCompare(b.id));
  if (n < 3) {
    for (const f of fresh) {
      const s = assignSplit(f.id, 'real', seed);
      out.set(f.id, s === 'test' ? 'train' : s);
    }
    return out;
  }
  const count = (s: Split) => [...out.values()].filter((x) => x === s).length;
  let needVal = Math.max(1, Math.round(n * SPLIT_FRACTIONS.val)) - count('val');
  let needTest = (n >= 4 ? Math.round(n * SPLIT_FRACTIONS.test) : 0) - count('test');
  for (const f of fresh) {
    if (needVal > 0) {
      out.set(f.id, 'val');
      needVal--;
    } else if (needTest > 0) {
      out.set(f.id, 'test');
      needTest--;
    } else out.set(f.id, 'train');
  }
  if (count('train') === 0) {
    // the highest-hash new held-out task trains
    const f = [...fresh].reverse().find((x) => out.get(x.id) !== 'train');
    if (f) out.set(f.id, 'train');
  }
  return out;
}

/**
 * The sealed audit slice: a night's test tasks are what autoApply and the review read, so a
 * skill that keeps being applied on its test score is, over many nights, selected on test. One
 * third of the test tasks (a stable slot per task) sits out of the night's test score in turn —
 * never trained on, never validated on, never shown — and is scored only for the night report's
 * audit figure, so there is always a slice no decision has looked at. The rotation is by UTC day:
 * the same night always seals the same tasks, and every test task is sealed one night in three.
 */
export const AUDIT_ROTATION = 3;

/** The night's rotation slot (0 … AUDIT_ROTATION-1) from its start time. */
export function auditSlot(nightStartMs: number): number {
  return Math.floor(nightStartMs / 86_400_000) % AUDIT_ROTATION;
}

/**
 * Splits a night's test tasks into the sealed audit slice and the open rest. With two or more
 * test tasks at least one stays open (autoApply needs a test score to confirm a proposal).
 */
export function auditSlice<T extends { id: string; split: Split }>(tests: T[], slot: number, seed = 1): { audit: T[]; open: T[] } {
  const slotOf = (t: T) => Math.min(AUDIT_ROTATION - 1, Math.floor(splitBucket(t.id, seed + 7_919) * AUDIT_ROTATION));
  const held = tests.filter((t) => t.split === 'test');
  let audit = held.filter((t) => slotOf(t) === slot);
  if (audit.length === held.length && held.length > 1) {
    // keep the one with the highest bucket open
    const keep = [...audit].sort((a, b) => splitBucket(b.id, seed + 7_919) - splitBucket(a.id, seed + 7_919))[0];
    audit = audit.filter((t) => t !== keep);
  }
  const sealed = new Set(audit);
  return { audit, open: tests.filter((t) => !sealed.has(t)) };
}

export type SplitViolationKind = 'duplicate_id' | 'synthetic_in_holdout' | 'near_duplicate' | 'derived_leak' | 'shared_occurrence';

export interface SplitViolation {
  kind: SplitViolationKind;
  taskIds: string[];
  message: string;
}

const holdout = (s: Split) => s === 'val' || s === 'test';

/** The id a synthetic variant was derived from (`<id>_dream<k>`, `recall:<id>`), if any. */
export function derivedFrom(taskId: string): string | null {
  const dream = /^(.*)_dream\d+$/.exec(taskId);
  if (dream) return dream[1];
  if (taskId.startsWith('recall:')) return taskId.slice('recall:'.length);
  return null;
}

/** What the split checks read of a task (a mining run reads these columns rather than parse every record). */
export type TaskSplitFacts = Pick<Task, 'id' | 'project' | 'intent' | 'split' | 'origin' | 'status' | 'family'>;

/** The key of a task's intent, memoised: every mining run checks every active task, and intents rarely change. */
const intentKeyOf = memoizeText((intent) => {
  const key = normalizePrompt(intent).key;
  return key ? `${key}${codeObjectsSuffix(intent)}` : key;
});

function intentKey(t: Pick<Task, 'intent'>): string {
  return intentKeyOf(t.intent);
}

/**
 * The code objects an ask names (identifiers such as `parseAmount` or `tenant_id`, paths such as
 * src/a.ts), sorted: the normalized key strips them to cluster asks by job, but two asks that
 * differ in the function or file they are about are two instances of the job, not one ask said
 * twice ("write vitest cases for parseAmount" / "… for roundHalfEven"). Versions, numbers and
 * ticket ids stay incidental ("release notes for v2.4.0" / "… v2.7.0" are the same ask).
 */
export function codeObjectsSuffix(text: string): string {
  const t = text.replace(/`([^`\n]*)`/g, ' $1 ');
  const found = new Set<string>();
  for (const m of t.matchAll(/(?:^|[^\w.])([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)(?![\w.])/g)) found.add(m[1].toLowerCase());
  for (const m of t.matchAll(/(?:[A-Za-z]:)?[~.\w@-]*[/\\][^\s'"`),;]+/g)) found.add(m[0].toLowerCase().replace(/[.:!?]+$/, ''));
  return found.size ? ` @${[...found].sort().join(',')}` : '';
}

/**
 * Pure check over a task set (e.g. the one a night is about to train and gate on):
 * - the same id in two splits;
 * - a synthetic task in val or test;
 * - the same ask (normalized intent) in a holdout split and in another split;
 * - a synthetic variant in train derived from a holdout task.
 */
export function checkSplitIntegrity<T extends Pick<Task, 'id' | 'split' | 'origin' | 'intent'>>(tasks: T[]): SplitViolation[] {
  const out: SplitViolation[] = [];
  const byId = new Map<string, T[]>();
  for (const t of tasks) byId.set(t.id, [...(byId.get(t.id) ?? []), t]);
  for (const [id, group] of byId) {
    const splits = new Set(group.map((t) => t.split));
    if (splits.size > 1) out.push({ kind: 'duplicate_id', taskIds: [id], message: `task ${id} is in several splits (${[...splits].join(', ')})` });
  }
  for (const t of tasks) {
    if (holdout(t.split) && t.origin === 'dream') {
      out.push({ kind: 'synthetic_in_holdout', taskIds: [t.id], message: `synthetic task ${t.id} is in ${t.split}; only real tasks may be held out` });
    }
    const src = derivedFrom(t.id);
    const parent = src ? byId.get(src)?.[0] : undefined;
    if (parent && holdout(parent.split) && !holdout(t.split)) {
      out.push({ kind: 'derived_leak', taskIds: [parent.id, t.id], message: `${t.id} (${t.split}) is derived from held-out task ${parent.id} (${parent.split})` });
    }
  }
  const byIntent = new Map<string, T[]>();
  for (const t of tasks) {
    const k = intentKey(t);
    if (!k) continue;
    byIntent.set(k, [...(byIntent.get(k) ?? []), t]);
  }
  for (const group of byIntent.values()) {
    const splits = new Set(group.map((t) => t.split));
    if (splits.size > 1 && group.some((t) => holdout(t.split))) {
      const ids = [...new Set(group.map((t) => t.id))];
      if (ids.length > 1) {
        out.push({ kind: 'near_duplicate', taskIds: ids, message: `the same ask is in ${[...splits].join(' and ')}: ${ids.join(', ')}` });
      }
    }
  }
  return out;
}

/**
 * The stored task pool: the pure checks above plus occurrences shared by tasks in different
 * splits (one prompt feeding both a train and a held-out task).
 */
export function checkStoredSplitIntegrity(db: Db, opts: { project?: string | null; activeTasks?: TaskSplitFacts[] } = {}): SplitViolation[] {
  // (a caller that has just listed the active tasks passes them: parsing every task is most of the cost)
  const tasks = opts.activeTasks
    ? opts.project !== undefined
      ? opts.activeTasks.filter((t) => t.project === opts.project)
      : opts.activeTasks
    : listTasks(db, { status: 'active', ...(opts.project !== undefined ? { project: opts.project } : {}) });
  const out = checkSplitIntegrity(tasks);
  const rows = occurrencesSharedAcrossSplits(db);
  const ids = new Set(tasks.map((t) => t.id));
  for (const r of rows) {
    if (opts.project !== undefined && !ids.has(r.a) && !ids.has(r.b)) continue;
    out.push({
      kind: 'shared_occurrence',
      taskIds: [r.a, r.b],
      message: `prompt ${r.s}#${r.q} feeds both ${r.a} (${r.sa}) and ${r.b} (${r.sb})`,
    });
  }
  return out;
}

export interface ThinProject {
  project: string | null;
  tasks: number;
  valTasks: number;
  /** more validation tasks needed to reach training.minValTasks */
  needed: number;
  /** estimated more recurring tasks to mine for that (new ones are held out once the skill keeps MIN_TRAIN_AFTER_TOP_UP train tasks) */
  moreTasks: number;
}

/**
 * Where a night trains a task: with its family's project, or cross-project (null, the personal
 * skill) when its family recurs in several projects (see night/plan.ts). Groups of active tasks by
 * that home, so the split checks count validation tasks per skill the way a night will gate them.
 */
type HomeFacts = Pick<Task, 'id' | 'project' | 'status' | 'family'>;

function groupByHome<T extends HomeFacts>(tasks: T[]): Map<string | null, T[]> {
  const active = tasks.filter((t) => t.status === 'active');
  const familyOf = (t: T) => t.family ?? `task:${t.id}`;
  const familyProjects = new Map<string, Set<string | null>>();
  for (const t of active) familyProjects.set(familyOf(t), (familyProjects.get(familyOf(t)) ?? new Set()).add(t.project));
  const groups = new Map<string | null, T[]>();
  for (const t of active) {
    const ps = familyProjects.get(familyOf(t))!;
    const home = ps.size === 1 ? [...ps][0] : null;
    const g = groups.get(home);
    if (g) g.push(t);
    else groups.set(home, [t]);
  }
  return groups;
}

/** A skill keeps at least this many train tasks when validation is topped up (one is a single example of the job). */
export const MIN_TRAIN_AFTER_TOP_UP = 2;

/** Projects whose active real tasks are too few for a meaningful validation split. */
type ThinFacts = Pick<Task, 'id' | 'project' | 'split' | 'status' | 'family'>;

export function thinProjects(tasks: ThinFacts[], minValTasks: number): ThinProject[] {
  const out: ThinProject[] = [];
  for (const [project, group] of groupByHome(tasks)) {
    const valTasks = group.filter((t) => t.split === 'val').length;
    const needed = Math.max(0, minValTasks - valTasks);
    // new tasks are held out for validation once the skill keeps its train minimum (topUpThinValidation)
    const trainTasks = group.filter((t) => t.split === 'train').length;
    if (needed > 0) out.push({ project, tasks: group.length, valTasks, needed, moreTasks: needed + Math.max(0, MIN_TRAIN_AFTER_TOP_UP - trainTasks) });
  }
  return out.sort((a, b) => (a.project ?? '').localeCompare(b.project ?? ''));
}

export interface TopUpFacts extends Pick<Task, 'id' | 'project' | 'split' | 'status' | 'family' | 'intent' | 'origin'> {
  /** a task written for the first time this run, split by the hash alone: it may still move to val */
  movable: boolean;
}

/**
 * The new train tasks to hold out for validation, so a skill reaches `training.minValTasks`
 * validation tasks as soon as it has tasks to spare. The family splits (assignFamilySplits) follow
 * the fractions per family, but a night gates per skill: a project with one recurring job of 8
 * tasks got 2 validation tasks, and with minValTasks 3 its night was skipped ("thin night") with
 * 5 tasks in train. A night that cannot gate stages nothing; one train task fewer costs little.
 *
 * Per home group (the skill a night trains) below minValTasks, new train tasks move to val while
 * the group keeps MIN_TRAIN_AFTER_TOP_UP train tasks and each family keeps one (a job whose every
 * task is held out is never trained): from the family with the most train tasks, lowest hash first.
 * Only tasks new this run move (a stored task never changes split: one trained on is never held
 * out later), only train → val (the test tasks and their judges stay), only real tasks, and never
 * one whose ask (normalized intent) another active task outside validation shares (the integrity
 * check would block the night). Deterministic and independent of input order.
 */
export function topUpThinValidation(tasks: TopUpFacts[], minValTasks: number, seed = 1): Set<string> {
  const promote = new Set<string>();
  const splitOf = (t: TopUpFacts) => (promote.has(t.id) ? 'val' : t.split);
  const active = tasks.filter((t) => t.status === 'active');
  const byKey = new Map<string, TopUpFacts[]>();
  for (const t of active) {
    const k = intentKey(t);
    if (k) byKey.set(k, [...(byKey.get(k) ?? []), t]);
  }
  const sharesAsk = (t: TopUpFacts) => (byKey.get(intentKey(t)) ?? []).some((o) => o.id !== t.id && splitOf(o) !== 'val');
  for (const group of groupByHome(active).values()) {
    const familyOf = (t: TopUpFacts) => t.family ?? `task:${t.id}`;
    const count = (pred: (t: TopUpFacts) => boolean) => group.filter(pred).length;
    for (;;) {
      if (count((t) => splitOf(t) === 'val') >= minValTasks) break;
      if (count((t) => splitOf(t) === 'train') <= MIN_TRAIN_AFTER_TOP_UP) break;
      const familyTrain = new Map<string, number>();
      for (const t of group) if (splitOf(t) === 'train') familyTrain.set(familyOf(t), (familyTrain.get(familyOf(t)) ?? 0) + 1);
      const candidates = group
        .filter((t) => t.movable && t.origin === 'real' && splitOf(t) === 'train' && familyTrain.get(familyOf(t))! > 1 && !sharesAsk(t))
        .sort((a, b) => familyTrain.get(familyOf(b))! - familyTrain.get(familyOf(a))! || splitBucket(a.id, seed) - splitBucket(b.id, seed) || a.id.localeCompare(b.id));
      if (!candidates.length) break;
      promote.add(candidates[0].id);
    }
  }
  return promote;
}
