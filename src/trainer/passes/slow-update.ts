/**
 * The slow update, at each epoch boundary.
 * the same sample of train tasks is run under the skill that entered the epoch and
 * the skill now; per task improved / regressed / still failing / stable goes to the optimizer,
 * which rewrites the protected guidance block. For regressed and still-failing tasks it also sees
 * the replies before and after (clipped) and the judge's feedback: a score alone cannot say why.
 * Upstream force-accepted the new guidance without re-measuring; here it is re-measured and passes
 * the same strict, paired gate as a step (guidance that changes nothing would pile up).
 */
import type { Rollout, Task } from '../../core/records.js';
import { SlowUpdateReply, type SlowUpdatePayload } from '../../core/protocol.js';
import { askOptimizer, isSurvivable, type CallContext } from '../optimizer/call.js';
import { clip, renderPrompt } from '../optimizer/prompts.js';
import { metricScore, type GateMetric, type SplitScores } from '../gate/gate.js';
import { getGuidance, setGuidance } from '../../skilldoc/segments.js';
import { SCORE_EPSILON } from '../gate/gate.js';
import { countVal } from '../gate/val-gate.js';
import { judge } from '../gate/verdict.js';
import { shuffled } from '../rng.js';
import { f2 } from '../step-report.js';
import type { TrainContext } from '../context.js';
import type { EpochState } from '../step-state.js';
import { clipReply, fenced } from '../optimizer/evidence.js';

/** Trajectories shown per slow update, and their clip (the block is short; so is its evidence). */
const TRAJECTORY_TASKS = 6;
const TRAJECTORY_REPLY = 600;
const TRAJECTORY_FEEDBACK = 300;
/** Train tasks run under the epoch's start and end skill for the comparison. */
export const SLOW_UPDATE_SAMPLES = 20;

export type PairStatus = SlowUpdatePayload['perTask'][number]['status'];

export interface Comparison {
  taskId: string;
  intent: string;
  before: number;
  after: number;
  status: PairStatus;
  trajectory?: SlowUpdatePayload['perTask'][number]['trajectory'];
}

/** Before/after replies and feedback of the regressed and still-failing tasks (regressions first). */
export function attachTrajectories(pairs: Comparison[], before: Rollout[], after: Rollout[]): Comparison[] {
  const first = (rs: Rollout[]) => {
    const m = new Map<string, Rollout>();
    for (const r of rs) if (!m.has(r.taskId)) m.set(r.taskId, r);
    return m;
  };
  const b = first(before);
  const a = first(after);
  const order = (p: Comparison) => (p.status === 'regressed' ? 0 : 1);
  const chosen = new Set(
    pairs
      .filter((p) => (p.status === 'regressed' || p.status === 'still_failing') && b.has(p.taskId) && a.has(p.taskId))
      .sort((x, y) => order(x) - order(y))
      .slice(0, TRAJECTORY_TASKS)
      .map((p) => p.taskId),
  );
  const side = (r: Rollout) => ({ response: clipReply(r.response, TRAJECTORY_REPLY), feedback: clip(r.feedback, TRAJECTORY_FEEDBACK) });
  return pairs.map((p) => (chosen.has(p.taskId) ? { ...p, trajectory: { before: side(b.get(p.taskId)!), after: side(a.get(p.taskId)!) } } : p));
}

function renderTrajectory(p: Comparison): string {
  if (!p.trajectory) return '';
  const { before, after } = p.trajectory;
  return [
    `  Before — feedback: ${before.feedback || '(none)'}`,
    `  Reply before:\n${fenced(before.response)}`,
    `  After — feedback: ${after.feedback || '(none)'}`,
    `  Reply after:\n${fenced(after.response)}`,
  ].join('\n');
}

/** Category from pass/fail (hard) before and after, as upstream; scores are the gate metric. */
export function comparePairs(tasks: Task[], before: SplitScores, after: SplitScores, metric: GateMetric): Comparison[] {
  const b = new Map(before.perTask.map((t) => [t.taskId, t]));
  const a = new Map(after.perTask.map((t) => [t.taskId, t]));
  return tasks
    .filter((t) => b.has(t.id) && a.has(t.id))
    .map((t) => {
      const x = b.get(t.id)!;
      const y = a.get(t.id)!;
      const passB = x.hard >= 1;
      const passA = y.hard >= 1;
      const status: PairStatus = !passB && passA ? 'improved' : passB && !passA ? 'regressed' : !passB && !passA ? 'still_failing' : 'stable';
      return { taskId: t.id, intent: t.intent, before: metricScore(x.hard, x.soft, metric), after: metricScore(y.hard, y.soft, metric), status };
    });
}

