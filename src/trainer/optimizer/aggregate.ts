/**
 * AGGREGATE: failure-first hierarchical merge. Failure patches are merged in groups level by level
 * (a lone patch passes through with no call), then success patches, then one final merge of the
 * two groups when both exist. Any merge whose reply is unusable falls back, deterministically, to
 * concatenation with duplicates folded together (failure edits first).
 */
import type { Edit } from '../../core/records.js';
import { MergeReply, type MergePayload } from '../../core/protocol.js';
import { chunk, mapLimit } from '../rng.js';
import { renderPrompt } from './prompts.js';
import { askOptimizer, isSurvivable, type CallContext } from './call.js';
import { renderMeta, type EditSource, type Patch, type ProposedEdit } from './reflect.js';
import { normalizeText, stripMarkers } from '../../skilldoc/segments.js';
import { editKey } from '../../skilldoc/edit-key.js';

/** Folds identical edits together (support summed, evidence united), keeping first-seen order. */
export function dedupeEdits(edits: ProposedEdit[]): ProposedEdit[] {
  const byKey = new Map<string, ProposedEdit>();
  for (const p of edits) {
    const k = editKey(p.edit);
    const seen = byKey.get(k);
    if (!seen) {
      byKey.set(k, { ...p, edit: { ...p.edit, evidence: [...(p.edit.evidence ?? [])] } });
      continue;
    }
    seen.support += p.support;
    seen.edit.evidence = [...new Set([...(seen.edit.evidence ?? []), ...(p.edit.evidence ?? [])])];
    if (seen.source !== 'failure' && p.source === 'failure') seen.source = 'failure';
  }
  return [...byKey.values()];
}

export interface AggregateInput {
  call: CallContext;
  skill: string;
  patches: Patch[];
  metaSkill: string;
  mergeBatchSize: number;
  concurrency: number;
}

export interface AggregateResult {
  edits: ProposedEdit[];
  /** merges that fell back to concatenation, with the reason */
  fallbacks: Array<{ merge: string; reason: string }>;
  merges: number;
}

/** Tags merged edits: support and source carried from the inputs they match, else the group's. */
function tagMerged(edits: Edit[], inputs: ProposedEdit[], source: EditSource, level: number): ProposedEdit[] {
  const byContent = new Map(inputs.map((p) => [normalizeText(p.edit.content ?? ''), p]));
  return edits.map((e) => {
    const match = byContent.get(normalizeText(e.content ?? ''));
    const evidence = (e.evidence ?? []).length ? e.evidence : (match?.edit.evidence ?? []);
    return {
      edit: { ...e, anchor: e.anchor ? stripMarkers(e.anchor) : e.anchor, content: stripMarkers(e.content ?? ''), evidence },
      source: match?.source ?? source,
      support: Math.max(1, match?.support ?? evidence.length),
      level,
    };
  });
}

export async function aggregate(input: AggregateInput): Promise<AggregateResult> {
  const fallbacks: AggregateResult['fallbacks'] = [];
  let merges = 0;
  const groupSize = Math.max(2, Math.floor(input.mergeBatchSize)); // < 2 would never converge (upstream #194)

  const mergeOnce = async (groups: ProposedEdit[][], label: string, level: number, source: EditSource, final: boolean): Promise<ProposedEdit[]> => {
    const inputs = groups.flat();
    const fallback = (reason: string) => {
      fallbacks.push({ merge: label, reason });
      return dedupeEdits(inputs).map((p) => ({ ...p, level: Math.max(p.level, level) }));
    };
    const maxEdits = inputs.length;
    const payload: MergePayload = { skill: input.skill, patches: groups.map((g) => g.map((p) => p.edit)), maxEdits };
    const rendered = final
      ? renderPrompt('merge_final', {
          meta: renderMeta(input.metaSkill),
          skill: input.skill,
          failure_count: groups[0].length,
          success_count: groups[1].length,
          patches: JSON.stringify(payload.patches, null, 2),
          max_edits: maxEdits,
        })
      : renderPrompt('merge', {
          meta: renderMeta(input.metaSkill),
          skill: input.skill,
          count: groups.length,
          level,
          patches: JSON.stringify(payload.patches, null, 2),
          max_edits: maxEdits,
        });
    merges++;
    try {
      const reply = await askOptimizer(input.call, 'merge', 'merge', payload, rendered, MergeReply);
      if (reply.edits.length > maxEdits) return fallback(`reply had ${reply.edits.length} edits for ${maxEdits} inputs`);
      return tagMerged(reply.edits, inputs, source, level);
    } catch (err) {
      if (!isSurvivable(err)) throw err;
      return fallback((err as Error).message);
    }
  };

  const hierarchical = async (patches: Patch[], source: EditSource): Promise<ProposedEdit[]> => {
    let level = 0;
    let current = patches.map((p) => p.edits);
    if (current.length === 0) return [];
    while (current.length > 1) {
      level++;
      const groups = chunk(current, groupSize);
      current = await mapLimit(groups, input.concurrency, (g, i) =>
        g.length === 1 ? Promise.resolve(g[0]) : mergeOnce(g, `${source} level ${level} batch ${i}`, level, source, false),
      );
    }
    return current[0];
  };

  const failure = await hierarchical(input.patches.filter((p) => p.source === 'failure'), 'failure');
  const success = await hierarchical(input.patches.filter((p) => p.source === 'success'), 'success');
  let edits: ProposedEdit[];
  if (failure.length && success.length) edits = await mergeOnce([failure, success], 'final', Math.max(...failure.map((e) => e.level), ...success.map((e) => e.level)) + 1, 'failure', true);
  else edits = failure.length ? failure : success;
  return { edits: dedupeEdits(edits), fallbacks, merges };
}
