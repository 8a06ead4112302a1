/**
 * The gated training loop. One step: rollout (a train batch under the current skill) → reflect →
 * aggregate → select (≤ the step's learning rate) → update → gate on validation. Epoch boundaries
 * run the slow update and the meta skill. Every completed step is persisted (store row + run
 * directory + state.json), so a crashed run resumes from its last completed step; a budget or
 * deadline stop ends cleanly and keeps the best accepted skill. Never writes the live skill file.
 */
import path from 'node:path';
import type { EditRecord, Task } from '../core/records.js';
import { SleepError, isSleepError, throwIfAborted } from '../core/errors.js';
import { sha256 } from '../core/fsutil.js';
import { newId } from '../core/ids.js';
import { silentProgress } from '../core/progress.js';
import { createRun, getRun, saveStep, updateRun } from '../store/repos/runs.js';
import { scheduledLr, nextLr } from './lr.js';
import { gateDecision, metricScore, splitScore, perTaskRegressions, SCORE_EPSILON, type SplitScores } from './gate.js';
import { applyEdits, type ApplyOptions, type EditApplyResult } from './edits.js';
import { setGuidance, type EditScope } from './skilldoc.js';
import { reflect } from './reflect.js';
import { aggregate } from './aggregate.js';
import { decideBudget, selectEdits } from './select.js';
import { RejectedEditBuffer } from './buffer.js';
import { slowUpdate, updateMetaSkill } from './epoch.js';
import { attributeEdits, rebuildSkill, withoutEdits } from './attribution.js';
import { rescueEdits } from './rescue.js';
import { UsageMeter, type CallContext } from './optimizer.js';
import { makeMeasurer } from './measure.js';
import { chunk, shuffled } from './rng.js';
import { RunFiles, type RunState } from './run-files.js';
import { DEFAULT_TRAIN_OPTIONS, type StepReport, type TrainInput, type TrainOptions, type TrainResult } from './types.js';

export type { TrainOptions, TrainResult, StepReport, TrainInput, StepAction, TrainUsage } from './types.js';
export { DEFAULT_TRAIN_OPTIONS } from './types.js';