function renderComparison(pairs: Comparison[]): string {
  const groups: Array<[PairStatus, string]> = [
    ['regressed', 'Regressions (pass → fail) — HIGHEST PRIORITY'],
    ['still_failing', 'Persistent failures'],
    ['improved', 'Improvements'],
    ['stable', 'Stable successes'],
  ];
  const counts = groups.map(([s]) => `${s}=${pairs.filter((p) => p.status === s).length}`).join(' ');
  const parts = [`Summary: ${counts}`];
  for (const [status, title] of groups) {
    const list = pairs.filter((p) => p.status === status);
    if (!list.length) continue;
    parts.push(`### ${title}\n${list.map((p) => [`- ${p.taskId}: ${clip(p.intent, 160)} (score ${p.before.toFixed(2)} → ${p.after.toFixed(2)})`, renderTrajectory(p)].filter(Boolean).join('\n')).join('\n')}`);
  }
  return parts.join('\n\n');
}

export interface SlowUpdateResult {
  guidance: string | null;
  pairs: Comparison[];
  action: 'write_guidance' | 'skip_nothing_to_say' | 'no_content' | 'call_failed';
  error?: string;
}

export async function slowUpdate(input: {
  call: CallContext;
  skillBefore: string;
  skillAfter: string;
  tasks: Task[];
  before: SplitScores;
  after: SplitScores;
  metric: GateMetric;
  /** the rollouts behind `before` and `after` (for the trajectories) */
  rolloutsBefore?: Rollout[];
  rolloutsAfter?: Rollout[];
}): Promise<SlowUpdateResult> {
  const pairs = attachTrajectories(comparePairs(input.tasks, input.before, input.after, input.metric), input.rolloutsBefore ?? [], input.rolloutsAfter ?? []);
  const currentGuidance = getGuidance(input.skillAfter);
  const troubled = pairs.some((p) => p.status === 'regressed' || p.status === 'still_failing');
  if (!troubled && !currentGuidance) return { guidance: null, pairs, action: 'skip_nothing_to_say' };
  const payload: SlowUpdatePayload = {
    skillBefore: input.skillBefore,
    skillAfter: input.skillAfter,
    currentGuidance,
    perTask: pairs.map((p) => ({ taskId: p.taskId, intent: p.intent, before: p.before, after: p.after, status: p.status, ...(p.trajectory ? { trajectory: p.trajectory } : {}) })),
  };
  const rendered = renderPrompt('slow_update', {
    before: input.skillBefore,
    after: input.skillAfter,
    guidance: currentGuidance || '(No previous guidance — this is the first slow update.)',
    count: pairs.length,
    comparison: renderComparison(pairs),
  });
  try {
    const reply = await askOptimizer(input.call, 'slow_update', 'slow_update', payload, rendered, SlowUpdateReply);
    const guidance = reply.guidance.trim();
    return guidance ? { guidance, pairs, action: 'write_guidance' } : { guidance: null, pairs, action: 'no_content' };
  } catch (err) {
    if (!isSurvivable(err)) throw err;
    return { guidance: null, pairs, action: 'call_failed', error: (err as Error).message };
  }
}


/** Stage: the slow update at an epoch boundary, its guidance gated like a step. */
export async function slowUpdateStage(ctx: TrainContext, b: EpochState): Promise<void> {
  const { options, st, files, train, val, measure, score, call, input } = ctx;
  const { epoch } = b;
  const sample = shuffled(train, options.seed + epoch * 2000).slice(0, SLOW_UPDATE_SAMPLES);
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
  const cand = res.guidance ? setGuidance(st.current.content, res.guidance) : null;
  if (res.guidance && cand === st.current.content) action = 'unchanged';
  else if (res.guidance && cand !== null) {
    countVal(ctx, 'slow_update');
    const measured = (await measure(val, cand, 'gate')).scores;
    const { settled } = await judge(ctx, 'slow_update', st.current, { content: cand, scores: measured }, options.seed + epoch * 2000 + 1, [], false);
    const candScores = settled.candidate;
    const candScore = score(candScores);
    detail = { valBefore: st.current.score, valAfter: candScore, regressions: settled.decision.regressions, gate: settled.decision.reason };
    if (settled.decision.accepted) {
      st.current = { content: cand, scores: candScores, score: candScore, origin: `slow_update_epoch_${epoch}` };
      st.lineage.push({ kind: 'guidance', text: res.guidance });
      if (candScore - st.best.score > SCORE_EPSILON) {
        st.best = { ...st.current, step: st.lastCompletedStep, lineageLength: st.lineage.length };
        files.writeBest(cand);
      }
      action = 'accepted';
    } else action = 'rejected_by_gate';
  }
  b.slowUpdate = `${action}${'valAfter' in detail ? ` (val ${f2(detail.valBefore as number)} → ${f2(detail.valAfter as number)})` : ''}`;
  files.writeEpoch(epoch, 'slow_update', { action, guidance: res.guidance, pairs: res.pairs, error: res.error ?? null, ...detail });
  input.onNote?.(`[epoch ${epoch}] slow update: ${b.slowUpdate}`);
}
