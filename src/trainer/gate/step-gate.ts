/** The step's gate stage: the candidate against a fresh look of the incumbent on val, one verdict (gate/verdict.ts). */
import type { TrainContext } from '../context.js';
import type { StepState } from '../step-state.js';
import { freshIncumbent } from './fresh-incumbent.js';
import { countVal } from './val-gate.js';
import { judge, reportVerdict } from './verdict.js';

export async function gate(ctx: TrainContext, s: StepState): Promise<void> {
  // the pre-screen already took the incumbent's fresh look for this step
  if (!s.screenedAlone) s.before = await freshIncumbent(ctx, s.before);
  s.report.valBefore = s.before.score;
  const candidate = s.candidate!;
  const edits = s.appliedEdits.map((r) => r.edit);
  countVal(ctx, 'gate');
  const n = ctx.options.samples;
  // a single pre-screened edit is the skill the pre-screen measured: the gate takes fresh draws, not the ones it was picked on
  const freshDraws = s.screenedAlone && edits.length === 1;
  const scores = (freshDraws ? await ctx.measure(ctx.val, candidate, 'gate', n * 2, n) : await ctx.measure(ctx.val, candidate, 'gate')).scores;
  const verdict = await judge(ctx, 'gate', s.before, { content: candidate, scores }, s.seed, edits, true);
  reportVerdict(s.report, verdict);
  s.verdict = verdict;
  s.candScores = verdict.settled.candidate;
}
