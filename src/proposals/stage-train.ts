/**
 * Turns a TrainResult into a staged proposal (through `stageProposal`), the same way for the `train`
 * command and the nightly cycle. Nothing is staged unless the best skill passed the gate.
 */
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import type { Proposal, SkillTarget } from '../core/records.js';
import type { RoleBackends } from '../core/protocol.js';
import { stageProposal } from './staging.js';
import type { TrainResult } from '../trainer/index.js';
import type { EditScope } from '../skilldoc/segments.js';
import { DRAFT_EDIT_ID } from '../trainer/index.js';

/**
 * The best skill differs from the start and strictly beat it on validation. A run that started from
 * the start draft (which itself beat the starting skill on val) is measured from the starting skill.
 */
export function trainingImproved(result: TrainResult): boolean {
  const d = result.startDraft;
  if (d) return result.bestSkill !== d.startSkill && result.best.val > d.startVal;
  return result.bestSkill !== result.baselineSkill && result.best.val > result.baseline.val;
}

/** The run's figures measured from the skill the caller passed in (the draft's edits first, when it started from one). */
export function fromStart(result: TrainResult): { startContent: string; baseline: { val: number; test: number | null }; perTask: TrainResult['perTask']; edits: TrainResult['edits'] } {
  const d = result.startDraft;
  if (!d) return { startContent: result.baselineSkill, baseline: result.baseline, perTask: result.perTask, edits: result.edits };
  const before = new Map(d.startPerTask.map((t) => [`${t.split}:${t.taskId}`, t.score]));
  return {
    startContent: d.startSkill,
    baseline: { val: d.startVal, test: d.startTest },
    perTask: result.perTask.map((t) => ({ ...t, before: before.get(`${t.split}:${t.taskId}`) ?? t.before })),
    // the draft first: the edits training accepted were made on top of it (partial apply replays them in order)
    edits: [...d.edits.map((e, i) => ({ ...e, id: `${DRAFT_EDIT_ID}-${i + 1}`, status: 'accepted' as const, effect: null, scoreDrop: null })), ...result.edits],
  };
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
  const start = fromStart(result);
  const testPer = start.perTask.filter((t) => t.split === 'test').map((t) => ({ taskId: t.taskId, before: t.before, after: t.after }));
  const b = input.backends;
  return stageProposal(db, paths, {
    target: input.target,
    userSkillPath: input.userSkillPath,
    baseContent: input.baseContent,
    startContent: start.startContent,
    candidate: result.bestSkill,
    editScope: input.editScope,
    result: {
      accepted: true,
      baselineScore: start.baseline.val,
      candidateScore: result.best.val,
      perTask: start.perTask.filter((t) => t.split === 'val'),
      edits: start.edits,
      gateTrials: result.steps.map((s) => ({ step: s.globalStep, action: s.action, valBefore: s.valBefore, valAfter: s.valAfter, reason: s.reason })),
      notes: [
        `trained ${result.steps.length} step(s) over ${result.epochs.length} epoch(s); best from step ${result.bestStep}; stopped: ${result.stoppedBy}`,
        ...(result.startDraft ? [result.startDraft.note] : []),
        ...(input.notes ?? []),
      ],
    },
    runId: result.runId,
    nightId: input.nightId ?? null,
    test: start.baseline.test !== null && result.best.test !== null ? { before: start.baseline.test, after: result.best.test, perTask: testPer } : null,
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
