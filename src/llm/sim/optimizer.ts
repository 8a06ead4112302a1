/**
 * The simulated optimizer's structured operations other than reflect: merge, rank, lr_budget,
 * slow_update, meta_skill. Each reads its typed payload and returns the reply object the
 * protocol's zod schema expects.
 */
import type { Edit } from '../../core/records.js';
import type { LrBudgetPayload, MergePayload, MetaSkillPayload, RankPayload, SlowUpdatePayload } from '../../core/protocol.js';
import type { Rng } from './rng.js';
import { concepts, isNegated, jaccard } from './semantics.js';

function sameMeaning(a: Edit, b: Edit): boolean {
  if (a.op !== b.op) return false;
  if (a.op !== 'add' && (a.anchor ?? '') !== (b.anchor ?? '')) return false;
  if (a.op === 'delete') return true;
  return isNegated(a.content) === isNegated(b.content) && jaccard(concepts(a.content), concepts(b.content)) >= 0.8;
}

/** Dedupe by meaning (evidence merged), best-supported first, failures-first order kept on ties. */
export function merge(payload: MergePayload): { edits: Edit[] } {
  const merged: Edit[] = [];
  for (const patch of payload.patches) {
    for (const e of patch) {
      const twin = merged.find((m) => sameMeaning(m, e));
      if (twin) {
        twin.evidence = [...new Set([...twin.evidence, ...e.evidence])];
        continue;
      }
      merged.push({ ...e, evidence: [...e.evidence] });
    }
  }
  const ranked = merged.map((e, i) => ({ e, i })).sort((a, b) => b.e.evidence.length - a.e.evidence.length || a.i - b.i);
  return { edits: ranked.slice(0, Math.max(0, payload.maxEdits)).map((x) => x.e) };
}

/** Expected value ≈ how many tasks back the edit; deletions are riskier and go later. */
export function rank(payload: RankPayload): { order: number[] } {
  const value = (e: Edit): number => e.evidence.length - (e.op === 'delete' ? 0.5 : 0);
  const order = payload.edits
    .map((e, i) => ({ i, v: value(e) }))
    .sort((a, b) => b.v - a.v || a.i - b.i)
    .map((x) => x.i);
  return { order };
}

/** Bigger steps early and while edits are being accepted; never more than there are edits. */
export function lrBudget(payload: LrBudgetPayload): { budget: number; reason: string } {
  const { min, max } = payload;
  const progress = payload.totalSteps > 0 ? Math.min(1, payload.step / payload.totalSteps) : 0;
  const accept = Math.min(1, Math.max(0, payload.recentAcceptRate));
  const raw = min + (max - min) * (0.35 + 0.4 * accept + 0.25 * (1 - progress));
  let budget = Math.round(Math.min(max, Math.max(min, raw)));
  if (payload.candidateEdits > 0) budget = Math.min(budget, Math.max(min, payload.candidateEdits));
  const reason = `step ${payload.step}/${payload.totalSteps}, recent accept rate ${accept.toFixed(2)}: ${budget} edit(s)`;
  return { budget, reason };
}

const MAX_GUIDANCE_LINES = 8;

/** Rules present after the epoch but not before: what this epoch learned. */
function learnedLines(before: string, after: string): string[] {
  const had = new Set(before.split(/\r?\n/).map((l) => l.trim()));
  return after
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => /^[-*]\s+\S/.test(l) && !had.has(l) && concepts(l).size >= 2);
}

function shortIntent(intent: string): string {
  const first = intent.split(/\r?\n/)[0].trim().replace(/[.:]+$/, '');
  // cut at a word, never inside one ("…negative numbers, thousa..." read as a rule once it leaked)
  return first.length > 60 ? `${first.slice(0, 58).replace(/\s+\S*$/, '')} …` : first;
}

/**
 * Rewrites the protected guidance block with longitudinal notes: how the epoch went and where to
 * look next. It deliberately does not copy the epoch's rules into the protected block: a copied
 * rule (good or harmful) could then never be edited again by later steps.
 */
export function slowUpdate(payload: SlowUpdatePayload, rng: Rng): { guidance: string } {
  const count = (status: SlowUpdatePayload['perTask'][number]['status']) => payload.perTask.filter((t) => t.status === status);
  const improved = count('improved');
  const regressed = count('regressed');
  const failing = count('still_failing');
  const kept = payload.currentGuidance
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => /^[-*]\s+\S/.test(l) && !/^[-*]\s+(Epoch review|Still failing|Regressed)/.test(l));
  const lines = kept.slice(-(MAX_GUIDANCE_LINES - 3));
  const learned = learnedLines(payload.skillBefore, payload.skillAfter).length;
  lines.push(
    `- Epoch review: ${improved.length} task(s) improved, ${regressed.length} regressed, ${failing.length} still failing; ${learned} rule(s) were added this epoch.`,
  );
  // with the trajectories, name what the judge said the reply still misses (its first failed check)
  const missed = (t: SlowUpdatePayload['perTask'][number]) => /^Failed check "[^"]+":\s*([^—;\n]+)/m.exec(t.trajectory?.after.feedback ?? '')?.[1]?.trim();
  if (failing.length) lines.push(`- Still failing: ${rng.pick(['focus on', 'look at'])} ${failing.slice(0, 2).map((t) => shortIntent(t.intent) + (missed(t) ? ` (misses: ${missed(t)})` : '')).join('; ')}.`);
  if (regressed.length) lines.push(`- Regressed: ${regressed.slice(0, 2).map((t) => shortIntent(t.intent)).join('; ')}; re-read the rules for these before replying.`);
  return { guidance: lines.slice(-MAX_GUIDANCE_LINES).join('\n') };
}

const MAX_META_LINES = 16;

/** Optimizer-side memory: which kinds of edits helped and which to avoid. */
export function metaSkill(payload: MetaSkillPayload): { meta: string } {
  const describe = (e: Edit): string => `${e.op}: ${(e.content || e.anchor || '').replace(/^[-*]\s+/, '').slice(0, 90)}`;
  const lines = payload.previousMeta.split(/\r?\n/).filter((l) => l.trim() !== '');
  lines.push(`Epoch ${payload.epoch}: validation ${payload.valBefore.toFixed(2)} -> ${payload.valAfter.toFixed(2)}.`);
  for (const e of payload.accepted.slice(0, 3)) lines.push(`Worked: ${describe(e)}`);
  for (const e of payload.rejected.filter((r) => (r.scoreDrop ?? 0) > 0).slice(0, 3)) lines.push(`Avoid: ${describe(e)} (dropped ${(e.scoreDrop ?? 0).toFixed(2)})`);
  if (payload.rejected.some((e) => e.op === 'delete')) lines.push('Prefer adding concrete rules over deleting existing ones.');
  return { meta: lines.slice(-MAX_META_LINES).join('\n') };
}
