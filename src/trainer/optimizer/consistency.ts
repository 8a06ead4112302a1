/**
 * Each rule once, and never its opposite (issue 41): an edit that writes a rule saying the opposite
 * of one the skill keeps ("Do not group them in a `describe` block named after the function." beside
 * "Group them in a `describe` block named after the function.") is dropped before selection. A
 * model handed both follows neither reliably, and a person would never write the pair. An edit that
 * REPLACES the rule it turns around is a change of mind and stays (the gate measures it); only an
 * edit that leaves both in the skill goes. The check reads the skill and the edit's text alone, so
 * it holds for any optimizer backend. So does a line that is no rule at all (an example with
 * nothing it exemplifies, "- e.g. `Refs: #254`."; a sentence cut short): the staging guard would
 * take it out, so the gate should not measure it. Pure.
 */
import type { Edit } from '../../core/records.js';
import { fragmentIn, negates } from '../../skilldoc/wording-lint.js';
import type { ProposedEdit } from './reflect.js';

const BULLET = /^\s*[-*+]\s+\S/;

const bullets = (text: string): string[] => text.split(/\r?\n/).filter((l) => BULLET.test(l)).map((l) => l.trim());

/** The rule of the skill that `edit` writes the opposite of while leaving it in place, with why; null when none. */
export function contradictedRule(skill: string, edit: Edit): { rule: string; why: string } | null {
  if (edit.op === 'delete' || !edit.content) return null;
  const replaced = new Set(edit.op === 'replace' && edit.anchor ? bullets(edit.anchor) : []);
  const stays = bullets(skill).filter((l) => !replaced.has(l));
  const written = new Set(stays);
  for (const line of bullets(edit.content)) {
    if (written.has(line)) continue;
    for (const rule of stays) {
      const why = negates(rule, line);
      if (why) return { rule, why };
    }
  }
  return null;
}

/** A line the edit writes that is no rule, with why; null when every one is a rule. */
export function fragmentWritten(edit: Edit): { line: string; why: string } | null {
  if (edit.op === 'delete' || !edit.content) return null;
  for (const line of bullets(edit.content)) {
    const why = fragmentIn(line);
    if (why) return { line, why };
  }
  return null;
}

/** The edits that keep the skill consistent, and those that would leave a rule beside its opposite (or write no rule). */
export function dropContradictions(skill: string, edits: ProposedEdit[]): { kept: ProposedEdit[]; contradicting: Array<ProposedEdit & { why: string }> } {
  const kept: ProposedEdit[] = [];
  const contradicting: Array<ProposedEdit & { why: string }> = [];
  for (const p of edits) {
    const hit = contradictedRule(skill, p.edit);
    const fragment = hit ? null : fragmentWritten(p.edit);
    if (hit) contradicting.push({ ...p, why: `says the opposite of "${hit.rule}" and leaves it in place: ${hit.why}` });
    else if (fragment) contradicting.push({ ...p, why: `"${fragment.line}" is no rule: ${fragment.why}` });
    else kept.push(p);
  }
  return { kept, contradicting };
}
