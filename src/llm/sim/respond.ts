/**
 * Writes the simulated target's reply: a plausible Markdown answer that really satisfies the
 * checks the target decided to comply with and really misses the others, so the real judge
 * (src/replay/checks.ts) scores it. Nothing here decides compliance; target.ts does.
 */
import type { Check } from '../../core/records.js';
import type { Rng } from './rng.js';
import { regexAnchors, sampleRegex } from './regex-sample.js';

export interface CheckDecision {
  check: Check;
  comply: boolean;
}

export interface ResponsePlan {
  intent: string;
  decisions: CheckDecision[];
  /** rubric criteria with the decision to address each */
  criteria: Array<{ text: string; comply: boolean }>;
  exact?: { answer: string; comply: boolean };
}

const FILLER = [
  'I kept the change focused on what was asked.',
  'The wording follows the existing style of the project.',
  'Nothing else in the repository needed to change for this.',
  'I double-read the result once before handing it over.',
  'Let me know if a different level of detail would help.',
  'The previous behaviour is unchanged apart from this.',
];

const REFUSAL = "I can't help with that request.";

function shortIntent(intent: string): string {
  const first = intent.split(/\r?\n/)[0].trim().replace(/[.:]+$/, '');
  return first.length > 80 ? `${first.slice(0, 77)}...` : first;
}

export function writeResponse(plan: ResponsePlan, rng: Rng): { text: string; toolsCalled: string[] } {
  const refuse = plan.decisions.some((d) => d.check.op === 'no_refusal' && !d.comply);
  if (refuse) return { text: REFUSAL, toolsCalled: [] };

  const topic = shortIntent(plan.intent);
  let head: string | null = null;
  const body: string[] = [];
  const tail: string[] = [];
  const sections = new Map<string, string[]>();
  const tools = new Set<string>(rng.chance(0.6) ? ['Read'] : []);
  let minLen = 0;
  let maxLen = Infinity;
  let avoidPrefix: string | null = null;
  const section = (name: string): string[] => {
    const key = name.replace(/^#+\s*/, '').trim();
    if (!sections.has(key)) sections.set(key, []);
    return sections.get(key) as string[];
  };

  for (const { check, comply } of plan.decisions) {
    const value = check.value === undefined ? '' : String(check.value);
    switch (check.op) {
      case 'contains':
        if (comply) body.push(asBullet(value));
        break;
      case 'not_contains':
        if (!comply) body.push(asBullet(value));
        break;
      case 'regex': {
        if (!comply) break;
        const sample = sampleRegex(value, check.flags ?? '', rng);
        if (sample === null) break; // the model could not produce it: an honest miss
        const anchors = regexAnchors(value, check.flags ?? '');
        if (anchors.start && head === null) head = sample;
        else if (anchors.end) tail.push(sample);
        else if (/^\^|(^|[^\\])\$$/.test(value) || sample.includes('\n')) body.push(sample); // anchored to a line
        else body.push(asBullet(sample));
        break;
      }
      case 'section_present':
        if (comply) section(value);
        break;
      case 'section_contains':
        if (comply) section(value).push(`- ${check.needle ?? ''}: covered here.`);
        break;
      case 'min_chars':
        if (comply) minLen = Math.max(minLen, Number(value));
        else maxLen = Math.min(maxLen, Math.max(0, Number(value) - 1));
        break;
      case 'max_chars':
        if (comply) maxLen = Math.min(maxLen, Number(value));
        else minLen = Math.max(minLen, Number(value) + 1);
        break;
      case 'json_valid':
        if (comply) body.push('```json', JSON.stringify({ summary: topic, status: 'done' }, null, 2), '```');
        break;
      case 'starts_with':
        if (comply) head = value;
        else avoidPrefix = value;
        break;
      case 'tool_called':
        if (comply) tools.add(value);
        break;
      case 'no_refusal':
        break;
    }
  }
  for (const c of plan.criteria) if (c.comply) body.push(`- ${c.text.replace(/^[-*\s]+/, '').replace(/\.?$/, '.')}`);
  if (plan.exact) tail.push(`Answer: ${plan.exact.comply ? plan.exact.answer : wrongAnswer(plan.exact.answer)}`);

  let opening = `Here is the result for: ${topic}.`;
  if (head !== null) opening = /[\s:]$/.test(head) ? `${head}${topic}` : `${head} ${topic}`;
  if (avoidPrefix && opening.toLowerCase().startsWith(avoidPrefix.toLowerCase())) opening = `Done. ${opening}`;

  const filler = [rng.pick(FILLER)];
  const assemble = (withFiller: boolean, extra: string[]): string => {
    const parts = [opening, '', ...body];
    for (const [name, lines] of sections) parts.push('', `## ${name}`, ...(lines.length ? lines : ['- Details for this part of the work.']));
    if (withFiller) parts.push('', ...filler, ...extra);
    if (tail.length) parts.push('', ...tail);
    return parts.join('\n').replace(/\n{3,}/g, '\n\n').trim();
  };

  let text = assemble(true, []);
  if (text.length < minLen) {
    const extra: string[] = [];
    let k = 0;
    while (assemble(true, extra).length < minLen && k < 10_000) extra.push(FILLER[k++ % FILLER.length]);
    text = assemble(true, extra);
  }
  if (text.length > maxLen) text = assemble(false, []);
  if (text.length > maxLen) text = text.slice(0, maxLen).trimEnd();
  return { text, toolsCalled: [...tools] };
}

/** A value as a list item: code-like text in backticks, words as they are. */
function asBullet(value: string): string {
  const codeLike = /[(){}'"=;.<>]/.test(value) && !value.includes('`') && !value.includes('\n');
  return codeLike ? `- \`${value}\`` : `- ${value}`;
}

function wrongAnswer(answer: string): string {
  const n = Number(answer);
  if (Number.isFinite(n) && answer.trim() !== '') return String(n + 1);
  return `${answer.trim()} (approximately)`.replace(/^(.)/, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()));
}
