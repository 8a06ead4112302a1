/**
 * One step's state, as it passes through the stages of loop.ts: each stage reads what the stages
 * before it wrote and writes its own part. The step's report (what the user sees and the run
 * directory keeps) is filled on the way.
 */
import type { Rollout, Task } from '../core/records.js';
import type { EditApplyResult } from '../skilldoc/edits.js';
import type { SplitScores } from './gate/gate.js';
import type { Verdict } from './gate/verdict.js';
import type { LrState } from './optimizer/lr.js';
import type { ProposedEdit, ReflectResult } from './optimizer/reflect.js';
import type { SkillState } from './run-files.js';
import type { StepReportDraft } from './types.js';

export interface StepState {
  epoch: number;
  /** 0-based step within the epoch */
  index: number;
  globalStep: number;
  batch: Task[];
  /** the step's seed (reflect's shuffles, the gate's bootstrap) */
  seed: number;
  t0: number;
  /** the learning rate's state after this step, and the step's budget */
  lr: { lr: number; state: LrState };
  /** the incumbent the step measures against (re-measured fresh before a gate) */
  before: SkillState;
  /** rollout: the train batch under the incumbent */
  trainRun: { scores: SplitScores; rollouts: Rollout[] } | null;
  /** propose: the analysts' patches, and the merged edits the rejected-edit buffer let through (`pool`) or blocked */
  refl: ReflectResult | null;
  pool: ProposedEdit[];
  blocked: ProposedEdit[];
  /** propose: edits dropped for writing a rule's opposite beside it (optimizer/consistency.ts), with why */
  contradicting?: Array<ProposedEdit & { why: string }>;
  mergeFallbacks: number;
  /** pre-screen: the proposals were each tried alone (the gate then takes fresh draws for a single one) */
  screenedAlone: boolean;
  report: StepReportDraft;
  /** select: what the learning rate let through, applied to the incumbent */
  edits: { selected: EditApplyResult[]; dropped: unknown[]; blocked: unknown[] };
  appliedEdits: EditApplyResult[];
  candidate: string | undefined;
  /** a candidate that differs from the incumbent waits for the gate */
  toGate: boolean;
  /** gate: the verdict on the full candidate (kept when the rescue replaces the candidate) */
  verdict: Verdict | null;
  candScores: SplitScores | null;
  /** each edit's own measured drop, when it was measured alone (the rescue), for the buffer */
  ownDrop: Map<number, number | null>;
}

/** One epoch boundary's state: what its slow update and meta skill did, in words for the run record. */
export interface EpochState {
  epoch: number;
  slowUpdate: string;
  metaSkill: string;
}
