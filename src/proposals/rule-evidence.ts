/**
 * The outcome evidence of a candidate's rules, at staging (issue 41): the kept outcomes and
 * procedures of every task of the families the proposal was scored on (train tasks hold most of
 * it; the gate's per-task list names only validation and test tasks), matched to the rules by the
 * literal each names (mine/kept/rule-evidence.ts).
 */
import type { Db } from '../store/db.js';
import type { KeptOutcome, Task } from '../core/records.js';
import { getTask, getTaskClusterId } from '../store/repos/tasks.js';
import { familyTasks } from '../mine/state.js';
import { mergeTaskProcedures, ruleEvidence, rulesOf, type RuleEvidence } from '../mine/kept/rule-evidence.js';

export function proposalRuleEvidence(db: Db, candidate: string, taskIds: string[]): RuleEvidence[] {
  const tasks = new Map<string, Task>();
  const families = new Set<string>();
  for (const id of new Set(taskIds)) {
    const t = getTask(db, id);
    if (!t) continue;
    tasks.set(t.id, t);
    const family = t.family ?? getTaskClusterId(db, id);
    if (family) families.add(family);
  }
  for (const f of families) for (const [id, t] of familyTasks(db, f)) if (t.status === 'active') tasks.set(id, t);
  const kept = new Map<string, KeptOutcome>();
  for (const t of tasks.values()) for (const k of t.kept ?? []) kept.set(`${k.kind}\u0000${k.file ?? ''}\u0000${k.commit}\u0000${k.session ?? ''}`, k);
  if (!kept.size && ![...tasks.values()].some((t) => t.procedures?.length)) return [];
  return ruleEvidence(rulesOf(candidate), [...kept.values()], mergeTaskProcedures([...tasks.values()].map((t) => t.procedures ?? [])));
}
