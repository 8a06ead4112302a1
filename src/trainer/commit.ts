/**
 * The step's last stage: its outcome into the run state (an accepted candidate becomes current,
 * and best when it beats it), the rejected-edit buffer (a rejected candidate's edits, with their
 * drop), the store's step row and the run directory, then the progress line.
 */
import type { EditRecord } from '../core/records.js';
import { saveStep } from '../store/repos/runs.js';
import { SCORE_EPSILON } from './gate/gate.js';
import { dropVerdict } from './gate/verdict.js';
import type { TrainContext } from './context.js';
import type { StepState } from './step-state.js';
import { formatStepLine } from './step-report.js';
import type { StepReport } from './types.js';

export async function commit(ctx: TrainContext, s: StepState): Promise<void> {
  const { st, files, buffer, runId, score, db, persist, progress, input } = ctx;
  const { report, before, edits, appliedEdits, ownDrop, candidate, candScores, trainRun, refl, batch, globalStep } = s;
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
    const band = report.gate ? `, CI [${report.gate.lo.toFixed(3)}, ${report.gate.hi.toFixed(3)}]` : '';
    const reason = `gate: val ${before.score.toFixed(3)} → ${report.valAfter.toFixed(3)}${band} (${runId} step ${globalStep})`;
    for (const a of appliedEdits) buffer.add([a.edit], dropOf(a.index), reason, dropVerdict(s.verdict));
  }
  report.bestScore = st.best.score;
  report.wallMs = Date.now() - s.t0;
  const full: StepReport = { ...report, line: formatStepLine(report) };
  st.lr = s.lr.state;
  st.lastCompletedStep = globalStep;
  st.steps.push(full);
  st.edits.push(...records);
  files.writeStep(globalStep, {
    candidate,
    edits: { selected: edits.selected, dropped: edits.dropped, blocked: edits.blocked, records },
    scores: { train: trainRun!.scores, current: before.scores, candidate: candScores },
    digest: {
      step: globalStep,
      action: full.action,
      nTotal: batch.length,
      nFail: refl!.failures,
      failures: trainRun!.rollouts.filter((r) => r.hardScore < 1).map((r) => ({ taskId: r.taskId, feedback: r.feedback.slice(0, 300), error: r.error ?? null })),
      reflectErrors: refl!.errors,
      scoreBefore: before.score,
      scoreAfter: report.valAfter,
      rejectedEdits: report.action === 'reject' ? appliedEdits.map((r) => r.edit) : [],
    },
    record: full,
  });
  files.writeSkill(globalStep, st.current.content);
  files.writeHistory(st.steps);
  saveStep(db, runId, report.epoch, globalStep, full);
  persist();
  progress.tick(1, full.action);
  input.onStep?.(full);
}
