/**
 * The trainer's face: what the rest of the product (the night, the proposals, the CLI) may use.
 * Everything else under src/trainer is the loop's own (docs/TRAINER.md).
 */
export { trainSkill } from './train.js';
export { DEFAULT_TRAIN_OPTIONS, resolveTrainOptions, trainOptionsFromConfig, type TrainOptions } from './options.js';
export type { StartDraftOutcome, StepAction, StepReport, TrainInput, TrainResult, TrainUsage } from './types.js';
export { stepsPerEpoch } from './loop.js';
export { formatStepLine } from './step-report.js';
export { lrSeries, type LrSchedule } from './optimizer/lr.js';
export { MINIBATCH_SIZE } from './optimizer/propose.js';
export { SLOW_UPDATE_SAMPLES } from './passes/slow-update.js';
export { DRAFT_EDIT_ID } from './passes/start-draft.js';
