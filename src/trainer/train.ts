/**
 * The gated training loop. One step: rollout (a train batch under the current skill) → reflect →
 * aggregate → select (≤ the step's learning rate) → update → gate on validation. Epoch boundaries
 * run the slow update and the meta skill. Every completed step is persisted (store row + run
 * directory + state.json), so a crashed run resumes from its last completed step; a budget or
 * deadline stop ends cleanly and keeps the best accepted skill. Never writes the live skill file.
 */
import type { Config } from '../core/config.js';
import path from 'node:path';
import type { Task } from '../core/records.js';
import { SleepError, throwIfAborted } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { silentProgress } from '../core/progress.js';
import { createRun, getRun, updateRun } from '../store/repos/runs.js';
import { splitScore, type SplitScores } from './gate/gate.js';
import type { ApplyOptions } from '../skilldoc/edits.js';
import type { EditScope } from '../skilldoc/segments.js';
import { RejectedEditBuffer } from './optimizer/buffer.js';
import { UsageMeter, type CallContext } from './optimizer/call.js';
import { makeMeasurer } from './measure.js';
import { chunk, shuffled } from './rng.js';
import { RunFiles, type RunState } from './run-files.js';
import { stopReason, type TrainContext } from './context.js';
import { runStep } from './step.js';
import { epochBoundary } from './boundary.js';
import { finishRun } from './passes/finish.js';
import { weighStartDraft } from './passes/start-gate.js';
import { DEFAULT_TRAIN_OPTIONS, type StartDraftOutcome, type TrainInput, type TrainOptions, type TrainResult } from './types.js';

export type { TrainOptions, TrainResult, StepReport, TrainInput, StepAction, TrainUsage } from './types.js';
export { DEFAULT_TRAIN_OPTIONS } from './types.js';
export { formatStepLine } from './step.js';

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
  intMin(o.epochs, 1, 'epochs');
  intMin(o.batchSize, 1, 'batch size');
  intMin(o.lr, 1, 'learning rate');
  intMin(o.minLr, 0, 'minimum learning rate');
  intMin(o.samples, 1, 'samples');
  intMin(o.attributionMaxEdits, 0, 'attribution max edits');
  if (o.minLr > o.lr) o.minLr = o.lr;
  if (!(o.margin >= 0)) throw new SleepError('USAGE', `margin must be ≥ 0 (got ${o.margin})`, { exitCode: 2 });
  return o;
}

export function stepsPerEpoch(trainCount: number, batchSize: number): number {
  return Math.max(1, Math.ceil(trainCount / batchSize));
}

/** The step's train batch: a seeded shuffle per epoch cut into consecutive chunks (upstream's plan). */
export function planEpoch(train: Task[], batchSize: number, seed: number, epoch: number): Task[][] {
  return chunk(shuffled(train, seed + epoch * 1000), batchSize);
}

/**
 * The val split cut in two: the gate's slice and, with `fraction` > 0, a slice for the finishing
 * passes, every ⌈1/fraction⌉-th task of each family (so both slices cover every job). The gate
 * keeps at least half; below 8 val tasks nothing is held out (each slice would say too little).
 */
export function splitFinishSlice(val: Task[], fraction: number): { gate: Task[]; finish: Task[] } {
  if (!(fraction > 0) || val.length < 8) return { gate: val, finish: [] };
  const every = Math.max(2, Math.ceil(1 / Math.min(0.5, fraction)));
  const seenPerFamily = new Map<string, number>();
  const gate: Task[] = [];
  const finish: Task[] = [];
  for (const t of val) {
    const key = t.family ?? '';
    const k = seenPerFamily.get(key) ?? 0;
    seenPerFamily.set(key, k + 1);
    (k % every === every - 1 ? finish : gate).push(t);
  }
  return finish.length ? { gate, finish } : { gate: val, finish: [] };
}

