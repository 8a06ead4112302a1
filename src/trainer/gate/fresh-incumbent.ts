/**
 * The incumbent's val score without its winner's curse: a skill became current because its first
 * val measure beat the one before, so that measure is biased upward and every later candidate,
 * measured fresh, looks worse than it is (runs stalled after one lucky draw). Each gate adds one
 * fresh sample of the incumbent (up to MAX_FRESH_LOOKS) and compares against the pool of fresh
 * samples alone; the best skill's score is corrected with it. `adopt: false` leaves the run state
 * as it was (a look that decides nothing must not change the run's course).
 */
import type { TrainContext } from '../context.js';
import type { SkillState } from '../run-files.js';
import { countVal } from './val-gate.js';

/** Fresh val looks pooled for one incumbent; after that its estimate comes from the cache. */
export const MAX_FRESH_LOOKS = 4;

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
