/** Public types of the training loop (re-exported by train.ts). */
import type { ReplayWorkspaceSummary } from '../replay/index.js';
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import type { Edit, EditRecord, Split, Task } from '../core/records.js';
import type { RoleBackends } from '../core/protocol.js';
import type { BudgetTracker } from '../llm/budget.js';
import type { Progress } from '../core/progress.js';
import { defaultConfig } from '../core/config.js';
import { DEFAULT_MIXED_WEIGHT } from '../core/scoring.js';
import type { LrSchedule } from './optimizer/lr.js';
import type { GateAction, GateMetric } from './gate/gate.js';
import type { StageUsage } from './optimizer/call.js';

export interface TrainOptions {
  epochs: number;
  batchSize: number;
  /** max edits per step (the textual learning rate) */
  lr: number;
  lrSchedule: LrSchedule;
  minLr: number;
  gateMetric: GateMetric;
  /** weight of soft in the mixed metric */
  mixedWeight: number;
  noRegression: boolean;
  margin: number;
  seed: number;
  /** allow edits outside the learned region of a hand-written skill (and in its front matter) */
  fullDocument: boolean;
  /** false only for the ablation: every candidate is force-accepted */
  gateEnabled: boolean;
  /** false only for the ablation: every merged edit is applied (no learning-rate cap) */
  lrCap: boolean;
  /** false only for the ablation: rejected edits are not remembered nor shown */
  useBuffer: boolean;
  slowUpdate: boolean;
  metaSkill: boolean;
  /** train tasks sampled for the slow-update comparison */
  slowUpdateSamples: number;
  minibatchSize: number;
  mergeBatchSize: number;
  /** parallel optimizer calls (analysts, merges) */
  optimizerConcurrency: number;
  /** parallel rollouts */
  concurrency: number;
  /** rollouts per task */
  samples: number;
  failureOnly: boolean;
  attribution: boolean;
  /** accepted edits scored leave-one-out at the end; only these can be pruned or simplified */
  attributionMaxEdits: number;
  /** when a multi-edit candidate is rejected, score its edits alone and keep those that help */
  rescue: boolean;
  /** after attribution, drop accepted edits whose removal raises validation (gated like a step) */
  prune: boolean;
  /** after attribution, drop accepted edits with no measurable effect when the skill scores no lower without them */
  simplify: boolean;
  /** two-sided confidence of the gate's paired bootstrap interval */
  gateConfidence: number;
  /** bootstrap resamples of the gate's interval */
  gateResamples: number;
  /** extra sample rounds an indecisive candidate earns before it is rejected */
  gateRounds: number;
  /**
   * the smallest gain on its own job's val tasks worth a change to the skill: an otherwise
   * indecisive candidate whose interval there lies below it is rejected decisively (paired.ts
   * focus look); 0 = off
   */
  minFocusGain: number;
  /**
   * accept an otherwise indecisive candidate whose gain on its own job's val tasks is surely worth
   * a change (interval above `minFocusGain`) while the other jobs' tasks show no loss (paired.ts
   * focus accept)
   */
  focusAccept: boolean;
  /** at each epoch boundary but the last, cut accepted edits and rule sentences whose removal raises val (mid-prune.ts; needs `prune`) */
  midRunPrune: boolean;
  /** reject (and rescue) a candidate that lowers the val tasks of jobs its edits were not learned from (scope-leak.ts) */
  scopeScreen: boolean;
  /** two-sided confidence of the scope-leak interval */
  scopeConfidence: number;
  /** gate against fresh val samples of the incumbent, not the measure that made it win (step.ts freshIncumbent) */
  freshIncumbent: boolean;
  /** screen an accepted multi-edit candidate leave-one-out and drop the edit it scores higher without (step.ts screenStage) */
  screenAccepted: boolean;
  /** try each edit of a multi-edit candidate alone first; gate only those that raise their own job's val tasks without leaking (step.ts preScreenStage) */
  preScreen: boolean;
  /** drop edits backed only by failures the analyst labelled execution lapses (reflect.ts dropLapseOnly) */
  skillAware: boolean;
  /** a PR number or version an edit copied from its evidence tasks' asks becomes a placeholder (instance-values.ts) */
  deinstance: boolean;
  /** weigh a draft of the task data's visible checks and the user's corrections (start-gate.ts) against the starting skill, and train from it when it wins */
  startDraft: boolean;
  /** the start draft holds the visible checks' descriptions beside the corrections (the night drafts corrections only) */
  startDraftChecks: boolean;
  /** fraction of val held out for the finishing passes (attribution, prune, simplify); 0 = they reuse the gate's val */
  finishSlice: number;
}

/** The user-facing knobs default from the config schema (one source of truth); the rest are loop internals. */
const { epochs, batchSize, lr, lrSchedule, minLr, gateMetric, noRegression, margin, seed, fullDocument, rescue, prune, simplify, attributionMaxEdits } =
  defaultConfig().training;

export const DEFAULT_TRAIN_OPTIONS: TrainOptions = {
  epochs,
  batchSize,
  lr,
  lrSchedule,
  minLr,
  gateMetric,
  noRegression,
  margin,
  seed,
  fullDocument,
  rescue,
  prune,
  simplify,
  attributionMaxEdits,
  mixedWeight: DEFAULT_MIXED_WEIGHT,
  gateEnabled: true,
  lrCap: true,
  useBuffer: true,
  slowUpdate: true,
  // off: on the train bench it changed nothing (0.795 on test with and without, 10 seeds) and cost
  // ~12% of the optimizer's prompt tokens; the README says why
  metaSkill: false,
  slowUpdateSamples: 20,
  minibatchSize: 8,
  mergeBatchSize: 8,
  optimizerConcurrency: 4,
  concurrency: 4,
  samples: 1,
  failureOnly: false,
  attribution: true,
  gateConfidence: 0.9,
  gateResamples: 2000,
  gateRounds: 4,
  // a real fix of one check raises its job's val tasks by ≥ 0.2 on the train bench; a paraphrase
  // of a rule the skill holds, or a rule about nothing, by ≤ 0.06
  minFocusGain: 0.1,
  focusAccept: true,
  midRunPrune: true,
  scopeScreen: true,
  scopeConfidence: 0.8,
  freshIncumbent: true,
  finishSlice: 0,
  screenAccepted: false,
  preScreen: true,
  skillAware: true,
  deinstance: false,
  startDraft: true,
  startDraftChecks: true,
};

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
  /** edits the leave-one-out screen dropped from an accepted candidate */
  screened?: number;
  /** edits the pre-screen dropped before the gate (alone they did not help their own job, or leaked) */
  prescreened?: number;
  /** set when the full candidate was rejected but the edits that help alone were kept */
  rescued?: { kept: number; of: number; fullValAfter: number };
  /** the progress line, e.g. `[epoch 1 step 2/8] rollout 20 tasks · … · val 0.62 → 0.71 ACCEPT` */
  line: string;
  wallMs: number;
}

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
  /** val tasks held out for the finishing passes (0 = they reused the gate's val); best.val is then measured on them */
  finishSlice: number;
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