export async function trainSkill(input: TrainInput): Promise<TrainResult> {
  const options = resolveTrainOptions(input.options);
  const { db, backends, signal } = input;
  const { train, test } = input.tasks;
  const { gate: val, finish: finishVal } = splitFinishSlice(input.tasks.val, options.finishSlice);
  if (!train.length) throw new SleepError('INVALID_INPUT', 'no training tasks', { hint: 'mine more sessions (`skillopt-sleep mine`) or pass --tasks FILE' });
  if (!val.length) throw new SleepError('INVALID_INPUT', 'no validation tasks: the gate cannot judge a candidate', { hint: 'at least one task must be in the val split' });
  // A task in two splits would let the gate (or the test report) see what training saw.
  const seen = new Map<string, string>();
  for (const [name, list] of [['train', train], ['val', input.tasks.val], ['test', test]] as const) {
    for (const t of list) {
      const other = seen.get(t.id);
      if (other && other !== name) {
        throw new SleepError('INVALID_INPUT', `task ${t.id} is in both the ${other} and the ${name} split: the holdout leaked`, { hint: 'each task must be in exactly one split; re-run `skillopt-sleep mine` or fix the tasks file' });
      }
      seen.set(t.id, name);
    }
  }
  const progress = input.progress ?? silentProgress;
  const scope: EditScope = input.skill.handWritten && !options.fullDocument ? 'learned' : 'document';
  const applyOpts: ApplyOptions = { scope, allowFrontMatter: options.fullDocument };
  const runId = input.runId ?? newId('run');
  const runDir = path.join(input.paths.runsDir, runId);
  const files = new RunFiles(runDir);
  const meter = new UsageMeter();
  const call: CallContext = { optimizer: backends.optimizer, meter, signal, runId };
  const buffer = new RejectedEditBuffer(db, input.skill.path ?? `managed:${input.skill.name}`, options.useBuffer);
  const taskById = new Map([...train, ...input.tasks.val, ...test].map((t) => [t.id, t]));
  const spe = stepsPerEpoch(train.length, options.batchSize);
  const totalSteps = options.epochs * spe;
  const measure = makeMeasurer({ db, backends, skillName: input.skill.name, samples: options.samples, concurrency: options.concurrency, meter, signal, runId });
  const score = (s: SplitScores) => splitScore(s, options.gateMetric, options.mixedWeight);

  let state: RunState | null = input.resume ? files.loadState() : null;
  if (input.resume && !state && !getRun(db, runId)) {
    throw new SleepError('NOT_FOUND', `no run ${runId} to resume`, { hint: 'list runs in the state directory (`skillopt-sleep paths`) or start a new run' });
  }
  if (state) {
    meter.restore(state.usage);
    updateRun(db, runId, { status: 'running', endedAt: null });
  } else {
    if (!getRun(db, runId)) {
      createRun(db, { id: runId, kind: 'train', dir: runDir, record: { skill: input.skill.name, path: input.skill.path ?? null, options } });
    }
    files.writeConfig({ runId, skill: { name: input.skill.name, path: input.skill.path ?? null, handWritten: input.skill.handWritten }, options, scope, tasks: { train: train.map((t) => t.id), val: val.map((t) => t.id), test: test.map((t) => t.id) } });
    let base: Awaited<ReturnType<typeof measure>>;
    const valComparisons: Record<string, number> = {};
    let startDraft: StartDraftOutcome | null = null;
    try {
      if (options.startDraft) {
        const weighed = await weighStartDraft({ start: input.skill.content, tasks: [...train, ...input.tasks.val], val, test, options, applyOpts, measure, st: { valComparisons } });
        startDraft = weighed.taken;
        if (weighed.line) input.onNote?.(weighed.line);
      }
      base = await measure(val, startDraft?.content ?? input.skill.content, 'baseline');
    } catch (err) {
      // nothing to keep yet: the run ends here and the caller hears why (budget, abort, backend)
      updateRun(db, runId, { status: stopReason(err, signal) === 'aborted' ? 'aborted' : 'failed', endedAt: Date.now(), record: { ...(getRun(db, runId)?.record ?? {}), error: (err as Error).message } });
      throw err;
    }
    const startContent = startDraft?.content ?? input.skill.content;
    const baseState = { content: startContent, scores: base.scores, score: score(base.scores), origin: startDraft ? 'start_draft' : 'initial_skill' };
    state = {
      version: 1,
      runId,
      skillName: input.skill.name,
      options,
      lastCompletedStep: 0,
      epochsCompleted: 0,
      lr: { position: 0 },
      baseline: baseState,
      current: { ...baseState },
      best: { ...baseState, step: 0, lineageLength: 0 },
      epochStart: { content: startContent, score: baseState.score, scores: base.scores },
      metaSkill: '',
      lineage: [],
      edits: [],
      steps: [],
      epochs: [],
      usage: meter.snapshot(),
      valComparisons,
      startDraft,
    };
    files.writeSkill(0, startContent);
    files.writeBest(startContent);
    files.saveState(state);
  }
  const st: RunState = state;
  const persist = () => {
    st.usage = meter.snapshot();
    files.saveState(st);
  };
  const ctx: TrainContext = {
    input,
    options,
    db,
    st,
    files,
    meter,
    call,
    buffer,
    scope,
    applyOpts,
    runId,
    train,
    val,
    finishVal,
    test,
    taskById,
    spe,
    totalSteps,
    measure,
    score,
    persist,
    progress,
    signal,
  };

  // ---- the loop --------------------------------------------------------------------------------
  let stoppedBy: TrainResult['stoppedBy'] = 'done';
  progress.start(`train ${input.skill.name}`, totalSteps);
  if (st.lastCompletedStep) progress.tick(st.lastCompletedStep);
  try {
    for (let epoch = 1; epoch <= options.epochs; epoch++) {
      if (epoch <= st.epochsCompleted) continue;
      const batches = planEpoch(train, options.batchSize, options.seed, epoch);
      for (let i = 0; i < spe; i++) {
        if ((epoch - 1) * spe + i + 1 <= st.lastCompletedStep) continue;
        throwIfAborted(signal);
        await runStep(ctx, epoch, i, batches[i] ?? []);
      }
      throwIfAborted(signal);
      await epochBoundary(ctx, epoch);
    }
  } catch (err) {
    const reason = stopReason(err, signal);
    if (!reason) {
      persist();
      updateRun(db, runId, { status: 'failed', endedAt: Date.now(), record: { ...(getRun(db, runId)?.record ?? {}), error: (err as Error).message } });
      progress.done('failed');
      throw err;
    }
    stoppedBy = reason;
  }

  return finishRun(ctx, stoppedBy);
}
