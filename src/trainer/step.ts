/**
 * One training step: rollout (a train batch under the current skill) → reflect → aggregate →
 * select (≤ the step's learning rate) → update → gate on validation, with the rescue of a rejected
 * multi-edit candidate; then the step is committed (state, store row, run directory).
 */
import type { EditRecord, Task } from '../core/records.js';
import { sha256 } from '../core/fsutil.js';
import { saveStep } from '../store/repos/runs.js';
import { scheduledLr, nextLr } from './lr.js';
import { gateDecision, SCORE_EPSILON, type SplitScores } from './gate.js';
import { applyEdits, type EditApplyResult } from './edits.js';
import type { EditScope } from './skilldoc.js';
import { reflect } from './reflect.js';
import { aggregate } from './aggregate.js';
import { decideBudget, selectEdits } from './select.js';
import { rescueEdits } from './rescue.js';
import type { StepReport } from './types.js';
import type { TrainContext } from './context.js';

/** A score with two decimals; '—' when it was not measured. */
export const f2 = (x: number | null) => (x === null ? '—' : x.toFixed(2));
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

export async function runStep(ctx: TrainContext, epoch: number, index: number, batch: Task[]): Promise<void> {
  const { options, st, files, buffer, applyOpts, scope, val, taskById, spe, totalSteps, runId, measure, score, call, db, persist, progress, input } = ctx;
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
      report.regressions = r.decision.regressions;
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
}
