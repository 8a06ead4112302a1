/**
 * One training step, as the stages it is made of: rollout (a train batch under the current skill)
 * → propose (reflect + aggregate + the rejected-edit filter) → select (≤ the step's learning rate,
 * applied) → gate on validation (paired, with extra samples when indecisive) → rescue of a
 * rejected multi-edit candidate → commit (state, store row, run directory).
 */
import type { Edit, EditRecord, Rollout, Task } from '../core/records.js';
import { sha256 } from '../core/fsutil.js';
import { saveStep } from '../store/repos/runs.js';
import { scheduledLr, nextLr } from './optimizer/lr.js';
import { SCORE_EPSILON, type SplitScores } from './gate/gate.js';
import { applyEdits, type EditApplyResult } from '../skilldoc/edits.js';
import type { EditScope } from '../skilldoc/segments.js';
import { reflect, type ProposedEdit, type ReflectResult } from './optimizer/reflect.js';
import { aggregate } from './optimizer/aggregate.js';
import { decideBudget, selectEdits } from './optimizer/select.js';
import { rescueEdits } from './passes/rescue.js';
import type { SettledGate } from './gate/paired.js';
import { countVal, gateOnVal } from './gate/val-gate.js';
import type { DropVerdict } from './optimizer/buffer.js';
import { focusGain, focusTaskIds, leakCheck, leakNote, type LeakVerdict } from './gate/scope-leak.js';
import { withoutInstanceValues } from '../skilldoc/instance-values.js';
import type { StepReport } from './types.js';
import type { TrainContext } from './context.js';
import type { SkillState } from './run-files.js';

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

/** The focus look rejected the candidate: on its own job's val tasks the gain is below the minimum worth a change. */
function belowMinGain(r: Omit<StepReport, 'line'>): boolean {
  const f = r.gate?.focus;
  return r.gate?.outcome === 'reject' && f !== undefined && f.hi < f.minGain;
}

