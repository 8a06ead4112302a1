/**
 * A training run: checks its input, starts it (or resumes it from its run directory), runs the
 * loop's epochs (loop.ts) and the finish (passes/finish.ts). Never writes the live skill file.
 */
import path from 'node:path';
import { SleepError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { silentProgress } from '../core/progress.js';
import { createRun, getRun, updateRun } from '../store/repos/runs.js';
import { splitScore, type SplitScores } from './gate/gate.js';
import type { ApplyOptions } from '../skilldoc/edits.js';
import type { EditScope } from '../skilldoc/segments.js';
import { RejectedEditBuffer } from './optimizer/buffer.js';
import { UsageMeter, type CallContext } from './optimizer/call.js';
import { makeMeasurer } from './measure.js';
import { RunFiles, type RunState } from './run-files.js';
import { stopReason, type TrainContext } from './context.js';
import { runEpochs, stepsPerEpoch } from './loop.js';
import { finishRun } from './passes/finish.js';
import { weighStartDraft } from './passes/start-gate.js';
import { resolveTrainOptions } from './options.js';
import type { StartDraftOutcome, TrainInput, TrainResult } from './types.js';

export async function trainSkill(input: TrainInput): Promise<TrainResult> {
  const options = resolveTrainOptions(input.options);
  const { db, backends, signal } = input;
  const { train, test } = input.tasks;
  const { val } = input.tasks;
  if (!train.length) throw new SleepError('INVALID_INPUT', 'no training tasks', { hint: 'mine more sessions (`skillopt-sleep mine`) or pass --tasks FILE' });
  if (!val.length) throw new SleepError('INVALID_INPUT', 'no validation tasks: the gate cannot judge a candidate', { hint: 'at least one task must be in the val split' });
  // A task in two splits would let the gate (or the test report) see what training saw.
  const seen = new Map<string, string>();
  for (const [name, list] of [['train', train], ['val', val], ['test', test]] as const) {
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
  const taskById = new Map([...train, ...val, ...test].map((t) => [t.id, t]));
  const spe = stepsPerEpoch(train.length, options.batchSize);
  const totalSteps = options.epochs * spe;
  const measure = makeMeasurer({ db, backends, skillName: input.skill.name, samples: options.samples, concurrency: options.concurrency, meter, signal, runId });
  const score = (s: SplitScores) => splitScore(s, options.gateMetric);

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
        const weighed = await weighStartDraft({ start: input.skill.content, tasks: [...train, ...val], val, test, options, applyOpts, measure, st: { valComparisons } });
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

  return finishRun(ctx, await runEpochs(ctx));
}
