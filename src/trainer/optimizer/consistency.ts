/**
 * Each rule once, and never its opposite (issue 41): a rule an edit writes that says the opposite
 * of one the skill keeps ("Do not group them in a `describe` block named after the function." beside
 * "Group them in a `describe` block named after the function.") is taken out of the edit before
 * selection. A model handed both follows neither reliably, and a person would never write the pair.
 * An edit that REPLACES the rule it turns around is a change of mind and stays (the gate measures
 * it); only a line that would leave both in the skill goes. So does a line that is no rule at all
 * (an example with nothing it exemplifies, "- e.g. `Refs: #254`."; a sentence cut short): the
 * staging guard would take it out, so the gate should not measure it. The other rules the edit
 * bundles stay; an edit with nothing left goes. The check reads the skill and the edit's text
 * alone, so it holds for any optimizer backend. Pure.
 */
import type { Edit } from '../../core/records.js';
import { fragmentIn, negates } from '../../skilldoc/wording-lint.js';
import type { ProposedEdit } from './reflect.js';

const BULLET = /^\s*[-*+]\s+\S/;

const bullets = (text: string): string[] => text.split(/\r?\n/).filter((l) => BULLET.test(l)).map((l) => l.trim());

/** A line an edit writes that is no rule, or says the opposite of a rule the skill keeps beside it. */
export interface InconsistentLine {
  line: string;
  why: string;
  /** the rule of the skill it says the opposite of, when that is why */
  opposite?: string;
}

/**
 * The lines `edit` newly writes that the skill should not get, each with why ([] when none). `userRules`:
 * the rules drafted from the user's own words; a delete of one with nothing in its place is refused
 * (the user's word leaves the skill only when a newer rule replaces it, as a changed mind does).
 */
export function inconsistentLines(skill: string, edit: Edit, userRules: ReadonlySet<string> = new Set()): InconsistentLine[] {
  if (edit.op === 'delete') {
    const theirs = bullets(edit.anchor ?? '').filter((l) => userRules.has(l));
    return theirs.map((line) => ({ line, why: 'is your own rule: deleting it with nothing in its place drops what you said' }));
  }
  if (!edit.content) return [];
  const replaced = new Set(edit.op === 'replace' && edit.anchor ? bullets(edit.anchor) : []);
  const stays = bullets(skill).filter((l) => !replaced.has(l));
  const held = new Set(bullets(skill));
  const out: InconsistentLine[] = [];
  for (const line of bullets(edit.content)) {
    if (held.has(line)) continue;
    const fragment = fragmentIn(line);
    if (fragment) {
      out.push({ line, why: `no rule: ${fragment}` });
      continue;
    }
    const rule = stays.find((r) => negates(r, line));
    if (rule) out.push({ line, why: `says the opposite of "${rule}" and leaves it in place: ${negates(rule, line)}`, opposite: rule });
  }
  return out;
}

/** The rule of the skill that `edit` writes the opposite of while leaving it in place; null when none. */
export function contradictedRule(skill: string, edit: Edit): { rule: string; why: string } | null {
  const hit = inconsistentLines(skill, edit).find((x) => x.opposite !== undefined);
  return hit ? { rule: hit.opposite!, why: hit.why } : null;
}

/** The rules a start draft wrote from the user's own words (its edits' bullets), trimmed. */
export function draftedRules(edits: readonly Edit[] | undefined): Set<string> {
  return new Set((edits ?? []).flatMap((e) => bullets(e.content ?? '')));
}

/** Text without the given lines (an edit's bundle minus what it should not write); null when no bullet is left. */
function without(content: string, lines: Set<string>): string | null {
  const kept = content.split(/\r?\n/).filter((l) => !lines.has(l.trim()));
  return kept.some((l) => BULLET.test(l)) ? kept.join('\n') : null;
}

/**
 * The edits with every inconsistent line taken out (`kept`), and what was taken out (`contradicting`:
 * the edit as proposed, with why). An edit left with no rule is only in `contradicting`.
 */
export function dropContradictions(skill: string, edits: ProposedEdit[], userRules: ReadonlySet<string> = new Set()): { kept: ProposedEdit[]; contradicting: Array<ProposedEdit & { why: string }> } {
  const kept: ProposedEdit[] = [];
  const contradicting: Array<ProposedEdit & { why: string }> = [];
  for (const p of edits) {
    const bad = inconsistentLines(skill, p.edit, userRules);
    if (!bad.length) {
      kept.push(p);
      continue;
    }
    contradicting.push({ ...p, why: bad.map((b) => `"${b.line}" ${b.why}`).join('; ') });
    if (p.edit.op === 'delete') continue;
    const rest = without(p.edit.content, new Set(bad.map((b) => b.line)));
    if (rest !== null) kept.push({ ...p, edit: { ...p.edit, content: rest } });
  }
  return { kept, contradicting };
}
