/**
 * The optimizer's stages of a step: the train batch under the incumbent (rollout), the analysts'
 * patches merged into edits the rejected-edit buffer lets through (propose), and the learning
 * rate's cut of them applied to the incumbent (select).
 */
import { sha256 } from '../../core/fsutil.js';
import { applyEdits } from '../../skilldoc/edits.js';
import type { EditScope } from '../../skilldoc/segments.js';
import type { TrainContext } from '../context.js';
import type { StepState } from '../step-state.js';
import { historyText } from '../step-report.js';
import { reflect } from './reflect.js';
import { aggregate } from './aggregate.js';
import { decideBudget, selectEdits } from './select.js';
import { draftedRules, dropContradictions } from './consistency.js';

/** Rollouts per analyst call; patches per merge call; optimizer calls in flight. */
export const MINIBATCH_SIZE = 8;
const MERGE_BATCH_SIZE = 8;
const OPTIMIZER_CONCURRENCY = 4;

function scopeNote(scope: EditScope, fullDocument: boolean): string {
  return scope === 'learned'
    ? 'Only the learned region (between `<!-- skillopt:learned:start -->` and `<!-- skillopt:learned:end -->`) can change. Add rules as short bullet lines; replace/delete anchors must quote text inside that region. The hand-written text above it is read-only: if a rule there is wrong, add an explicit rule that overrides it.'
    : `The whole Markdown body can change${fullDocument ? ', including the YAML front matter (keep it valid YAML)' : ' except the YAML front matter'}. Guidance blocks are read-only.`;
}

/** The meta skill reaches the optimizer's prompts only when it is on. */
const metaOf = (ctx: TrainContext) => (ctx.options.metaSkill ? ctx.st.metaSkill : '');

/** Stage: the train batch under the incumbent. */
export async function rollout(ctx: TrainContext, s: StepState): Promise<void> {
  s.trainRun = await ctx.measure(s.batch, s.before.content, 'rollout');
}

/** Stage: reflect on the rollouts, merge the patches, drop what the buffer bans; the step's report starts here. */
export async function propose(ctx: TrainContext, s: StepState): Promise<void> {
  const { options, st, call, buffer, scope, taskById } = ctx;
  const refl = await reflect({
    call,
    skill: s.before.content,
    scopeNote: scopeNote(scope, options.fullDocument),
    rollouts: s.trainRun!.rollouts,
    tasks: taskById,
    rejected: buffer.digest(),
    metaSkill: metaOf(ctx),
    history: historyText(st.steps),
    maxEdits: options.lr,
    minibatchSize: MINIBATCH_SIZE,
    seed: s.seed,
    concurrency: OPTIMIZER_CONCURRENCY,
    skillAware: options.skillAware,
  });
  s.refl = refl;
  if (refl.patches.length) {
    const agg = await aggregate({ call, skill: s.before.content, patches: refl.patches, metaSkill: metaOf(ctx), mergeBatchSize: MERGE_BATCH_SIZE, concurrency: OPTIMIZER_CONCURRENCY });
    const { kept, blocked } = buffer.filter(agg.edits);
    // a rule written beside its opposite, a line that is no rule, or the user's own rule deleted with
    // nothing in its place never reaches selection
    const { kept: consistent, contradicting } = dropContradictions(s.before.content, kept, draftedRules(st.startDraft?.edits));
    s.pool = consistent;
    s.contradicting = contradicting;
    s.blocked = blocked;
    s.mergeFallbacks = agg.fallbacks.length;
  }
  Object.assign(s.report, {
    trainHard: s.trainRun!.scores.hard,
    trainSoft: s.trainRun!.scores.soft,
    failures: refl.failures,
    successes: refl.successes,
    infraErrors: refl.infraErrors,
    patches: refl.patches.length,
    reflectErrors: refl.errors.length,
    mergeFallbacks: s.mergeFallbacks,
    proposed: s.pool.length,
    blocked: s.blocked.length,
    reason: refl.errors.length ? `no usable patches (${refl.errors.length} analyst replies unusable)` : 'no edits proposed',
  });
}

/** Stage: the step's budget (learning rate), the selection under it, the candidate document. */
export async function select(ctx: TrainContext, s: StepState): Promise<void> {
  const { options, st, call, applyOpts } = ctx;
  const { report, before } = s;
  const proposed = report.proposed;
  if (!options.lrCap) report.lr = s.pool.length;
  else if (options.lrSchedule === 'autonomous') {
    const recent = st.steps.slice(-5).filter((x) => x.valAfter !== null);
    const decision = await decideBudget({
      call,
      skill: before.content,
      edits: s.pool,
      step: report.globalStep,
      totalSteps: report.totalSteps,
      min: options.minLr,
      max: options.lr,
      recentAcceptRate: recent.length ? recent.filter((x) => x.action.startsWith('accept') || x.action === 'force_accept').length / recent.length : 0.5,
      metaSkill: metaOf(ctx),
    });
    report.lr = decision.budget;
    report.lrReason = decision.fallback ? `fallback to min: ${decision.reason}` : decision.reason;
  }
  const sel = await selectEdits({ call, skill: before.content, edits: s.pool, budget: report.lr, metaSkill: metaOf(ctx) });
  const applied = applyEdits(before.content, sel.selected.map((p) => p.edit), applyOpts);
  report.selected = sel.selected.length;
  report.applied = applied.results.filter((r) => r.status === 'applied').length;
  report.unmatched = applied.results.length - report.applied;
  report.candidateHash = sha256(applied.content).slice(0, 16);
  s.edits = { selected: applied.results, dropped: [...sel.dropped, ...(s.contradicting ?? [])], blocked: s.blocked };
  s.appliedEdits = applied.results.filter((r) => r.status === 'applied');
  s.candidate = applied.content;
  if (!sel.selected.length) {
    report.action = 'skip_no_edits';
    report.reason = s.screenedAlone && !s.pool.length ? `pre-screen: none of the ${proposed} proposed edits raised its own job's val tasks alone without leaking` : (sel.fallback ?? 'learning rate 0 or nothing left after the rejected-edit filter');
  } else if (s.candidate === before.content) {
    report.action = 'reject_no_change';
    report.reason = 'no selected edit changed the skill';
  } else s.toGate = true;
}