export function formatStepLine(r: Omit<StepReport, 'line'>): string {
  const head = `[epoch ${r.epoch} step ${r.step}/${r.stepsInEpoch}] rollout ${r.rolloutTasks} tasks`;
  if (r.action === 'skip_no_patches') return `${head} · no edits proposed · SKIP`;
  const parts = [head, `${r.proposed} edits proposed`];
  if (r.blocked) parts.push(`${r.blocked} blocked as rejected before`);
  parts.push(`${r.selected} selected (lr ${r.lr})`);
  if (r.unmatched) parts.push(`${r.unmatched} unmatched`);
  if (r.action === 'skip_no_edits') return `${parts.join(' · ')}${r.prescreened ? ` · pre-screen dropped ${r.prescreened}` : ''} · SKIP`;
  if (r.rescued) parts.push(`val ${f2(r.valBefore)} → ${f2(r.rescued.fullValAfter)} REJECT → kept ${r.rescued.kept}/${r.rescued.of} edits: ${f2(r.valAfter)} ${ACTION_LABEL[r.action]}`);
  else parts.push(`val ${f2(r.valBefore)} → ${f2(r.valAfter)} ${r.gate?.outcome === 'indecisive' ? `REJECT (indecisive after ${r.gate.rounds} extra sample round${r.gate.rounds === 1 ? '' : 's'})` : r.leak ? 'REJECT (scope leak)' : belowMinGain(r) ? 'REJECT (below the minimum gain on its own job)' : ACTION_LABEL[r.action]}`);
  if (r.prescreened) parts.push(`pre-screen dropped ${r.prescreened}`);
  if (r.screened) parts.push(`screen dropped ${r.screened} edit${r.screened === 1 ? '' : 's'}`);
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

type Report = Omit<StepReport, 'line'>;

/** Fresh val looks pooled for one incumbent; after that its estimate comes from the cache. */
export const MAX_FRESH_LOOKS = 4;

/**
 * The incumbent's val score without its winner's curse: a skill became current because its
 * first val measure beat the one before, so that measure is biased upward and every later
 * candidate, measured fresh, looks worse than it is (runs stalled after one lucky draw). Each
 * gate adds one fresh sample of the incumbent (up to MAX_FRESH_LOOKS) and compares against the
 * pool of fresh samples alone; the best skill's score is corrected with it. `adopt: false` leaves
 * the run state as it was (a look that decides nothing must not change the run's course).
 */
export async function freshIncumbent(ctx: TrainContext, before: SkillState, adopt = true): Promise<SkillState> {
  const { options, st } = ctx;
  if (!options.freshIncumbent || !options.gateEnabled) return before;
  const looks = Math.min(MAX_FRESH_LOOKS, (before.fresh ?? 0) + 1);
  if (looks === before.fresh) return before;
  countVal(ctx, 'incumbent');
  const scores = (await ctx.measure(ctx.val, before.content, 'incumbent', options.samples * (1 + looks), options.samples)).scores;
  const next: SkillState = { ...before, scores, score: ctx.score(scores), fresh: looks };
  if (!adopt) return next;
  if (st.current.content === before.content) st.current = next;
  if (st.best.content === before.content) st.best = { ...st.best, scores, score: next.score, fresh: looks };
  return next;
}

/** Stage 1: the train batch under the current skill. */
async function rolloutStage(ctx: TrainContext, batch: Task[], before: SkillState) {
  return ctx.measure(batch, before.content, 'rollout');
}

/** Stage 2: reflect on the rollouts, merge the patches, drop what the buffer bans. */
async function proposeStage(ctx: TrainContext, before: SkillState, rollouts: Rollout[], seed: number) {
  const { options, st, call, buffer, scope, taskById } = ctx;
  const metaSkill = options.metaSkill ? st.metaSkill : '';
  const refl = await reflect({
    call,
    skill: before.content,
    scopeNote: scopeNote(scope, options.fullDocument),
    rollouts,
    tasks: taskById,
    rejected: buffer.digest(),
    metaSkill,
    history: historyText(st.steps),
    maxEdits: options.lr,
    minibatchSize: options.minibatchSize,
    seed,
    concurrency: options.optimizerConcurrency,
    failureOnly: options.failureOnly,
    skillAware: options.skillAware,
  });
  if (!refl.patches.length) return { refl, kept: [] as ProposedEdit[], blocked: [] as ProposedEdit[], mergeFallbacks: 0 };
  const agg = await aggregate({ call, skill: before.content, patches: refl.patches, metaSkill, mergeBatchSize: options.mergeBatchSize, concurrency: options.optimizerConcurrency });
  const { kept, blocked } = buffer.filter(agg.edits);
  if (!options.deinstance) return { refl, kept, blocked, mergeFallbacks: agg.fallbacks.length };
  const general = kept.map((p) => {
    const edit = withoutInstanceValues(p.edit, taskById);
    return edit === p.edit ? p : { ...p, edit };
  });
  return { refl, kept: general, blocked, mergeFallbacks: agg.fallbacks.length };
}

/** Stage 3: the step's budget (learning rate), the selection under it, the candidate document. */
async function selectStage(ctx: TrainContext, report: Report, before: SkillState, kept: ProposedEdit[]) {
  const { options, st, call, applyOpts } = ctx;
  const metaSkill = options.metaSkill ? st.metaSkill : '';
  if (!options.lrCap) report.lr = kept.length;
  else if (options.lrSchedule === 'autonomous') {
    const recent = st.steps.slice(-5).filter((s) => s.valAfter !== null);
    const decision = await decideBudget({
      call,
      skill: before.content,
      edits: kept,
      step: report.globalStep,
      totalSteps: report.totalSteps,
      min: options.minLr,
      max: options.lr,
      recentAcceptRate: recent.length ? recent.filter((s) => s.action.startsWith('accept') || s.action === 'force_accept').length / recent.length : 0.5,
      metaSkill,
    });
    report.lr = decision.budget;
    report.lrReason = decision.fallback ? `fallback to min: ${decision.reason}` : decision.reason;
  }
  const sel = await selectEdits({ call, skill: before.content, edits: kept, budget: report.lr, metaSkill });
  const applied = applyEdits(before.content, sel.selected.map((p) => p.edit), applyOpts);
  report.selected = sel.selected.length;
  report.applied = applied.results.filter((r) => r.status === 'applied').length;
  report.unmatched = applied.results.length - report.applied;
  report.candidateHash = sha256(applied.content).slice(0, 16);
  return { sel, applied };
}

/** Stage 4: the candidate against the current skill on val (paired CI, more samples if undecided). */
async function gateStage(ctx: TrainContext, report: Report, before: SkillState, candidate: string, edits: Edit[], seed: number, freshDraws = false): Promise<{ settled: SettledGate; scores: SplitScores; leak: LeakVerdict | null }> {
  countVal(ctx, 'gate');
  const n = ctx.options.samples;
  const scores = (freshDraws ? await ctx.measure(ctx.val, candidate, 'gate', n * 2, n) : await ctx.measure(ctx.val, candidate, 'gate')).scores;
  const settled = await gateOnVal(ctx, 'gate', before, { content: candidate, scores }, ctx.st.best.score, seed, focusOf(ctx, edits));
  applyVerdict(report, settled);
  // an accepted candidate must also leave the other jobs alone; a leak turns it into a reject
  // (and a multi-edit one goes to the rescue, which keeps the edits that help without leaking)
  const leak = settled.decision.accepted && ctx.options.gateEnabled ? screenLeak(ctx, edits, settled.current, settled.candidate, seed) : null;
  if (leak?.leaks) {
    report.action = 'reject';
    report.reason = `${leakNote(leak)}; the gate alone said: ${settled.decision.reason}`;
    report.leak = { meanDiff: leak.ci.meanDiff, lo: leak.ci.lo, hi: leak.ci.hi, n: leak.ci.n };
  }
  return { settled, scores: settled.candidate, leak };
}

/** The val tasks where some edits claim to act (their evidence's jobs), or null: the gate's focus look. */
function focusOf(ctx: TrainContext, edits: readonly Edit[]): ReadonlySet<string> | null {
  return focusTaskIds(edits, ctx.taskById, ctx.val);
}

/** The scope-leak screen of some edits (null when off, or when it cannot run). */
function screenLeak(ctx: TrainContext, edits: readonly Edit[], current: SplitScores, candidate: SplitScores, seed: number): LeakVerdict | null {
  const { options } = ctx;
  if (!options.scopeScreen) return null;
  return leakCheck({
    edits,
    taskById: ctx.taskById,
    current,
    candidate,
    metric: options.gateMetric,
    mixedWeight: options.mixedWeight,
    confidence: options.scopeConfidence,
    resamples: options.gateResamples,
    seed: seed * 17 + 3,
  });
}

function applyVerdict(report: Report, settled: SettledGate): void {
  const d = settled.decision;
  report.action = d.action;
  // after extra sample rounds both sides were re-measured: report the pair the decision compared
  if (settled.rounds > 0) report.valBefore = d.currentScore;
  report.valAfter = d.candidateScore;
  report.regressions = d.regressions;
  report.reason = d.reason;
  report.gate = { outcome: d.outcome, meanDiff: d.ci.meanDiff, lo: d.ci.lo, hi: d.ci.hi, n: d.ci.n, rounds: settled.rounds, ...(d.focus ? { focus: d.focus } : {}) };
}

/** A drop the interval calls real bans the edit; a drop it cannot tell from noise only demotes it. */
function verdictOf(settled: SettledGate | null, leak: LeakVerdict | null = null): DropVerdict {
  return settled?.decision.ci.verdict === 'loss' || leak?.leaks ? 'real' : 'noise';
}

/** Stage 5: a rejected multi-edit candidate keeps the edits that help on their own. */
async function rescueStage(ctx: TrainContext, report: Report, before: SkillState, appliedEdits: EditApplyResult[], seed: number) {
  const { options, val, measure, score, applyOpts, st } = ctx;
  const ownDrop = new Map<number, number | null>();
  if (report.action !== 'reject' || !options.rescue || appliedEdits.length <= 1 || report.valAfter === null) return { ownDrop, rescued: null };
  let last: SettledGate | null = null;
  const r = await rescueEdits({
    base: before.content,
    baseScore: before.score,
    applied: appliedEdits,
    applyOpts,
    measureVal: async (content) => {
      countVal(ctx, 'rescue');
      return (await measure(val, content, 'rescue')).scores;
    },
    score,
    gate: async (content, cand, kept) => {
      last = await gateOnVal(ctx, 'rescue', before, { content, scores: cand }, st.best.score, seed + 7, focusOf(ctx, kept.map((k) => k.edit)));
      return last.decision;
    },
    leaks: (edit, alone) => screenLeak(ctx, [edit], before.scores, alone, seed + 11)?.leaks ?? false,
  });
  for (const t of r.singles) ownDrop.set(t.index, t.gain === null ? null : -t.gain);
  return { ownDrop, rescued: r.decision?.accepted && r.candidate !== null && r.scores ? { r, settled: last as SettledGate | null } : null };
}

/**
 * Stage 5b: an accepted multi-edit candidate is screened leave-one-out. A bundle passes the gate
 * on its net gain, so a harmful edit can ride along with good ones (a contradiction beside the
 * rule it contradicts, an over-general limit); the gate cannot see it, the final prune rarely can
 * (one noisy comparison on a skill that grew since). Against a fresh sample of the candidate,
 * the candidate without each edit is measured; the edit whose removal scores highest, if that
 * beats the candidate, is dropped (one per step: the others were measured beside it).
 */
async function screenStage(ctx: TrainContext, report: Report, before: SkillState, candidate: string | undefined, applied: EditApplyResult[]) {
  const { options, val, measure, applyOpts, score } = ctx;
  const accepted = report.action === 'accept' || report.action === 'accept_new_best';
  if (!options.screenAccepted || !options.gateEnabled || !accepted || candidate === undefined || applied.length <= 1) return null;
  countVal(ctx, 'screen');
  const fresh = (await measure(val, candidate, 'screen', options.samples * 2, options.samples)).scores;
  let best: { edit: EditApplyResult; content: string; scores: SplitScores; gain: number } | null = null;
  for (const a of applied) {
    const content = applyEdits(before.content, applied.filter((x) => x !== a).map((x) => x.edit), applyOpts).content;
    if (content === candidate) continue;
    countVal(ctx, 'screen');
    const scores = (await measure(val, content, 'screen')).scores;
    const gain = score(fresh) - score(scores); // what the edit adds in context (negative: it costs)
    if (gain < -SCORE_EPSILON && (!best || gain < best.gain)) best = { edit: a, content, scores, gain };
  }
  return best ? { dropped: [{ edit: best.edit, gain: best.gain }], content: best.content, scores: best.scores } : null;
}

/**
 * Stage 2b: every proposed edit is tried alone before the step selects and gates. An edit stays
 * in the pool only if, alone, it raises the val tasks of the job its evidence came from and does
 * not lower the other jobs' (scope-leak.ts). Why: with a noisy optimizer nearly every bundle of
 * four carries a rider (a contradiction, a wrong literal, a rule about nothing, a scope-dropped
 * limit); the gate then rejects the good edits with it, or passes the rider on the bundle's net
 * gain. Judged on its own job's tasks, an edit's effect is not drowned by the sampling noise of
 * the other jobs' tasks, which it leaves alone; and trying every proposal (not only the first
 * `lr`) lets the learning rate spend its slots on edits that work. Dropped edits are only demoted
 * in the buffer (one noisy look).
 */
async function preScreenStage(ctx: TrainContext, before: SkillState, proposed: ProposedEdit[], seed: number): Promise<{ kept: ProposedEdit[]; dropped: Array<{ edit: ProposedEdit; gain: number | null; why: string }> }> {
  const { options, val, measure, applyOpts, taskById } = ctx;
  const kept: ProposedEdit[] = [];
  const dropped: Array<{ edit: ProposedEdit; gain: number | null; why: string }> = [];
  for (const [i, p] of proposed.entries()) {
    const content = applyEdits(before.content, [p.edit], applyOpts).content;
    if (content === before.content) {
      dropped.push({ edit: p, gain: null, why: 'changes nothing alone' });
      continue;
    }
    countVal(ctx, 'prescreen');
    const alone = (await measure(val, content, 'prescreen')).scores;
    const focus = focusGain({ edit: p.edit, taskById, current: before.scores, candidate: alone, metric: options.gateMetric, mixedWeight: options.mixedWeight });
    // without family labels, the edit's gain on the whole split decides
    const gain = focus ? focus.gain : ctx.score(alone) - before.score;
    if (!(gain > SCORE_EPSILON)) {
      dropped.push({ edit: p, gain, why: `alone it does not raise its own job's val tasks (Δ ${gain.toFixed(3)}${focus ? ` over ${focus.n}` : ''})` });
      continue;
    }
    if (screenLeak(ctx, [p.edit], before.scores, alone, seed + 13 + i)?.leaks) {
      dropped.push({ edit: p, gain, why: "alone it lowers other jobs' val tasks (scope leak)" });
      continue;
    }
    kept.push(p);
  }
  return { kept, dropped };
}

export async function runStep(ctx: TrainContext, epoch: number, index: number, batch: Task[]): Promise<void> {
  const { options, st, buffer, spe, totalSteps, runId } = ctx;
  const t0 = Date.now();
  const globalStep = (epoch - 1) * spe + index + 1;
  const advanced = nextLr(st.lr, options.lrSchedule, totalSteps, options.lr, options.minLr);
  const batchSeed = options.seed + epoch * 1000 + index + 1;
  let before = st.current;
  const trainRun = await rolloutStage(ctx, batch, before);
  const { refl, kept, blocked, mergeFallbacks } = await proposeStage(ctx, before, trainRun.rollouts, batchSeed);
  const report: Report = {
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
    mergeFallbacks,
    proposed: kept.length,
    blocked: blocked.length,
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
  let settled: SettledGate | null = null;
  let leak: LeakVerdict | null = null;
  if (refl.patches.length) {
    let pool = kept;
    let screenedAlone = false;
    if (options.preScreen && options.gateEnabled && kept.length > 1) {
      before = await freshIncumbent(ctx, before);
      report.valBefore = before.score;
      const pre = await preScreenStage(ctx, before, kept, batchSeed);
      for (const d of pre.dropped) buffer.add([d.edit.edit], d.gain === null ? null : -d.gain, `pre-screen: ${d.why} (${runId} step ${globalStep})`, 'noise');
      report.prescreened = pre.dropped.length;
      pool = pre.kept;
      screenedAlone = true;
    }
    const { sel, applied } = await selectStage(ctx, report, before, pool);
    edits = { selected: applied.results, dropped: sel.dropped, blocked };
    candidate = applied.content;
    if (!sel.selected.length) {
      report.action = 'skip_no_edits';
      report.reason = screenedAlone && !pool.length ? `pre-screen: none of the ${kept.length} proposed edits raised its own job's val tasks alone without leaking` : (sel.fallback ?? 'learning rate 0 or nothing left after the rejected-edit filter');
    } else if (candidate === before.content) {
      report.action = 'reject_no_change';
      report.reason = 'no selected edit changed the skill';
    } else {
      if (!screenedAlone) before = await freshIncumbent(ctx, before);
      report.valBefore = before.score;
      const gateEdits = applied.results.filter((r) => r.status === 'applied').map((r) => r.edit);
      // a single pre-screened edit is the skill the pre-screen measured: the gate takes fresh draws, not the ones it was picked on
      const g = await gateStage(ctx, report, before, candidate, gateEdits, batchSeed, screenedAlone && gateEdits.length === 1);
      settled = g.settled;
      candScores = g.scores;
      leak = g.leak;
    }
  }
  let appliedEdits = edits.selected.filter((r) => r.status === 'applied');
  const { ownDrop, rescued } = await rescueStage(ctx, report, before, appliedEdits, batchSeed);
  const r = rescued?.r;
  if (rescued && r && r.candidate !== null && r.scores && r.decision) {
    const fullVerdict = verdictOf(settled, leak);
    report.rescued = { kept: r.kept.length, of: appliedEdits.length, fullValAfter: report.valAfter ?? 0 };
    const fullReason = report.reason;
    if (rescued.settled) applyVerdict(report, rescued.settled);
    report.reason = `full candidate rejected (${fullReason}); kept ${r.kept.length}/${appliedEdits.length} edits that help alone: ${r.decision.reason}`;
    candidate = r.candidate;
    candScores = rescued.settled?.candidate ?? r.scores;
    report.candidateHash = sha256(candidate).slice(0, 16);
    const keptIdx = new Set(r.kept.map((k) => k.index));
    const rejectedHere = appliedEdits.filter((a) => !keptIdx.has(a.index));
    for (const a of rejectedHere) buffer.add([a.edit], ownDrop.get(a.index) ?? null, `gate (alone): ${runId} step ${globalStep}`, fullVerdict);
    appliedEdits = r.kept;
  }
  const screened = await screenStage(ctx, report, before, candidate, appliedEdits);
  if (screened) {
    for (const d of screened.dropped) {
      ownDrop.set(d.edit.index, -d.gain);
      buffer.add([d.edit.edit], -d.gain, `screen: the accepted candidate scored higher without it (${runId} step ${globalStep})`, 'noise');
    }
    const droppedIdx = new Set(screened.dropped.map((d) => d.edit.index));
    appliedEdits = appliedEdits.filter((a) => !droppedIdx.has(a.index));
    candidate = screened.content;
    candScores = screened.scores;
    report.valAfter = ctx.score(screened.scores);
    report.screened = screened.dropped.length;
    report.reason = `${report.reason}; screen dropped ${screened.dropped.length} edit(s) the candidate scored higher without`;
    report.candidateHash = sha256(candidate).slice(0, 16);
  }
  commitStage(ctx, { report, before, edits, appliedEdits, ownDrop, candidate, candScores, settled, leak, trainRun, refl, batch, advanced, t0 });
}

/** Stage 6: the step's outcome into the run state, the buffer, the store and the run directory. */
function commitStage(
  ctx: TrainContext,
  s: {
    report: Report;
    before: SkillState;
    edits: { selected: EditApplyResult[]; dropped: unknown[]; blocked: unknown[] };
    appliedEdits: EditApplyResult[];
    ownDrop: Map<number, number | null>;
    candidate: string | undefined;
    candScores: SplitScores | null;
    settled: SettledGate | null;
    leak: LeakVerdict | null;
    trainRun: { scores: SplitScores; rollouts: Rollout[] };
    refl: ReflectResult;
    batch: Task[];
    advanced: ReturnType<typeof nextLr>;
    t0: number;
  },
): void {
  const { st, files, buffer, runId, score, db, persist, progress, input } = ctx;
  const { report, before, edits, appliedEdits, ownDrop, candidate, candScores, trainRun, refl, batch } = s;
  const globalStep = report.globalStep;
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
    const verdict = verdictOf(s.settled, s.leak);
    const band = report.gate ? `, CI [${report.gate.lo.toFixed(3)}, ${report.gate.hi.toFixed(3)}]` : '';
    const reason = `gate: val ${before.score.toFixed(3)} → ${report.valAfter.toFixed(3)}${band} (${runId} step ${globalStep})`;
    for (const a of appliedEdits) buffer.add([a.edit], dropOf(a.index), reason, verdict);
  }
  report.bestScore = st.best.score;
  report.wallMs = Date.now() - s.t0;
  const full: StepReport = { ...report, line: formatStepLine(report) };
  st.lr = s.advanced.state;
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
  saveStep(db, runId, report.epoch, globalStep, full);
  persist();
  progress.tick(1, full.action);
  input.onStep?.(full);
}
