/**
 * Turns a TrainResult into a staged proposal (through `stageProposal`), the same way for the `train`
 * command and the nightly cycle. Nothing is staged unless the best skill passed the gate.
 */
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import type { Proposal, SkillTarget } from '../core/records.js';
import { Role, type RoleBackends } from '../core/protocol.js';
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

/** The backend and model of each role the run used (what the proposal records; never a key or a URL). */
function backendsOf(b: RoleBackends): Record<string, { backend: string; model: string }> {
  return Object.fromEntries(Role.options.flatMap((role) => (b[role] ? [[role, { backend: b[role].name, model: b[role].model }]] : [])));
}

/**
 * Stages a run's best skill as a proposal: the one path of `train` and the night. The proposal holds
 * per-task scores for every split (measured from the skill the caller passed in), the gate's trial
 * of every step, the edits (a taken start draft's first) and one evidence log: the caller's plan
 * entry when it has one, then every step and every epoch (`stage: 'plan' | 'step' | 'epoch'`).
 * Returns null when training did not improve on the starting skill (nothing is staged).
 */
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
    /** the environment a personal skill's home is derived from (the night's own; default the process's) */
    env?: NodeJS.ProcessEnv;
    /** the caller's plan, first in the evidence log (the night: how the skill was routed, its tasks, the corrections) */
    plan?: Record<string, unknown>;
    /** the wording lint's token budget per skill (config `training.skillTokenBudget`) */
    tokenBudget?: number;
  },
): Proposal | null {
  const { result } = input;
  if (!trainingImproved(result)) return null;
  const start = fromStart(result);
  return stageProposal(db, paths, {
    target: input.target,
    userSkillPath: input.userSkillPath,
    ...(input.env ? { env: input.env } : {}),
    baseContent: input.baseContent,
    startContent: start.startContent,
    ...(input.tokenBudget ? { tokenBudget: input.tokenBudget } : {}),
    candidate: result.bestSkill,
    editScope: input.editScope,
    result: {
      accepted: true,
      baselineScore: start.baseline.val,
      candidateScore: result.best.val,
      // every split, "before" the starting skill's; staging keeps the split of each row
      perTask: start.perTask,
      edits: start.edits,
      gateTrials: result.steps.map((s) => ({ step: s.globalStep, action: s.action, valBefore: s.valBefore, valAfter: s.valAfter, reason: s.reason })),
      notes: [
        `trained ${result.steps.length} step(s) over ${result.epochs.length} epoch(s); best from step ${result.bestStep}; stopped: ${result.stoppedBy}`,
        ...(result.startDraft ? [result.startDraft.note] : []),
        ...(result.stoppedBy !== 'done' ? [`training stopped early (${result.stoppedBy}); this is the best candidate that passed the gate before that`] : []),
        ...(input.notes ?? []),
      ],
    },
    runId: result.runId,
    nightId: input.nightId ?? null,
    test: start.baseline.test !== null && result.best.test !== null ? { before: start.baseline.test, after: result.best.test } : null,
    budget: result.usage.budget,
    backends: input.backends ? backendsOf(input.backends) : undefined,
    evidence: [
      ...(input.plan ? [{ stage: 'plan', ...input.plan }] : []),
      ...result.steps.map((s) => ({ stage: 'step', ...s })),
      ...result.epochs.map((e) => ({ stage: 'epoch', ...e })),
    ],
  });
}
