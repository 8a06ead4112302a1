/**
 * The end of a run: attribution of the best skill's edits (leave-one-out), pruning of accepted
 * edits whose removal raises validation (gated; `training.prune`), simplification (accepted edits
 * with no measurable effect dropped; `training.simplify`), the held-out test split, the result and
 * summary. Prune and simplify pass the same paired, strict gate as a step (a tie is rejected), so
 * reusing the val split here cannot ship a skill on a lucky draw; every reuse is counted.
 * Best effort once the budget is gone: what could not be measured stays null.
 */
import type { EditRecord } from '../../core/records.js';
import { getRun, updateRun } from '../../store/repos/runs.js';
import { metricScore, SCORE_EPSILON, type SplitScores } from '../gate/gate.js';
import { countVal, GATE } from '../gate/val-gate.js';
import { judge } from '../gate/verdict.js';
import { MAX_FRESH_LOOKS } from '../gate/fresh-incumbent.js';
import { attributeEdits, rebuildSkill, withoutEdits } from './attribution.js';
import { stopReason, type TrainContext } from '../context.js';
import type { TrainResult } from '../types.js';

export async function finishRun(ctx: TrainContext, stoppedByIn: TrainResult['stoppedBy']): Promise<TrainResult> {
  const { options, st, files, test, measure, score, buffer, applyOpts, runId, db, signal, meter, persist, progress, input } = ctx;
  const { val } = ctx;
  const runDir = files.dir;
  let stoppedBy = stoppedByIn;
  const metric = (t: { hard: number; soft: number }) => metricScore(t.hard, t.soft, options.gateMetric);
  let testBaseline: SplitScores | null = null;
  let testBest: SplitScores | null = null;
  let valFresh: number | null = null;
  const effects = new Map<string, number | null>();
  const pruned = new Map<string, number>(); // edit id → measured harm (−effect)
  if (stoppedBy !== 'aborted') {
    try {
      let bestLineage = st.lineage.slice(0, st.best.lineageLength);
      for (let round = 0; bestLineage.length > 0 && round < 3; round++) {
        const attr = await attributeEdits({
          base: st.baseline.content,
          lineage: bestLineage,
          best: st.best.content,
          bestScore: st.best.score,
          opts: applyOpts,
          maxEdits: options.attributionMaxEdits,
          score: async (content) => {
            countVal(ctx, 'attribution');
            return score((await measure(val, content, 'attribution')).scores);
          },
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
        countVal(ctx, 'prune');
        const measured = (await measure(val, content, 'prune')).scores;
        const { settled } = await judge(ctx, 'prune', st.best, { content, scores: measured }, options.seed + 5000 + round, [], false);
        const d = settled.decision;
        if (!d.accepted) break;
        const scores = settled.candidate;
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
      // Simplify: accepted edits with no measurable effect on validation are dead weight (long,
      // cluttered skills cost compliance and tokens, and a bundled step can carry an inert or even
      // contradictory line). Drop them together when the skill without them scores no lower.
      if (options.simplify && options.gateEnabled && bestLineage.length > 0) {
        const inert = [...effects].filter(([id, v]) => v !== null && Math.abs(v) <= SCORE_EPSILON && !pruned.has(id)).map(([id]) => id);
        if (inert.length) {
          const ids = new Set(inert);
          const lineage = withoutEdits(bestLineage, ids);
          const content = rebuildSkill(st.baseline.content, lineage, applyOpts);
          if (content !== st.best.content) {
            countVal(ctx, 'simplify');
            const measured = (await measure(val, content, 'simplify')).scores;
            const { settled } = await judge(ctx, 'simplify', st.best, { content, scores: measured }, options.seed + 6000, [], false);
            const scores = settled.candidate;
            const candidate = score(scores);
            if (settled.decision.accepted) {
              for (const id of inert) {
                pruned.set(id, 0);
                effects.delete(id);
              }
              for (const op of bestLineage) {
                if (op.kind !== 'edits') continue;
                for (const e of op.edits) if (ids.has(e.id)) buffer.add([e.edit], 0, `simplify: no measurable effect on validation (${runId})`);
              }
              input.onNote?.(`[simplify] removed ${inert.length} accepted edit(s) with no measurable effect: ${st.best.score.toFixed(3)} → ${candidate.toFixed(3)}`);
              st.best = { content, scores, score: candidate, origin: 'prune', step: st.best.step, lineageLength: st.best.lineageLength };
              bestLineage = lineage;
            }
          }
        }
      }
      if (options.gateEnabled && st.best.content !== st.baseline.content) {
        // samples past every index a decision drew (fresh incumbent and extra gate rounds use fewer)
        const from = options.samples * (MAX_FRESH_LOOKS + GATE.rounds + 2);
        countVal(ctx, 'fresh_estimate');
        valFresh = score((await measure(val, st.best.content, 'fresh_estimate', from + options.samples * 2, from)).scores);
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
    startDraft: st.startDraft ?? null,
    baseline: { val: st.baseline.score, test: testBaseline ? score(testBaseline) : null },
    best: { val: st.best.score, valFresh, test: testBest ? score(testBest) : null },
    perTask,
    edits,
    steps: st.steps,
    stoppedBy,
    usage: { stages: meter.snapshot(), total: meter.total(), budget: input.budget ? input.budget.used() : null, replays: structuredClone(meter.replays) },
    bestStep: st.best.step,
    epochs: st.epochs,
    valComparisons: { ...(st.valComparisons ?? {}) },
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
