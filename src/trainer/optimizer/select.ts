/**
 * SELECT: keep at most the step's edit budget (the textual learning rate). Within budget nothing is
 * called; over budget the optimizer ranks, and only valid, unseen, in-range indices count, up to
 * the budget (upstream let a budget of 0 still pick one). An unusable ranking falls back to merge
 * order, which is failure-first. The autonomous schedule asks the optimizer for the budget itself.
 */
import { LrBudgetReply, RankReply, type LrBudgetPayload, type RankPayload } from '../../core/protocol.js';
import { renderPrompt, clip } from './prompts.js';
import { askOptimizer, isSurvivable, type CallContext } from './call.js';
import { renderMeta, type ProposedEdit } from './reflect.js';
import { clampAutonomous } from './lr.js';

export interface SelectResult {
  selected: ProposedEdit[];
  dropped: ProposedEdit[];
  ranked: boolean;
  fallback?: string;
}

export function describeEdit(p: ProposedEdit, i: number): string {
  const e = p.edit;
  const anchor = e.anchor ? `  anchor=${JSON.stringify(clip(e.anchor, 120))}` : '';
  return `[${i}] op=${e.op}${anchor}  content=${JSON.stringify(clip(e.content, 300))}  support=${p.support}  source=${p.source}`;
}

/** Valid ranking → selected indices: ints in range, first occurrence only, at most `budget`. */
export function pickIndices(order: number[], count: number, budget: number): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  for (const i of order) {
    if (out.length >= budget) break;
    if (!Number.isInteger(i) || i < 0 || i >= count || seen.has(i)) continue;
    seen.add(i);
    out.push(i);
  }
  return out;
}

export async function selectEdits(input: { call: CallContext; skill: string; edits: ProposedEdit[]; budget: number; metaSkill: string }): Promise<SelectResult> {
  const { edits } = input;
  const budget = Math.max(0, Math.floor(input.budget));
  if (budget === 0) return { selected: [], dropped: edits, ranked: false };
  if (edits.length <= budget) return { selected: edits, dropped: [], ranked: false };
  const payload: RankPayload = { skill: input.skill, edits: edits.map((p) => p.edit), budget };
  const rendered = renderPrompt('rank', {
    meta: renderMeta(input.metaSkill),
    skill: input.skill,
    count: edits.length,
    budget,
    edits: edits.map(describeEdit).join('\n'),
  });
  let fallback: string | undefined;
  try {
    const reply = await askOptimizer(input.call, 'rank', 'rank', payload, rendered, RankReply);
    const picked = pickIndices(reply.order, edits.length, budget);
    if (picked.length) {
      const set = new Set(picked);
      return { selected: picked.map((i) => edits[i]), dropped: edits.filter((_, i) => !set.has(i)), ranked: true };
    }
    fallback = 'ranking named no valid edit';
  } catch (err) {
    if (!isSurvivable(err)) throw err;
    fallback = (err as Error).message;
  }
  return { selected: edits.slice(0, budget), dropped: edits.slice(budget), ranked: false, fallback: `truncated ${edits.length}→${budget} in merge order: ${fallback}` };
}

export interface BudgetDecision {
  budget: number;
  raw: number | null;
  reason: string;
  fallback: boolean;
}

/** Autonomous learning rate: the optimizer picks a budget within [min, max]; a bad reply → min. */
export async function decideBudget(input: {
  call: CallContext;
  skill: string;
  edits: ProposedEdit[];
  step: number;
  totalSteps: number;
  min: number;
  max: number;
  recentAcceptRate: number;
  metaSkill: string;
}): Promise<BudgetDecision> {
  const payload: LrBudgetPayload = {
    skill: input.skill,
    step: input.step,
    totalSteps: input.totalSteps,
    min: input.min,
    max: input.max,
    recentAcceptRate: input.recentAcceptRate,
    candidateEdits: input.edits.length,
  };
  const rendered = renderPrompt('lr_budget', {
    meta: renderMeta(input.metaSkill),
    skill: input.skill,
    step: input.step,
    total_steps: input.totalSteps,
    accept_rate: input.recentAcceptRate.toFixed(2),
    count: input.edits.length,
    min: input.min,
    max: input.max,
    edits: input.edits.map(describeEdit).join('\n'),
  });
  try {
    const reply = await askOptimizer(input.call, 'lr', 'lr_budget', payload, rendered, LrBudgetReply);
    return { budget: clampAutonomous(reply.budget, input.min, input.max, input.edits.length), raw: reply.budget, reason: reply.reason, fallback: false };
  } catch (err) {
    if (!isSurvivable(err)) throw err;
    return { budget: clampAutonomous(input.min, input.min, input.max, input.edits.length), raw: null, reason: (err as Error).message, fallback: true };
  }
}
