/**
 * Edit-level credit assignment for the review screen: for each accepted edit in the best skill,
 * its marginal effect on validation = score(best) − score(best without that edit). The skill
 * "without" is rebuilt by replaying the accepted history from the base document with that one
 * edit left out. Rollouts come from the cache whenever that document was scored before.
 */
import type { Edit } from '../../core/records.js';
import { throwIfAborted } from '../../core/errors.js';
import { applyEdits, type ApplyOptions } from '../../skilldoc/edits.js';
import { setGuidance } from '../../skilldoc/segments.js';

/** How the current skill was reached from the base document, in order. */
export type LineageOp = { kind: 'edits'; step: number; edits: Array<{ id: string; edit: Edit }> } | { kind: 'guidance'; text: string };

export function rebuildSkill(base: string, lineage: LineageOp[], opts: ApplyOptions, omit: string | null | ReadonlySet<string> = null): string {
  const skip = (id: string) => (omit === null ? false : typeof omit === 'string' ? id === omit : omit.has(id));
  let doc = base;
  for (const op of lineage) {
    if (op.kind === 'guidance') doc = setGuidance(doc, op.text);
    else doc = applyEdits(doc, op.edits.filter((e) => !skip(e.id)).map((e) => e.edit), opts).content;
  }
  return doc;
}

/** The lineage with some edits left out. */
export function withoutEdits(lineage: LineageOp[], ids: ReadonlySet<string>): LineageOp[] {
  return lineage.map((op) => (op.kind === 'edits' ? { ...op, edits: op.edits.filter((e) => !ids.has(e.id)) } : op));
}

export interface AttributionResult {
  effects: Map<string, number | null>;
  /** false when replaying the lineage did not reproduce the best skill exactly (effects are then approximate) */
  faithful: boolean;
  measured: number;
}

export async function attributeEdits(input: {
  base: string;
  lineage: LineageOp[];
  best: string;
  bestScore: number;
  opts: ApplyOptions;
  maxEdits: number;
  score: (content: string) => Promise<number>;
  signal?: AbortSignal;
}): Promise<AttributionResult> {
  const ids = input.lineage.flatMap((op) => (op.kind === 'edits' ? op.edits.map((e) => e.id) : []));
  const effects = new Map<string, number | null>(ids.map((id) => [id, null]));
  const faithful = rebuildSkill(input.base, input.lineage, input.opts) === input.best;
  let measured = 0;
  // one accepted edit: its effect is the whole gain, measured already by the gate
  for (const id of ids.slice(0, Math.max(0, input.maxEdits))) {
    throwIfAborted(input.signal);
    const without = rebuildSkill(input.base, input.lineage, input.opts, id);
    if (without === input.best) {
      effects.set(id, 0); // the edit changed nothing that survived later edits
      continue;
    }
    effects.set(id, input.bestScore - (await input.score(without)));
    measured++;
  }
  return { effects, faithful, measured };
}