/** Maps `config.training` onto trainer options (the rest keep their defaults). */
export function trainOptionsFromConfig(training: {
  epochs: number;
  batchSize: number;
  lr: number;
  lrSchedule: TrainOptions['lrSchedule'];
  minLr: number;
  gateMetric: TrainOptions['gateMetric'];
  noRegression: boolean;
  margin: number;
  fullDocument: boolean;
  seed: number;
}): Partial<TrainOptions> {
  const { epochs, batchSize, lr, lrSchedule, minLr, gateMetric, noRegression, margin, fullDocument, seed } = training;
  return { epochs, batchSize, lr, lrSchedule, minLr, gateMetric, noRegression, margin, fullDocument, seed };
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

function stopReason(err: unknown, signal?: AbortSignal): TrainResult['stoppedBy'] | null {
  if (isSleepError(err) && err.code === 'BUDGET_EXCEEDED') return (err.details as { limit?: string } | undefined)?.limit === 'deadline' ? 'deadline' : 'budget';
  if ((isSleepError(err) && err.code === 'ABORTED') || signal?.aborted) return 'aborted';
  return null;
}

const f2 = (x: number | null) => (x === null ? '—' : x.toFixed(2));
const ACTION_LABEL: Record<StepReport['action'], string> = {
  accept_new_best: 'ACCEPT',
  accept: 'ACCEPT',
  force_accept: 'FORCE-ACCEPT',
  reject: 'REJECT',
  reject_no_change: 'REJECT (no change)',
  skip_no_patches: 'SKIP',
  skip_no_edits: 'SKIP',
};

export function formatStepLine(r: Omit<StepReport, 'line'>): string {
  const head = `[epoch ${r.epoch} step ${r.step}/${r.stepsInEpoch}] rollout ${r.rolloutTasks} tasks`;
  if (r.action === 'skip_no_patches') return `${head} · no edits proposed · SKIP`;
  const parts = [head, `${r.proposed} edits proposed`];
  if (r.blocked) parts.push(`${r.blocked} blocked as rejected before`);
  parts.push(`${r.selected} selected (lr ${r.lr})`);
  if (r.unmatched) parts.push(`${r.unmatched} unmatched`);
  if (r.action === 'skip_no_edits') return `${parts.join(' · ')} · SKIP`;
  if (r.rescued) parts.push(`val ${f2(r.valBefore)} → ${f2(r.rescued.fullValAfter)} REJECT → kept ${r.rescued.kept}/${r.rescued.of} edits: ${f2(r.valAfter)} ${ACTION_LABEL[r.action]}`);
  else parts.push(`val ${f2(r.valBefore)} → ${f2(r.valAfter)} ${ACTION_LABEL[r.action]}`);
  return parts.join(' · ');
}

function historyText(steps: StepReport[]): string {
  const recent = steps.slice(-5);
  if (!recent.length) return '';
  const lines = recent.map(
    (s) => `- step ${s.globalStep} (epoch ${s.epoch}): ${ACTION_LABEL[s.action]}${s.valAfter !== null ? ` val ${s.valBefore.toFixed(3)} → ${s.valAfter.toFixed(3)}` : ''}; ${s.failures}/${s.rolloutTasks} failed`,
  );
  return `\n## Previous Steps in This Run\n${lines.join('\n')}\n`;
}

function scopeNote(scope: EditScope, fullDocument: boolean): string {
  return scope === 'learned'
    ? 'Only the learned region (between `<!-- skillopt:learned:start -->` and `<!-- skillopt:learned:end -->`) can change. Add rules as short bullet lines; replace/delete anchors must quote text inside that region. The hand-written text above it is read-only: if a rule there is wrong, add an explicit rule that overrides it.'
    : `The whole Markdown body can change${fullDocument ? ', including the YAML front matter (keep it valid YAML)' : ' except the YAML front matter'}. Guidance blocks are read-only.`;
}

export async function trainSkill(input: TrainInput): Promise<TrainResult> {
  const options = resolveTrainOptions(input.options);
  const { db, backends, signal } = input;
  const { train, val, test } = input.tasks;
  if (!train.length) throw new SleepError('INVALID_INPUT', 'no training tasks', { hint: 'mine more sessions (`skillopt-sleep mine`) or pass --tasks FILE' });
  if (!val.length) throw new SleepError('INVALID_INPUT', 'no validation tasks: the gate cannot judge a candidate', { hint: 'at least one task must be in the val split' });
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
    const base = await measure(val, input.skill.content, 'baseline');
    const baseState = { content: input.skill.content, scores: base.scores, score: score(base.scores), origin: 'initial_skill' };
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
      epochStart: { content: input.skill.content, score: baseState.score, scores: base.scores },
      metaSkill: '',
      lineage: [],
      edits: [],
      steps: [],
      epochs: [],
      usage: meter.snapshot(),
    };
    files.writeSkill(0, input.skill.content);
    files.writeBest(input.skill.content);
    files.saveState(state);
  }
  const st: RunState = state;
  const persist = () => {
    st.usage = meter.snapshot();
    files.saveState(st);
  };

  // ---- one step --------------------------------------------------------------------------------
  const runStep = async (epoch: number, index: number, batch: Task[]): Promise<void> => {
    const t0 = Date.now();
    const globalStep = (epoch - 1) * spe + index + 1;
    const advanced = nextLr(st.lr, options.lrSchedule, totalSteps, options.lr, options.minLr);
    const batchSeed = options.seed + epoch * 1000 + index + 1;
    const before = st.current;
    const trainRun = await measure(batch, before.content, 'rollout');
    const refl = await reflect({
      call,
      skill: before.content,
      scopeNote: scopeNote(scope, options.fullDocument),
      rollouts: trainRun.rollouts,
      tasks: taskById,
      rejected: buffer.digest(),
      metaSkill: options.metaSkill ? st.metaSkill : '',
      history: historyText(st.steps),
      maxEdits: options.lr,
      minibatchSize: options.minibatchSize,
      seed: batchSeed,
      concurrency: options.optimizerConcurrency,
      failureOnly: options.failureOnly,
    });
    const base: Omit<StepReport, 'line'> = {
      epoch,
      step: index + 1,
      stepsInEpoch: spe,
      globalStep,
      totalSteps,
      rolloutTasks: batch.length,
      trainHard: trainRun.scores.hard,
      trainSoft: trainRun.scores.soft,
      failures: refl.failures,
      successes: refl.successes,
      infraErrors: refl.infraErrors,
      patches: refl.patches.length,
      reflectErrors: refl.errors.length,
      mergeFallbacks: 0,
      proposed: 0,
      blocked: 0,
      lr: scheduledLr(options.lrSchedule, advanced.state.position, totalSteps, options.lr, options.minLr),
      selected: 0,
      applied: 0,
      unmatched: 0,
      action: 'skip_no_patches',
      valBefore: before.score,
      valAfter: null,
      bestScore: st.best.score,
      regressions: [],
      reason: refl.errors.length ? `no usable patches (${refl.errors.length} analyst replies unusable)` : 'no edits proposed',
      candidateHash: null,
      wallMs: 0,
    };
    let edits: { selected: EditApplyResult[]; dropped: unknown[]; blocked: unknown[] } = { selected: [], dropped: [], blocked: [] };
    let candidate: string | undefined;
    let candScores: SplitScores | null = null;
    const report = { ...base };
    if (refl.patches.length) {
      const agg = await aggregate({ call, skill: before.content, patches: refl.patches, metaSkill: options.metaSkill ? st.metaSkill : '', mergeBatchSize: options.mergeBatchSize, concurrency: options.optimizerConcurrency });
      const { kept, blocked } = buffer.filter(agg.edits);
      report.mergeFallbacks = agg.fallbacks.length;
      report.proposed = kept.length;
      report.blocked = blocked.length;
      if (!options.lrCap) report.lr = kept.length;
      else if (options.lrSchedule === 'autonomous') {
        const recent = st.steps.slice(-5).filter((s) => s.valAfter !== null);
        const decision = await decideBudget({
          call,
          skill: before.content,
          edits: kept,
          step: globalStep,
          totalSteps,
          min: options.minLr,
          max: options.lr,
          recentAcceptRate: recent.length ? recent.filter((s) => s.action.startsWith('accept') || s.action === 'force_accept').length / recent.length : 0.5,
          metaSkill: options.metaSkill ? st.metaSkill : '',
        });
        report.lr = decision.budget;
        report.lrReason = decision.fallback ? `fallback to min: ${decision.reason}` : decision.reason;
      }
      const sel = await selectEdits({ call, skill: before.content, edits: kept, budget: report.lr, metaSkill: options.metaSkill ? st.metaSkill : '' });
      report.selected = sel.selected.length;
      const applied = applyEdits(before.content, sel.selected.map((p) => p.edit), applyOpts);
      edits = { selected: applied.results, dropped: sel.dropped, blocked };
      report.applied = applied.results.filter((r) => r.status === 'applied').length;
      report.unmatched = applied.results.length - report.applied;
      candidate = applied.content;
      report.candidateHash = sha256(candidate).slice(0, 16);
      if (!sel.selected.length) {
        report.action = 'skip_no_edits';
        report.reason = sel.fallback ?? 'learning rate 0 or nothing left after the rejected-edit filter';
      } else if (candidate === before.content) {
        report.action = 'reject_no_change';
        report.reason = 'no selected edit changed the skill';
      } else {
        candScores = (await measure(val, candidate, 'gate')).scores;
        const d = gateDecision({
          metric: options.gateMetric,
          mixedWeight: options.mixedWeight,
          current: before.scores,
          candidate: candScores,
          bestScore: st.best.score,
          margin: options.margin,
          noRegression: options.noRegression,
          enabled: options.gateEnabled,
        });
        report.action = d.action;
        report.valAfter = d.candidateScore;
        report.regressions = d.regressions;
        report.reason = d.reason;
      }
    }
    // a rejected multi-edit candidate: keep the edits that help on their own
    let appliedEdits = edits.selected.filter((r) => r.status === 'applied');
    const ownDrop = new Map<number, number | null>();
    if (report.action === 'reject' && options.rescue && appliedEdits.length > 1 && report.valAfter !== null) {
      const r = await rescueEdits({
        base: before.content,
        baseScore: before.score,
        applied: appliedEdits,
        applyOpts,
        measureVal: async (content) => (await measure(val, content, 'rescue')).scores,
        score,
        gate: (cand) =>
          gateDecision({ metric: options.gateMetric, mixedWeight: options.mixedWeight, current: before.scores, candidate: cand, bestScore: st.best.score, margin: options.margin, noRegression: options.noRegression }),
      });
      for (const t of r.singles) ownDrop.set(t.index, t.gain === null ? null : -t.gain);
      if (r.decision?.accepted && r.candidate !== null && r.scores) {
        report.rescued = { kept: r.kept.length, of: appliedEdits.length, fullValAfter: report.valAfter };
        report.valAfter = r.decision.candidateScore;
        report.action = r.decision.action;
        report.reason = `full candidate rejected (${report.reason}); kept ${r.kept.length}/${appliedEdits.length} edits that help alone: ${r.decision.reason}`;
        candidate = r.candidate;
        candScores = r.scores;
        report.candidateHash = sha256(candidate).slice(0, 16);
        const keptIdx = new Set(r.kept.map((k) => k.index));
        const rejectedHere = appliedEdits.filter((a) => !keptIdx.has(a.index));
        for (const a of rejectedHere) buffer.add([a.edit], ownDrop.get(a.index) ?? null, `gate (alone): ${runId} step ${globalStep}`);
        appliedEdits = r.kept;
      }
    }
    // commit the step
    const accepted = report.action === 'accept' || report.action === 'accept_new_best' || report.action === 'force_accept';
    const keptIdx = new Set(appliedEdits.map((r) => r.index));
    const dropOf = (index: number) => (ownDrop.has(index) ? (ownDrop.get(index) ?? null) : report.valAfter !== null ? before.score - report.valAfter : null);
    const records: EditRecord[] = edits.selected.map((r) => {
      const status: EditRecord['status'] = r.status === 'unmatched' ? 'unmatched' : accepted && keptIdx.has(r.index) ? 'accepted' : 'rejected';
      return { ...r.edit, id: `s${globalStep}e${r.index}`, status, effect: null, scoreDrop: status === 'rejected' ? dropOf(r.index) : null };
    });
    if (accepted && candidate !== undefined && candScores) {
      st.current = { content: candidate, scores: candScores, score: score(candScores), origin: `step_${globalStep}` };
      st.lineage.push({ kind: 'edits', step: globalStep, edits: appliedEdits.map((r) => ({ id: `s${globalStep}e${r.index}`, edit: r.edit })) });
      if (st.current.score - st.best.score > SCORE_EPSILON) {
        st.best = { ...st.current, step: globalStep, lineageLength: st.lineage.length };
        files.writeBest(candidate);
      }
    } else if (report.action === 'reject' && report.valAfter !== null) {
      const reason = `gate: val ${before.score.toFixed(3)} → ${report.valAfter.toFixed(3)} (${runId} step ${globalStep})`;
      for (const a of appliedEdits) buffer.add([a.edit], dropOf(a.index), reason);
    }
    report.bestScore = st.best.score;
    report.wallMs = Date.now() - t0;
    const full: StepReport = { ...report, line: formatStepLine(report) };
    st.lr = advanced.state;
    st.lastCompletedStep = globalStep;
    st.steps.push(full);
    st.edits.push(...records);
    files.writeStep(globalStep, {
      candidate,
      edits: { selected: edits.selected, dropped: edits.dropped, blocked: edits.blocked, records },
      scores: { train: trainRun.scores, current: before.scores, candidate: candScores },
      digest: {
        step: globalStep,
        action: full.action,
        nTotal: batch.length,
        nFail: refl.failures,
        failures: trainRun.rollouts.filter((r) => r.hardScore < 1).map((r) => ({ taskId: r.taskId, feedback: r.feedback.slice(0, 300), error: r.error ?? null })),
        reflectErrors: refl.errors,
        scoreBefore: before.score,
        scoreAfter: report.valAfter,
        rejectedEdits: report.action === 'reject' ? appliedEdits.map((r) => r.edit) : [],
      },
      record: full,
    });
    files.writeSkill(globalStep, st.current.content);
    files.writeHistory(st.steps);
    saveStep(db, runId, epoch, globalStep, full);
    persist();
    progress.tick(1, full.action);
    input.onStep?.(full);
  };

  // ---- epoch boundary --------------------------------------------------------------------------
  const epochBoundary = async (epoch: number): Promise<void> => {
    const note = input.onNote ?? (() => {});
    let slowSummary = 'off';
    if (options.slowUpdate) {
      const sample = shuffled(train, options.seed + epoch * 2000).slice(0, options.slowUpdateSamples);
      const prev = await measure(sample, st.epochStart.content, 'slow_update');
      const curr = await measure(sample, st.current.content, 'slow_update');
      const res = await slowUpdate({ call, skillBefore: st.epochStart.content, skillAfter: st.current.content, tasks: sample, before: prev.scores, after: curr.scores, metric: options.gateMetric });
      let action: string = res.action;
      let detail: Record<string, unknown> = {};
      if (res.guidance) {
        const cand = setGuidance(st.current.content, res.guidance);
        if (cand === st.current.content) action = 'unchanged';
        else {
          // Guidance is re-measured (upstream kept a stale score) and must not lower validation.
          const candScores = (await measure(val, cand, 'gate')).scores;
          const candScore = score(candScores);
          const regressions = perTaskRegressions(st.current.scores, candScores, options.gateMetric, options.mixedWeight);
          const ok = !options.gateEnabled || (candScore >= st.current.score - SCORE_EPSILON && (!options.noRegression || regressions.length === 0));
          detail = { valBefore: st.current.score, valAfter: candScore, regressions };
          if (ok) {
            st.current = { content: cand, scores: candScores, score: candScore, origin: `slow_update_epoch_${epoch}` };
            st.lineage.push({ kind: 'guidance', text: res.guidance });
            if (candScore - st.best.score > SCORE_EPSILON) {
              st.best = { ...st.current, step: st.lastCompletedStep, lineageLength: st.lineage.length };
              files.writeBest(cand);
            }
            action = 'accepted';
          } else action = 'rejected_by_gate';
        }
      }
      slowSummary = `${action}${'valAfter' in detail ? ` (val ${f2(detail.valBefore as number)} → ${f2(detail.valAfter as number)})` : ''}`;
      files.writeEpoch(epoch, 'slow_update', { action, guidance: res.guidance, pairs: res.pairs, error: res.error ?? null, ...detail });
      note(`[epoch ${epoch}] slow update: ${slowSummary}`);
    }
    let metaSummary = 'off';
    if (options.metaSkill) {
      const epochSteps = new Set(st.steps.filter((s) => s.epoch === epoch).map((s) => s.globalStep));
      const mine = st.edits.filter((e) => epochSteps.has(Number(/^s(\d+)e/.exec(e.id)?.[1])));
      const res = await updateMetaSkill({
        call,
        previousMeta: st.metaSkill,
        epoch,
        accepted: mine.filter((e) => e.status === 'accepted'),
        rejected: mine.filter((e) => e.status === 'rejected').map((e) => ({ ...e, scoreDrop: e.scoreDrop ?? null })),
        valBefore: st.epochStart.score,
        valAfter: st.current.score,
      });
      if (res.meta) st.metaSkill = res.meta;
      metaSummary = res.action;
      files.writeEpoch(epoch, 'meta_skill', { action: res.action, meta: st.metaSkill, error: res.error ?? null });
      note(`[epoch ${epoch}] meta skill: ${metaSummary}`);
    }
    st.epochs.push({ epoch, slowUpdate: slowSummary, metaSkill: metaSummary, valEnd: st.current.score });
    st.epochsCompleted = epoch;
    st.epochStart = { content: st.current.content, score: st.current.score, scores: st.current.scores };
    files.writeSkill(st.lastCompletedStep, st.current.content);
    persist();
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
        await runStep(epoch, i, batches[i] ?? []);
      }
      throwIfAborted(signal);
      await epochBoundary(epoch);
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

  // ---- attribution, pruning, test split (best effort once the budget is gone) -------------------
  const metric = (t: { hard: number; soft: number }) => metricScore(t.hard, t.soft, options.gateMetric, options.mixedWeight);
  let testBaseline: SplitScores | null = null;
  let testBest: SplitScores | null = null;
  const effects = new Map<string, number | null>();
  const pruned = new Map<string, number>(); // edit id → measured harm (−effect)
  if (stoppedBy !== 'aborted') {
    try {
      let bestLineage = st.lineage.slice(0, st.best.lineageLength);
      for (let round = 0; options.attribution && bestLineage.length > 0 && round < 3; round++) {
        const attr = await attributeEdits({
          base: st.baseline.content,
          lineage: bestLineage,
          best: st.best.content,
          bestScore: st.best.score,
          opts: applyOpts,
          maxEdits: options.attributionMaxEdits,
          score: async (content) => score((await measure(val, content, 'attribution')).scores),
          signal,
        });
        for (const [id, v] of attr.effects) effects.set(id, v);
        // Pruning: accepted edits whose removal raises validation are dropped, if the pruned skill
        // passes the same strict gate against the best. (A multi-edit candidate can carry one.)
        const harmful = [...attr.effects].filter(([, v]) => v !== null && v < -SCORE_EPSILON).map(([id]) => id);
        if (!options.prune || !options.gateEnabled || !attr.faithful || !harmful.length) break;
        const ids = new Set(harmful);
        const lineage = withoutEdits(bestLineage, ids);
        const content = rebuildSkill(st.baseline.content, lineage, applyOpts);
        if (content === st.best.content) break;
        const scores = (await measure(val, content, 'prune')).scores;
        const d = gateDecision({ metric: options.gateMetric, mixedWeight: options.mixedWeight, current: st.best.scores, candidate: scores, bestScore: st.best.score, noRegression: options.noRegression });
        if (!d.accepted) break;
        for (const id of harmful) pruned.set(id, -(attr.effects.get(id) ?? 0));
        for (const op of bestLineage) {
          if (op.kind !== 'edits') continue;
          for (const e of op.edits) if (ids.has(e.id)) buffer.add([e.edit], pruned.get(e.id) ?? null, `prune: removing it raised validation (${runId})`);
        }
        input.onNote?.(`[prune] removed ${harmful.length} accepted edit(s) that lowered validation: ${st.best.score.toFixed(3)} → ${d.candidateScore.toFixed(3)}`);
        st.best = { content, scores, score: d.candidateScore, origin: 'prune', step: st.best.step, lineageLength: st.best.lineageLength };
        bestLineage = lineage;
        for (const id of harmful) effects.delete(id);
      }
      if (test.length) {
        testBaseline = (await measure(test, st.baseline.content, 'test')).scores;
        testBest = st.best.content === st.baseline.content ? testBaseline : (await measure(test, st.best.content, 'test')).scores;
      }
    } catch (err) {
      const reason = stopReason(err, signal);
      if (!reason) throw err;
      if (stoppedBy === 'done') stoppedBy = reason;
    }
  }

  const bestIds = new Set(st.lineage.slice(0, st.best.lineageLength).flatMap((op) => (op.kind === 'edits' ? op.edits.map((e) => e.id) : [])));
  const edits: EditRecord[] = st.edits
    .filter((e) => e.status !== 'accepted' || bestIds.has(e.id))
    .map((e) => {
      if (e.status !== 'accepted') return e;
      if (pruned.has(e.id)) return { ...e, status: 'rejected' as const, scoreDrop: pruned.get(e.id) ?? null, effect: -(pruned.get(e.id) ?? 0) };
      return { ...e, effect: effects.get(e.id) ?? null };
    });
  const perTask: TrainResult['perTask'] = [];
  const after = new Map(st.best.scores.perTask.map((t) => [t.taskId, t]));
  for (const t of st.baseline.scores.perTask) {
    const a = after.get(t.taskId);
    perTask.push({ taskId: t.taskId, split: 'val', before: metric(t), after: a ? metric(a) : 0 });
  }
  if (testBaseline && testBest) {
    const ta = new Map(testBest.perTask.map((t) => [t.taskId, t]));
    for (const t of testBaseline.perTask) {
      const a = ta.get(t.taskId);
      perTask.push({ taskId: t.taskId, split: 'test', before: metric(t), after: a ? metric(a) : 0 });
    }
  }
  const result: TrainResult = {
    runId,
    runDir,
    baselineSkill: st.baseline.content,
    bestSkill: st.best.content,
    baseline: { val: st.baseline.score, test: testBaseline ? score(testBaseline) : null },
    best: { val: st.best.score, test: testBest ? score(testBest) : null },
    perTask,
    edits,
    steps: st.steps,
    stoppedBy,
    usage: { stages: meter.snapshot(), total: meter.total(), budget: input.budget ? input.budget.used() : null },
    bestStep: st.best.step,
    epochs: st.epochs,
  };
  persist();
  files.writeBest(st.best.content);
  files.writeHistory(st.steps);
  const summary = { ...result, baselineSkill: undefined, bestSkill: undefined, steps: st.steps.length };
  files.writeSummary(summary);
  updateRun(db, runId, {
    status: stoppedBy === 'aborted' ? 'aborted' : 'done',
    endedAt: Date.now(),
    record: { ...(getRun(db, runId)?.record ?? {}), summary: { ...summary, perTask: undefined, edits: undefined } },
  });
  progress.done(`best val ${st.best.score.toFixed(3)} (baseline ${st.baseline.score.toFixed(3)})`);
  return result;
}
