/**
 * The mid-run prune, at every epoch boundary but the last (the finish prunes then): each accepted
 * edit of the current skill, and each rule sentence of a multi-rule edit, is scored leave-one-out
 * on val; the worst suspects, one at a time, must pass the step's strict, paired gate against the
 * current skill to be removed.
 *
 * Why: each edit was gated against the skill of its moment. From an empty skill a rule that ruins
 * every reply ("reply only with JSON", "keep every reply under 500 characters") costs almost
 * nothing there (every reply fails already) and rides in on the gain of the rules beside it, often
 * in the same bullet; its harm shows once later rules work. Left in until the final prune it hides
 * later fixes too (a new rule's effect is 0 where the target replies JSON, so the pre-screen and
 * the gate turn every good proposal away: a run stalled at 0.33 for eight steps that way), and the
 * final prune removes whole edits only, so a harmful sentence in a good bullet ships.
 */
import { SCORE_EPSILON } from '../gate/gate.js';
import { countVal } from '../gate/val-gate.js';
import { judge } from '../gate/verdict.js';
import { rebuildSkill, withoutEdits, type LineageOp } from './attribution.js';
import { freshIncumbent } from '../gate/fresh-incumbent.js';
import type { TrainContext } from '../context.js';
import type { EpochState } from '../step-state.js';
import type { PairedGateDecision } from '../gate/paired.js';

/** Suspects tried through the gate per boundary (each costs a gated val comparison). */
const MAX_SUSPECTS = 3;
/** Leave-one-out looks per boundary (each costs one val measurement). */
const MAX_LOOKS = 40;

/** How much val a cut may cost, at the gate's confidence, and still count as no loss. */
const CUT_MARGIN = 0.02;

/**
 * A cut the strict gate left undecided is still taken when its mean gained and its interval rules
 * out any loss beyond CUT_MARGIN: the shorter skill is the better one at equal scores (every rule
 * dilutes the others' compliance), and a suspect whose removal surely costs nothing is dead weight
 * or worse. An addition has to prove a gain; a suspect's removal only that it loses nothing.
 */
function nonInferiorCut(d: PairedGateDecision): boolean {
  return d.outcome === 'indecisive' && d.candidateScore - d.currentScore > SCORE_EPSILON && d.ci !== undefined && d.ci.lo >= -CUT_MARGIN;
}

/** One way to cut the history: a whole accepted edit, or one rule sentence of it. */
interface Cut {
  id: string;
  /** the sentence cut, or null for the whole edit */
  sentence: string | null;
  apply: (lineage: LineageOp[]) => LineageOp[];
}

