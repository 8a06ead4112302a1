/** Public types of the training loop: what a step reports and a run returns (re-exported by index.ts). */
import type { ReplayWorkspaceSummary } from '../replay/index.js';
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import type { Edit, EditRecord, Split, Task } from '../core/records.js';
import type { RoleBackends } from '../core/protocol.js';
import type { BudgetTracker } from '../llm/budget.js';
import type { Progress } from '../core/progress.js';
import type { GateAction } from './gate/gate.js';
import type { StageUsage } from './optimizer/call.js';
import type { TrainOptions } from './options.js';

export type { TrainOptions } from './options.js';

export type StepAction = GateAction | 'skip_no_patches' | 'skip_no_edits' | 'reject_no_change';

export interface StepReport {
  epoch: number;
  /** 1-based step within the epoch */
  step: number;
  stepsInEpoch: number;
  globalStep: number;
  totalSteps: number;
  rolloutTasks: number;
  trainHard: number;
  trainSoft: number;
  failures: number;
  successes: number;
  infraErrors: number;
  patches: number;
  reflectErrors: number;
  mergeFallbacks: number;
  /** merged edits proposed for selection (after the rejected-edit filter) */
  proposed: number;
  /** proposals dropped because they repeat a rejected edit */
  blocked: number;
  lr: number;
  lrReason?: string;
  selected: number;
  applied: number;
  unmatched: number;
  action: StepAction;
  valBefore: number;
  valAfter: number | null;
  bestScore: number;
  regressions: string[];
  reason: string;
  candidateHash: string | null;
  /** the paired gate: outcome, mean per-task gain and its bootstrap interval, extra sample rounds */
  gate?: {
    outcome: 'accept' | 'reject' | 'indecisive';
    meanDiff: number;
    lo: number;
    hi: number;
    n: number;
    rounds: number;
    /** the focus look on the val tasks of the edits' own jobs, when it ran */
    focus?: { meanDiff: number; lo: number; hi: number; n: number; minGain: number };
  };
  /** set when the gate accepted but the scope-leak screen found other jobs' val tasks dropping */
  leak?: { meanDiff: number; lo: number; hi: number; n: number };
  /** edits the pre-screen dropped before the gate (alone they did not help their own job, or leaked) */
  prescreened?: number;
  /** set when the full candidate was rejected but the edits that help alone were kept */
  rescued?: { kept: number; of: number; fullValAfter: number };
  /** the progress line, e.g. `[epoch 1 step 2/8] rollout 20 tasks · … · val 0.62 → 0.71 ACCEPT` */
  line: string;
  wallMs: number;
}

/** A step's report while the step's stages fill it in (the progress line comes last). */
export type StepReportDraft = Omit<StepReport, 'line'>;

export interface TrainUsage {
  stages: Record<string, StageUsage>;
  total: StageUsage;
  budget: { usd: number; tokens: number; calls: number } | null;
  /** where the fresh replays ran (agent-CLI targets): commits, reuse, empty workspaces and why */
  replays?: ReplayWorkspaceSummary;
}

/** The start draft training began from (start-gate.ts), with the starting skill's figures. */
export interface StartDraftOutcome {
  /** the draft's content (what training started from) */
  content: string;
  /** the edits that drafted it onto the starting skill (a proposal lists them first) */
  edits: Edit[];
  /** the skill the caller passed in */
  startSkill: string;
  /** the starting skill's val and test scores, and per task on both (the gate's metric) */
  startVal: number;
  startTest: number | null;
  startPerTask: Array<{ taskId: string; split: 'val' | 'test'; score: number }>;
  draftVal: number;
  /** rules drafted, and the jobs they went to */
  rules: number;
  jobs: string[];
  note: string;
}

export interface TrainResult {
  runId: string;
  runDir: string;
  baselineSkill: string;
  bestSkill: string;
  /** set when training started from the start draft: then `baselineSkill` is the draft, and this holds the starting skill's figures */
  startDraft?: StartDraftOutcome | null;
  baseline: { val: number; test: number | null };
  /**
   * val: the score the run selected the best skill on (optimistic: every decision reused those
   * draws); valFresh: the same skill on val draws no decision saw (an unbiased estimate; null when
   * the gate is off or the best is the baseline)
   */
  best: { val: number; valFresh?: number | null; test: number | null };
  perTask: Array<{ taskId: string; split: Split; before: number; after: number }>;
  edits: EditRecord[];
  steps: StepReport[];
  stoppedBy: 'done' | 'budget' | 'deadline' | 'aborted';
  usage: TrainUsage;
  /** the step whose candidate became the best (0 = baseline) */
  bestStep: number;
  epochs: Array<{ epoch: number; slowUpdate: string; metaSkill: string; valEnd: number }>;
  /** validation measurements per stage: how often this run reused its val split */
  valComparisons: Record<string, number>;
}

export interface TrainInput {
  db: Db;
  paths: SleepPaths;
  skill: { name: string; content: string; path?: string; handWritten: boolean };
  tasks: { train: Task[]; val: Task[]; test: Task[] };
  backends: RoleBackends;
  options: Partial<TrainOptions>;
  budget?: BudgetTracker;
  signal?: AbortSignal;
  progress?: Progress;
  onStep?: (line: StepReport) => void;
  /** epoch boundary notes (slow update, meta skill) for the CLI */
  onNote?: (line: string) => void;
  runId?: string;
  resume?: boolean;
}
