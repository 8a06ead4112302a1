/**
 * Edit-level credit assignment for a rejected candidate (upstream §18.21: a rejected candidate
 * threw away its good edits with the bad). Each applied edit is scored alone on validation; the
 * edits that improve on their own are recombined and the combination must pass the same gate.
 * Each edit's own measured drop is what the rejected-edit buffer records, so a good edit is not
 * blamed for a bad neighbour.
 */
import type { EditApplyResult, ApplyOptions } from '../../skilldoc/edits.js';
import { applyEdits } from '../../skilldoc/edits.js';
import type { Edit } from '../../core/records.js';
import { sha256 } from '../../core/fsutil.js';
import { SCORE_EPSILON, type GateDecision, type SplitScores } from '../gate/gate.js';
import { countVal } from '../gate/val-gate.js';
import { dropVerdict, judge, reportVerdict, screenLeak, type Verdict } from '../gate/verdict.js';
import type { TrainContext } from '../context.js';
import type { StepState } from '../step-state.js';

export interface SingleEditTrial {
  index: number;
  /** score alone − current score (null when the edit alone changes nothing) */
  gain: number | null;
  /** the edit alone lowers other jobs' val tasks: not kept whatever its gain */
  leaks?: boolean;
}

export interface RescueResult {
  singles: SingleEditTrial[];
  kept: EditApplyResult[];
  candidate: string | null;
  scores: SplitScores | null;
  decision: GateDecision | null;
}

export async function rescueEdits(input: {
  base: string;
  baseScore: number;
  applied: EditApplyResult[];
  applyOpts: ApplyOptions;
  measureVal: (content: string) => Promise<SplitScores>;
  score: (s: SplitScores) => number;
  /** the gate on the recombined candidate (it may re-measure an indecisive one) */
  gate: (content: string, candidate: SplitScores, kept: EditApplyResult[]) => Promise<GateDecision>;
  /** true when the edit, alone, lowers the val tasks of jobs it was not learned from (scope-leak.ts) */
  leaks?: (edit: Edit, alone: SplitScores) => boolean;
}): Promise<RescueResult> {
  const singles: SingleEditTrial[] = [];
  const alone = new Map<number, SplitScores>();
  for (const r of input.applied) {
    const content = applyEdits(input.base, [r.edit], input.applyOpts).content;
    if (content === input.base) {
      singles.push({ index: r.index, gain: null });
      continue;
    }
    const s = await input.measureVal(content);
    alone.set(r.index, s);
    const leaks = input.leaks?.(r.edit, s) ?? false;
    singles.push({ index: r.index, gain: input.score(s) - input.baseScore, ...(leaks ? { leaks } : {}) });
  }
  const helpful = new Set(singles.filter((s) => s.gain !== null && s.gain > SCORE_EPSILON && !s.leaks).map((s) => s.index));
  const kept = input.applied.filter((r) => helpful.has(r.index));
  if (!kept.length) return { singles, kept: [], candidate: null, scores: null, decision: null };
  const candidate = applyEdits(input.base, kept.map((r) => r.edit), input.applyOpts).content;
  const scores = kept.length === 1 ? alone.get(kept[0].index)! : await input.measureVal(candidate);
  return { singles, kept, candidate, scores, decision: await input.gate(candidate, scores, kept) };
}

/**
 * Stage: a rejected multi-edit candidate keeps the edits that help on their own. The edits it
 * leaves out go to the buffer with their own measured drop and the full candidate's verdict.
 */
export async function rescue(ctx: TrainContext, s: StepState): Promise<void> {
  const { val, measure, score, applyOpts, buffer, runId } = ctx;
  const { report, before } = s;
  const applied = s.appliedEdits;
  let last: Verdict | null = null;
  const r = await rescueEdits({
    base: before.content,
    baseScore: before.score,
    applied,
    applyOpts,
    measureVal: async (content) => {
      countVal(ctx, 'rescue');
      return (await measure(val, content, 'rescue')).scores;
    },
    score,
    gate: async (content, cand, kept) => {
      last = await judge(ctx, 'rescue', before, { content, scores: cand }, s.seed + 7, kept.map((k) => k.edit), false);
      return last.settled.decision;
    },
    leaks: (edit, alone) => screenLeak(ctx, [edit], before.scores, alone, s.seed + 11)?.leaks ?? false,
  });
  for (const t of r.singles) s.ownDrop.set(t.index, t.gain === null ? null : -t.gain);
  const settled = last as Verdict | null;
  if (!r.decision?.accepted || r.candidate === null || !r.scores) return;
  report.rescued = { kept: r.kept.length, of: applied.length, fullValAfter: report.valAfter ?? 0 };
  const fullReason = report.reason;
  if (settled) reportVerdict(report, settled);
  report.reason = `full candidate rejected (${fullReason}); kept ${r.kept.length}/${applied.length} edits that help alone: ${r.decision.reason}`;
  s.candidate = r.candidate;
  s.candScores = settled?.settled.candidate ?? r.scores;
  report.candidateHash = sha256(r.candidate).slice(0, 16);
  const keptIdx = new Set(r.kept.map((k) => k.index));
  for (const a of applied.filter((x) => !keptIdx.has(x.index))) buffer.add([a.edit], s.ownDrop.get(a.index) ?? null, `gate (alone): ${runId} step ${s.globalStep}`, dropVerdict(s.verdict));
  s.appliedEdits = r.kept;
}
