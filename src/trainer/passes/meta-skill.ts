/**
 * The meta skill, at each epoch boundary when it is on: the optimizer's strategy memory (which
 * edits helped or hurt this epoch), never put in the skill, shown to the optimizer's reflect,
 * merge, rank and lr prompts from the next epoch on. Off by default (`metaSkill`): on the train
 * bench it changed nothing measurable (0.795 both ways on the earlier world; 0.887 both ways on the
 * instance-valued one) and costs ~12% of the optimizer's prompt tokens. docs/TRAINER.md.
 */
import type { Edit } from '../../core/records.js';
import { MetaSkillReply, type MetaSkillPayload } from '../../core/protocol.js';
import { askOptimizer, isSurvivable, type CallContext } from '../optimizer/call.js';
import { clip, renderPrompt } from '../optimizer/prompts.js';
import type { TrainContext } from '../context.js';
import type { EpochState } from '../step-state.js';

export interface MetaSkillResult {
  meta: string | null;
  action: 'write_meta_skill' | 'no_content' | 'call_failed' | 'skip_no_evidence';
  error?: string;
}

export async function updateMetaSkill(input: {
  call: CallContext;
  previousMeta: string;
  epoch: number;
  accepted: Edit[];
  rejected: Array<Edit & { scoreDrop: number | null }>;
  valBefore: number;
  valAfter: number;
}): Promise<MetaSkillResult> {
  if (!input.accepted.length && !input.rejected.length) return { meta: null, action: 'skip_no_evidence' };
  const payload: MetaSkillPayload = {
    previousMeta: input.previousMeta,
    epoch: input.epoch,
    accepted: input.accepted,
    rejected: input.rejected,
    valBefore: input.valBefore,
    valAfter: input.valAfter,
  };
  const line = (e: Edit) => `- [${e.op}]${e.anchor ? ` anchor=${JSON.stringify(clip(e.anchor, 80))}` : ''} ${JSON.stringify(clip(e.content, 200))}`;
  const rendered = renderPrompt('meta_skill', {
    previous: input.previousMeta || '(none yet)',
    epoch: input.epoch,
    val_before: input.valBefore.toFixed(3),
    val_after: input.valAfter.toFixed(3),
    accepted: input.accepted.map(line).join('\n') || '(none)',
    rejected: input.rejected.map((e) => `${line(e)} (drop ${e.scoreDrop === null ? 'n/a' : e.scoreDrop.toFixed(3)})`).join('\n') || '(none)',
  });
  try {
    const reply = await askOptimizer(input.call, 'meta_skill', 'meta_skill', payload, rendered, MetaSkillReply);
    const meta = reply.meta.trim();
    return meta ? { meta, action: 'write_meta_skill' } : { meta: null, action: 'no_content' };
  } catch (err) {
    if (!isSurvivable(err)) throw err;
    return { meta: null, action: 'call_failed', error: (err as Error).message };
  }
}

/** Stage: the meta skill rewritten from this epoch's accepted and rejected edits. */
export async function metaSkillStage(ctx: TrainContext, b: EpochState): Promise<void> {
  const { st, files, call, input } = ctx;
  const { epoch } = b;
  const epochSteps = new Set(st.steps.filter((s) => s.epoch === epoch).map((s) => s.globalStep));
  const mine = st.edits.filter((e) => epochSteps.has(Number(/^s(\d+)e/.exec(e.id)?.[1])));
  const res = await updateMetaSkill({
    call,
    previousMeta: st.metaSkill,
    epoch,
    accepted: mine.filter((e) => e.status === 'accepted'),
    rejected: mine.filter((e) => e.status === 'rejected').map((e) => ({ ...e, scoreDrop: e.scoreDrop ?? null })),
    valBefore: st.epochStart.score,
    valAfter: st.current.score,
  });
  if (res.meta) st.metaSkill = res.meta;
  b.metaSkill = res.action;
  files.writeEpoch(epoch, 'meta_skill', { action: res.action, meta: st.metaSkill, error: res.error ?? null });
  input.onNote?.(`[epoch ${epoch}] meta skill: ${describeMetaAction(res.action, st.metaSkill, res.error)}`);
}

/** The meta-skill step in words (the stored action keeps the upstream's names). */
function describeMetaAction(action: string, meta: string, error?: string): string {
  switch (action) {
    case 'write_meta_skill': {
      const lines = meta.split(/\r?\n/).filter((l) => l.trim()).length;
      return `updated (${lines} line${lines === 1 ? '' : 's'} of lessons for the optimizer)`;
    }
    case 'skip_no_evidence':
      return 'unchanged (no edit was accepted or rejected this epoch)';
    case 'no_content':
      return 'unchanged (the optimizer returned nothing)';
    case 'call_failed':
      return `unchanged (the call failed: ${error ?? 'unknown error'})`;
    default:
      return action;
  }
}
