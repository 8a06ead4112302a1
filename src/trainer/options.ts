/**
 * The options of one training run: the user's knobs (defaulted from the config schema, one source
 * of truth) and a switch per mechanism, so the bench can turn each off in turn. What is a constant
 * of one mechanism (the gate's confidence and rounds, the optimizer's minibatch size) lives beside
 * that mechanism, with its reason, not here. docs/TRAINER.md names each mechanism and its figure.
 */
import type { Config } from '../core/config.js';
import { defaultConfig } from '../core/config.js';
import { SleepError } from '../core/errors.js';
import type { LrSchedule } from './optimizer/lr.js';
import type { GateMetric } from './gate/gate.js';

export interface TrainOptions {
  // ---- the user's knobs (config `training.*`) ----
  epochs: number;
  batchSize: number;
  /** max edits per step (the textual learning rate) */
  lr: number;
  lrSchedule: LrSchedule;
  minLr: number;
  gateMetric: GateMetric;
  noRegression: boolean;
  margin: number;
  seed: number;
  /** allow edits outside the learned region of a hand-written skill (and in its front matter) */
  fullDocument: boolean;
  /** when a multi-edit candidate is rejected, score its edits alone and keep those that help (passes/rescue.ts) */
  rescue: boolean;
  /** after attribution, drop accepted edits whose removal raises validation (gated like a step) */
  prune: boolean;
  /** after attribution, drop accepted edits with no measurable effect when the skill scores no lower without them */
  simplify: boolean;
  /** accepted edits scored leave-one-out at the end; only these can be pruned or simplified */
  attributionMaxEdits: number;
  // ---- how the run replays ----
  /** rollouts per task */
  samples: number;
  /** parallel rollouts */
  concurrency: number;
  // ---- the mechanisms, each on by default unless said (false only for an ablation) ----
  /** the paired val gate; off, every candidate is force-accepted */
  gateEnabled: boolean;
  /** the learning rate caps the edits a step applies; off, every merged edit is applied */
  lrCap: boolean;
  /** rejected edits are remembered, shown to the optimizer and blocked (optimizer/buffer.ts) */
  useBuffer: boolean;
  /** the epoch boundary's guidance rewrite, gated (passes/slow-update.ts) */
  slowUpdate: boolean;
  /** the optimizer's strategy memory across epochs (passes/meta-skill.ts); OFF by default: no effect measured, ~12% more prompt tokens */
  metaSkill: boolean;
  /** weigh a draft of the task data's checks and the user's corrections against the starting skill, and train from it when it wins (passes/start-gate.ts) */
  startDraft: boolean;
  /** the start draft holds the visible checks' descriptions beside the corrections (the night drafts corrections only) */
  startDraftChecks: boolean;
  /** try each edit of a multi-edit proposal alone first; keep those that raise their own job's val tasks without leaking (gate/pre-screen.ts) */
  preScreen: boolean;
  /** gate against fresh val samples of the incumbent, not the measure that made it win (gate/fresh-incumbent.ts) */
  freshIncumbent: boolean;
  /** reject a candidate that lowers the val tasks of jobs its edits were not learned from (gate/scope-leak.ts) */
  scopeScreen: boolean;
  /** accept an indecisive candidate whose gain on its own job's val tasks is surely worth a change, with no loss elsewhere (gate/paired.ts) */
  focusAccept: boolean;
  /** at each epoch boundary but the last, cut accepted edits and rule sentences whose removal raises val (passes/mid-prune.ts; needs `prune`) */
  midRunPrune: boolean;
  /** drop edits backed only by failures the analyst labelled execution lapses (optimizer/reflect.ts dropLapseOnly) */
  skillAware: boolean;
}

/** The user-facing knobs default from the config schema; the rest are the loop's. */
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
  samples: 1,
  concurrency: 4,
  gateEnabled: true,
  lrCap: true,
  useBuffer: true,
  slowUpdate: true,
  // off: on the train bench it changed nothing (0.795 on test with and without, 10 seeds; 0.887 both
  // ways on the instance-valued world) and cost ~12% of the optimizer's prompt tokens
  metaSkill: false,
  startDraft: true,
  startDraftChecks: true,
  preScreen: true,
  freshIncumbent: true,
  scopeScreen: true,
  focusAccept: true,
  midRunPrune: true,
  skillAware: true,
};

/** Maps `config.training` onto trainer options (the rest keep their defaults). */
export function trainOptionsFromConfig(training: Config['training']): Partial<TrainOptions> {
  const { epochs, batchSize, lr, lrSchedule, minLr, gateMetric, noRegression, margin, fullDocument, seed, rescue, prune, simplify, attributionMaxEdits } = training;
  return { epochs, batchSize, lr, lrSchedule, minLr, gateMetric, noRegression, margin, fullDocument, seed, rescue, prune, simplify, attributionMaxEdits };
}

export function resolveTrainOptions(partial: Partial<TrainOptions>): TrainOptions {
  const o: TrainOptions = { ...DEFAULT_TRAIN_OPTIONS, ...Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)) };
  const intMin = (v: number, min: number, name: string) => {
    if (!Number.isInteger(v) || v < min) throw new SleepError('USAGE', `${name} must be an integer ≥ ${min} (got ${v})`, { exitCode: 2 });
  };
  // 0: no training steps, the start draft through the gate only (a night's budget fit, night/fit.ts)
  intMin(o.epochs, 0, 'epochs');
  intMin(o.batchSize, 1, 'batch size');
  intMin(o.lr, 1, 'learning rate');
  intMin(o.minLr, 0, 'minimum learning rate');
  intMin(o.samples, 1, 'samples');
  intMin(o.attributionMaxEdits, 0, 'attribution max edits');
  if (o.minLr > o.lr) o.minLr = o.lr;
  if (!(o.margin >= 0)) throw new SleepError('USAGE', `margin must be ≥ 0 (got ${o.margin})`, { exitCode: 2 });
  return o;
}
