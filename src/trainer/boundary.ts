/** The epoch boundary: slow update (gated, re-measured) and the optimizer's meta skill. */
import { SCORE_EPSILON } from './gate/gate.js';
import { countVal, gateOnVal } from './gate/val-gate.js';
import { setGuidance } from '../skilldoc/segments.js';
import { slowUpdate, updateMetaSkill } from './passes/slow-update.js';
import { shuffled } from './rng.js';
import { f2 } from './step.js';
import { midRunPrune } from './passes/mid-prune.js';
import type { TrainContext } from './context.js';

export async function epochBoundary(ctx: TrainContext, epoch: number): Promise<void> {
  const { options, st, files, train, val, measure, score, call, persist, input } = ctx;
  const note = input.onNote ?? (() => {});
  const pruneSummary = await midRunPrune(ctx, epoch);
  if (pruneSummary !== 'off') {
    files.writeEpoch(epoch, 'prune', { summary: pruneSummary });
    note(`[epoch ${epoch}] prune: ${pruneSummary}`);
  }
  let slowSummary = 'off';
  if (options.slowUpdate) {
    const sample = shuffled(train, options.seed + epoch * 2000).slice(0, options.slowUpdateSamples);
    const prev = await measure(sample, st.epochStart.content, 'slow_update');
    const curr = await measure(sample, st.current.content, 'slow_update');
    const res = await slowUpdate({
      call,
      skillBefore: st.epochStart.content,
      skillAfter: st.current.content,
      tasks: sample,
      before: prev.scores,
      after: curr.scores,
      metric: options.gateMetric,
      rolloutsBefore: prev.rollouts,
      rolloutsAfter: curr.rollouts,
    });
    let action: string = res.action;
    let detail: Record<string, unknown> = {};
    if (res.guidance) {
      const cand = setGuidance(st.current.content, res.guidance);
      if (cand === st.current.content) action = 'unchanged';
      else {
        // Guidance is re-measured (upstream kept a stale score) and passes the same strict, paired
        // gate as a step: guidance that changes nothing is rejected, or it would pile up.
        countVal(ctx, 'slow_update');
        const measured = (await measure(val, cand, 'gate')).scores;
        const settled = await gateOnVal(ctx, 'slow_update', st.current, { content: cand, scores: measured }, st.best.score, options.seed + epoch * 2000 + 1);
        const candScores = settled.candidate;
        const candScore = score(candScores);
        const ok = settled.decision.accepted;
        detail = { valBefore: st.current.score, valAfter: candScore, regressions: settled.decision.regressions, gate: settled.decision.reason };
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
    note(`[epoch ${epoch}] meta skill: ${describeMetaAction(res.action, st.metaSkill, res.error)}`);
  }
  st.epochs.push({ epoch, slowUpdate: slowSummary, metaSkill: metaSummary, valEnd: st.current.score });
  st.epochsCompleted = epoch;
  st.epochStart = { content: st.current.content, score: st.current.score, scores: st.current.scores };
  files.writeSkill(st.lastCompletedStep, st.current.content);
  persist();
}

/** The meta-skill step in words (the stored action keeps the upstream's names). */
function describeMetaAction(action: string, meta: string, error?: string): string {
  switch (action) {
    case 'write_meta_skill': {
      const lines = meta.split(/\r?\n/).filter((l) => l.trim()).length;
      return `updated (${lines} line${lines === 1 ? '' : 's'} of lessons for the optimizer)`;
    }
    case 'skip_no_evidence':
      return 'unchanged (no edit was accepted or rejected this epoch)';
    case 'no_content':
      return 'unchanged (the optimizer returned nothing)';
    case 'call_failed':
      return `unchanged (the call failed: ${error ?? 'unknown error'})`;
    default:
      return action;
  }
}
