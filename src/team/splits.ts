/**
 * Train/val/test for the team night, across members as well as tasks. The personal night splits a
 * family's tasks by a stable hash (mine/splits.ts); pooled tasks add two rules:
 *  - a member's session is one unit: every task mined from it lands in the same split, so a
 *    validation task never shares a session (and its context) with a training task; the same ask
 *    from two members (word for word once normalized) joins their units, as the holdout check
 *    (`checkSplitIntegrity`) would refuse it in two splits;
 *  - within each team job, each member's sessions are split on their own (val ≈ 30%, test ≈ 15%,
 *    `assignFamilySplits`), so every member who did the job trains it AND validates it, and
 *    validation holds other people's sessions, not only the member who wrote the most; a job seen
 *    from two members or more whose validation holds fewer than two members takes one more
 *    member's session into val (the lowest hash among the members not yet there).
 * The assignment is a pure function of the unit keys and the seed: the same pool splits the same
 * way on every member's machine and every night (a task trained on is never validated on later).
 * Synthetic (dream) tasks always train.
 */
import type { Split } from '../core/records.js';
import { assignFamilySplits, codeObjectsSuffix, splitBucket } from '../mine/splits.js';
import { normalizePrompt } from '../mine/normalize.js';
import type { PooledTask } from './contract.js';
import type { TeamJob } from './jobs.js';

/** The unit a split moves as a whole: one member's session. */
export const sessionUnit = (p: Pick<PooledTask, 'memberId' | 'sessionKey'>): string => `${p.memberId}\u0000${p.sessionKey}`;

/** Split of every pooled task (by content hash), job by job. */
export function assignTeamSplits(pooled: PooledTask[], jobs: TeamJob[], seed = 1): Map<string, Split> {
  const byHash = new Map(pooled.map((p) => [p.contentHash, p]));
  const out = new Map<string, Split>();
  for (const job of jobs) {
    const tasks = job.tasks.map((h) => byHash.get(h)).filter((p): p is PooledTask => p !== undefined);
    const real = tasks.filter((p) => p.task.origin !== 'dream');
    for (const p of tasks) if (p.task.origin === 'dream') out.set(p.contentHash, 'train');
    const unitOf = splitUnits(job.id, real);
    // each unit counts for the member whose session keys it first (a unit spans members only through the same ask)
    const unitsByMember = new Map<string, string[]>();
    for (const p of real) {
      const unit = unitOf.get(p.contentHash)!;
      const owner = unit.split('\u0000')[1];
      const list = unitsByMember.get(owner) ?? [];
      if (!list.includes(unit)) list.push(unit);
      unitsByMember.set(owner, list);
    }
    const unitSplit = new Map<string, Split>();
    for (const units of unitsByMember.values()) {
      for (const [u, s] of assignFamilySplits(units.map((id) => ({ id })), seed)) unitSplit.set(u, s);
    }
    spreadValidation(unitsByMember, unitSplit, seed);
    keepOneTrainUnit(unitSplit, seed);
    for (const p of real) out.set(p.contentHash, unitSplit.get(unitOf.get(p.contentHash)!) ?? 'train');
  }
  return out;
}

/** The ask as the holdout check compares it (mine/splits.ts `checkSplitIntegrity`): its normalized key and the code objects it names. */
function askKey(intent: string): string {
  const key = normalizePrompt(intent).key;
  return key ? `${key}${codeObjectsSuffix(intent)}` : '';
}

/**
 * The units of a job (content hash → unit key): tasks of one session, and tasks with the same ask
 * (two members asking the same thing word for word), are one unit, so neither can sit in train and
 * in validation at once. A unit's key is its smallest `job \0 member \0 session` key.
 */
function splitUnits(jobId: string, tasks: PooledTask[]): Map<string, string> {
  const keys = tasks.map((p) => `${jobId}\u0000${sessionUnit(p)}`);
  const parent = tasks.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const union = (a: number, b: number) => {
    const [ra, rb] = [find(a), find(b)];
    if (ra === rb) return;
    if (keys[ra] < keys[rb] || (keys[ra] === keys[rb] && ra < rb)) parent[rb] = ra;
    else parent[ra] = rb;
  };
  const firstBy = new Map<string, number>();
  tasks.forEach((p, i) => {
    for (const k of [`s:${keys[i]}`, `a:${askKey(p.task.intent)}`]) {
      if (k === 'a:') continue;
      const j = firstBy.get(k);
      if (j === undefined) firstBy.set(k, i);
      else union(i, j);
    }
  });
  return new Map(tasks.map((p, i) => [p.contentHash, keys[find(i)]]));
}

/** A job of several members validates on at least two of them (one more member's session moves to val). */
function spreadValidation(unitsByMember: Map<string, string[]>, unitSplit: Map<string, Split>, seed: number): void {
  if (unitsByMember.size < 2) return;
  const inVal = new Set<string>();
  for (const [m, units] of unitsByMember) if (units.some((u) => unitSplit.get(u) === 'val')) inVal.add(m);
  while (inVal.size < 2) {
    // the lowest-hash training unit of a member not yet validated on, leaving the job a training unit
    const trainUnits = [...unitSplit.values()].filter((s) => s === 'train').length;
    if (trainUnits < 2) return;
    const next = [...unitsByMember.entries()]
      .filter(([m]) => !inVal.has(m))
      .flatMap(([m, units]) => units.filter((u) => unitSplit.get(u) === 'train').map((u) => ({ m, u })))
      .sort((a, b) => splitBucket(a.u, seed) - splitBucket(b.u, seed) || a.u.localeCompare(b.u))[0];
    if (!next) return;
    unitSplit.set(next.u, 'val');
    inVal.add(next.m);
  }
}

/** A job keeps one training unit at least (the highest-hash held-out one trains). */
function keepOneTrainUnit(unitSplit: Map<string, Split>, seed: number): void {
  if (unitSplit.size < 2 || [...unitSplit.values()].includes('train')) return;
  const last = [...unitSplit.keys()].sort((a, b) => splitBucket(b, seed) - splitBucket(a, seed) || b.localeCompare(a))[0];
  unitSplit.set(last, 'train');
}

export interface SplitProvenance {
  split: Split;
  tasks: number;
  members: number;
  sessions: number;
}

/** Counts per split (tasks, members, sessions): what the night report and the PR body show, never who. */
export function splitProvenance(pooled: PooledTask[], splits: Map<string, Split>): SplitProvenance[] {
  return (['train', 'val', 'test'] as const).map((split) => {
    const in_ = pooled.filter((p) => splits.get(p.contentHash) === split);
    return { split, tasks: in_.length, members: new Set(in_.map((p) => p.memberId)).size, sessions: new Set(in_.map(sessionUnit)).size };
  });
}