/** The rule sentences of an edit's text (a bullet may state several rules). */
export function ruleSentences(text: string): string[] {
  const body = text.replace(/^\s*[-*]\s+/, '').trim();
  return body.split(/(?<=[.!?])\s+(?=[A-Z`'"(])/).map((s) => s.trim()).filter(Boolean);
}

function withoutSentence(lineage: LineageOp[], id: string, sentence: string): LineageOp[] {
  return lineage.map((op) => {
    if (op.kind !== 'edits') return op;
    return {
      ...op,
      edits: op.edits.map((e) => {
        if (e.id !== id) return e;
        const rest = ruleSentences(e.edit.content ?? '').filter((s) => s !== sentence);
        return { ...e, edit: { ...e.edit, content: `- ${rest.join(' ')}` } };
      }),
    };
  });
}

function cutsOf(lineage: LineageOp[]): Cut[] {
  const cuts: Cut[] = [];
  for (const op of lineage) {
    if (op.kind !== 'edits') continue;
    for (const e of op.edits) {
      cuts.push({ id: e.id, sentence: null, apply: (l) => withoutEdits(l, new Set([e.id])) });
      // sentence cuts only within a one-line bullet: a multi-line edit (a section, a list) keeps its shape
      if (!/^\s*[-*] [^\n]+\s*$/.test(e.edit.content ?? '')) continue;
      const sentences = ruleSentences(e.edit.content ?? '');
      if (sentences.length < 2) continue;
      for (const s of sentences) cuts.push({ id: e.id, sentence: s, apply: (l) => withoutSentence(l, e.id, s) });
    }
  }
  return cuts;
}

/** What the mid-run prune did, in words for the epoch note. */
export async function midRunPrune(ctx: TrainContext, epoch: number): Promise<string> {
  const { options, st, val, measure, score, applyOpts, buffer, runId, files } = ctx;
  if (!options.midRunPrune || !options.prune || !options.gateEnabled || epoch >= options.epochs) return 'off';
  // only while the current skill is the best: the best skill's lineage must stay its own history
  if (st.current.content !== st.best.content || st.lineage.length !== st.best.lineageLength) return 'skipped (the current skill is not the best)';
  const base = st.baseline.content;
  if (rebuildSkill(base, st.lineage, applyOpts) !== st.current.content) return 'skipped (the history does not rebuild the skill)';
  const cuts = cutsOf(st.lineage).slice(0, MAX_LOOKS);
  if (!cuts.length) return 'nothing to prune';
  // the incumbent without its winner's curse (its selection draw would make every cut look
  // worse), kept out of the run state: a prune that cuts nothing leaves the run's course as it was
  const current = await freshIncumbent(ctx, st.current, false);
  const looked: Array<{ cut: Cut; effect: number }> = [];
  for (const cut of cuts) {
    const content = rebuildSkill(base, cut.apply(st.lineage), applyOpts);
    if (content === current.content) continue;
    countVal(ctx, 'prune');
    looked.push({ cut, effect: current.score - score((await measure(val, content, 'prune')).scores) });
  }
  // one suspect at a time, the worst first: one sample per look calls some good rules harmful by
  // chance, and cutting every suspect together throws the good ones out with the bad
  const suspects = looked.filter((l) => l.effect < -SCORE_EPSILON).sort((a, b) => a.effect - b.effect);
  if (!suspects.length) return `kept all ${looked.length} accepted edit(s) and rule sentence(s)`;
  let incumbent = current;
  let kept = st.lineage;
  const removed: string[] = [];
  const verdicts: string[] = [];
  const cutIds = new Set<string>();
  for (const { cut, effect } of suspects.slice(0, MAX_SUSPECTS)) {
    if (cutIds.has(cut.id)) continue; // the edit changed under an earlier cut: its look is stale
    const lineage = cut.apply(kept);
    const content = rebuildSkill(base, lineage, applyOpts);
    if (content === incumbent.content) continue;
    countVal(ctx, 'prune');
    const measured = (await measure(val, content, 'prune')).scores;
    const { settled } = await judge(ctx, 'prune', incumbent, { content, scores: measured }, options.seed + 7000 + epoch * 10 + removed.length + verdicts.length, [], false);
    if (!settled.decision.accepted && !nonInferiorCut(settled.decision)) {
      verdicts.push(settled.decision.reason);
      continue;
    }
    incumbent = { content, scores: settled.candidate, score: score(settled.candidate), origin: `prune_epoch_${epoch}` };
    kept = lineage;
    cutIds.add(cut.id);
    const record = st.edits.find((e) => e.id === cut.id && e.status === 'accepted');
    const why = `prune (epoch ${epoch}): removing it raised validation (${runId})`;
    if (cut.sentence === null) {
      removed.push(cut.id);
      if (record) {
        Object.assign(record, { status: 'rejected', scoreDrop: -effect, effect });
        buffer.add([record], -effect, why);
      }
    } else {
      removed.push(`${cut.id} (one sentence)`);
      const now = kept.flatMap((op) => (op.kind === 'edits' ? op.edits : [])).find((e) => e.id === cut.id);
      if (record && now) record.content = now.edit.content;
      buffer.add([{ op: 'add', content: `- ${cut.sentence}`, rationale: '', evidence: [] }], -effect, why);
    }
  }
  if (!removed.length) return `kept ${suspects.length} suspect(s): ${verdicts[0] ?? 'no cut changed the skill'}`;
  st.current = incumbent;
  st.lineage = kept;
  st.best = { ...incumbent, step: st.lastCompletedStep, lineageLength: kept.length };
  files.writeBest(incumbent.content);
  return `removed ${removed.join(', ')} of ${suspects.length} suspect(s), each passing the gate alone (val ${current.score.toFixed(3)} → ${incumbent.score.toFixed(3)})`;
}

/** Stage: the mid-run prune at an epoch boundary, its outcome in the run directory and the notes. */
export async function midRunPruneStage(ctx: TrainContext, b: EpochState): Promise<void> {
  const summary = await midRunPrune(ctx, b.epoch);
  if (summary === 'off') return;
  ctx.files.writeEpoch(b.epoch, 'prune', { summary });
  ctx.input.onNote?.(`[epoch ${b.epoch}] prune: ${summary}`);
}
