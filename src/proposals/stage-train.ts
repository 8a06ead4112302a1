/**
 * Turns a TrainResult into a staged proposal (through `stageProposal`), the same way for the `train`
 * command and the nightly cycle. Nothing is staged unless the best skill passed the gate.
 */
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import type { Proposal, SkillTarget } from '../core/records.js';
import type { RoleBackends } from '../core/protocol.js';
import { stageProposal } from './staging.js';
import type { TrainResult } from '../trainer/types.js';
import type { EditScope } from '../trainer/skilldoc.js';

/** The best skill differs from the start and strictly beat it on validation. */
export function trainingImproved(result: TrainResult): boolean {
  return result.bestSkill !== result.baselineSkill && result.best.val > result.baseline.val;
}

export function stageTrainResult(
  db: Db,
  paths: SleepPaths,
  input: {
    target: SkillTarget;
    /** the live file's content at base time; null when it did not exist */
    baseContent: string | null;
    result: TrainResult;
    editScope: EditScope;
    nightId?: string | null;
    backends?: RoleBackends;
    notes?: string[];
    /** the `--skill <path>` the user typed, when the target came from it */
    userSkillPath?: string;
  },
): Proposal | null {
  const { result } = input;
  if (!trainingImproved(result)) return null;
  const testPer = result.perTask.filter((t) => t.split === 'test').map((t) => ({ taskId: t.taskId, before: t.before, after: t.after }));
  const b = input.backends;
  return stageProposal(db, paths, {
    target: input.target,
    userSkillPath: input.userSkillPath,
    baseContent: input.baseContent,
    startContent: result.baselineSkill,
    candidate: result.bestSkill,
    editScope: input.editScope,
    result: {
      accepted: true,
      baselineScore: result.baseline.val,
      candidateScore: result.best.val,
      perTask: result.perTask.filter((t) => t.split === 'val'),
      edits: result.edits,
      gateTrials: result.steps.map((s) => ({ step: s.globalStep, action: s.action, valBefore: s.valBefore, valAfter: s.valAfter, reason: s.reason })),
      notes: [
        `trained ${result.steps.length} step(s) over ${result.epochs.length} epoch(s); best from step ${result.bestStep}; stopped: ${result.stoppedBy}`,
        ...(input.notes ?? []),
      ],
    },
    runId: result.runId,
    nightId: input.nightId ?? null,
    test: result.baseline.test !== null && result.best.test !== null ? { before: result.baseline.test, after: result.best.test, perTask: testPer } : null,
    budget: result.usage.budget,
    backends: b
      ? {
          target: { backend: b.target.name, model: b.target.model },
          optimizer: { backend: b.optimizer.name, model: b.optimizer.model },
          judge: { backend: b.judge.name, model: b.judge.model },
        }
      : undefined,
    evidence: result.steps.map((s) => ({ kind: 'train_step', ...s })),
  });
}
