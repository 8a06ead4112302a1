/**
 * The simulated judge (`judge_rubric`: grade by how many rubric criteria the response covers by
 * meaning) and miner (`mine_task`: a self-contained intent and checks from a cluster of prompts
 * and the user's corrections).
 */
import type { JudgeRubricPayload, MineTaskPayload } from '../../core/protocol.js';
import type { Check } from '../../core/records.js';
import { DEFAULT_COMMAND_TOOL } from '../../core/tool-kinds.js';
import { concepts, isNegated, overlap } from './semantics.js';
import { rubricCriteria } from './target.js';
import { evaluateCheck } from '../../core/checks.js';

const EMOJI = /\p{Extended_Pictographic}/u;

/**
 * A criterion that quotes the user ("The user said: "no emojis…"") is judged the way a model
 * judge reads it: as the concrete thing the user asked for, checked on the response. null when
 * the words say nothing checkable (then coverage by meaning decides).
 */
export function judgeQuotedCorrection(criterion: string, response: string): boolean | null {
  const quoted = /^The user said: "(.*)"\.?$/.exec(criterion.trim())?.[1];
  if (!quoted) return null;
  if (/\bemojis?\b/i.test(quoted) && isNegated(quoted)) return !EMOJI.test(response);
  const check = checkFromCorrection(quoted);
  if (!check) return null;
  return evaluateCheck({ id: 'criterion', weight: 1, sealed: false, ...check } as Check, response, []).passed;
}

export function judgeRubric(payload: JudgeRubricPayload): { score: number; feedback: string } {
  const criteria = rubricCriteria(payload.rubric).length && /^\s*-\s+The user said:/m.test(payload.rubric)
    ? payload.rubric.split(/\r?\n/).map((l) => l.replace(/^\s*-\s*/, '').trim()).filter(Boolean)
    : rubricCriteria(payload.rubric);
  if (criteria.length === 0) return { score: payload.response.trim() ? 1 : 0, feedback: '' };
  const said = concepts(payload.response);
  const context = concepts(payload.intent);
  const missing: string[] = [];
  let met = 0;
  for (const c of criteria) {
    const quoted = judgeQuotedCorrection(c, payload.response);
    if (quoted !== null) {
      if (quoted) met++;
      else missing.push(c.replace(/\.$/, ''));
      continue;
    }
    const all = concepts(c);
    const own = new Set([...all].filter((x) => !context.has(x)));
    const need = own.size > 0 ? own : all;
    const coverage = need.size ? overlap(need, said) / need.size : 1;
    const ok = isNegated(c) ? coverage < 0.5 : coverage >= 0.6;
    if (ok) met++;
    else missing.push(c.replace(/\.$/, ''));
  }
  const score = Math.round((met / criteria.length) * 1000) / 1000;
  return { score, feedback: missing.length ? `Missing: ${missing.join('; ')}` : '' };
}

type MinedCheck = Partial<Pick<Check, 'id' | 'weight' | 'sealed'>> & Omit<Check, 'id' | 'weight' | 'sealed'>;

/** The prompt most similar to the others stands for the cluster. */
function centralPrompt(prompts: string[]): string {
  let best = prompts[0] ?? '';
  let bestScore = -1;
  for (const p of prompts) {
    const c = concepts(p);
    const score = prompts.reduce((s, q) => s + (q === p ? 0 : overlap(c, concepts(q))), 0);
    if (score > bestScore) [best, bestScore] = [p, score];
  }
  return best.trim();
}

/** A correction → a check, when it says something checkable. */
export function checkFromCorrection(correction: string): MinedCheck | null {
  // "no, put it under…" rejects the agent's attempt; it does not negate the instruction
  const text = correction.trim().replace(/^(?:no|nope|wrong|not quite)\b[,.!:]?\s*/i, '');
  const quoted = /[`"“']([^`"”']{2,80})[`"”']/.exec(text)?.[1];
  const description = text.length > 200 ? `${text.slice(0, 197)}...` : text;
  const negated = isNegated(text);
  let m: RegExpExecArray | null;
  if ((m = /\b(?:start|begin)\s+(?:[\w ]{0,40}?\s+)?with\s+[`"“']([^`"”']+)[`"”']/i.exec(text))) return { op: 'starts_with', value: m[1], description };
  if ((m = /\b(?:an?|the)\s+[`"“']?([\w][\w\s-]{1,40}?)[`"”']?\s+(?:section|heading)\b/i.exec(text)) && !negated) return { op: 'section_present', value: m[1].trim(), description };
  const limit = /\b(\d{2,6})\s*(?:characters|chars)\b/i.exec(text);
  if (/\b(too long|shorter|concise|brief|terse|under \d+)\b/i.test(text)) return { op: 'max_chars', value: limit ? Number(limit[1]) : 1500, description };
  if (/\bjson\b/i.test(text) && !negated) return { op: 'json_valid', description };
  if (/\brun (?:the )?(?:tests?|linter|lint|build)\b/i.test(text)) return { op: 'tool_called', value: DEFAULT_COMMAND_TOOL, description };
  if (quoted) return { op: negated ? 'not_contains' : 'contains', value: quoted, description };
  return null;
}

export function mineTask(payload: MineTaskPayload): { intent: string; context: string; checks: MinedCheck[] } {
  const intent = centralPrompt(payload.prompts).replace(/\s+/g, ' ');
  const checks: MinedCheck[] = [{ id: 'attempt', op: 'no_refusal', description: 'The agent does the task instead of refusing' }];
  payload.corrections.forEach((c, i) => {
    const check = checkFromCorrection(c);
    if (check) checks.push({ id: `correction-${i + 1}`, ...check });
  });
  const context = payload.project ? `Project: ${payload.project}` : '';
  return { intent, context, checks };
}
