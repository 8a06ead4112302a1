/**
 * What the optimizer may see of a task. Sealed checks are removed entirely (not just their
 * feedback), and an exact reference answer is withheld, so no optimizer prompt can quote them.
 * The trainer builds every optimizer-facing payload from this view, never from the stored task.
 */
import type { Task } from '../core/records.js';

export function optimizerView(task: Task): Task {
  const reference = task.judge.reference.kind === 'exact' ? { ...task.judge.reference, answer: '' } : { ...task.judge.reference };
  return {
    ...task,
    judge: { checks: task.judge.checks.filter((c) => !c.sealed).map((c) => ({ ...c })), reference },
    corrections: [...task.corrections],
    agents: [...task.agents],
  };
}

/** Ids of the sealed checks of a task (for assertions that they never leak). */
export function sealedChecks(task: Task): Task['judge']['checks'] {
  return task.judge.checks.filter((c) => c.sealed);
}
