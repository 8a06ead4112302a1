/**
 * How the simulated target decides whether it will satisfy a requirement: a low base rate, raised
 * to a high rate when some line of the skill addresses the requirement by meaning (concept
 * overlap, same polarity), lowered when a line contradicts it (opposite polarity), and slightly
 * lowered for long, cluttered skills.
 */
import type { Check, Task } from '../../core/records.js';
import { concepts, isNegated, overlap } from './semantics.js';

export interface Requirement {
  id: string;
  /** what the requirement is about, minus what the task itself already says */
  concepts: Set<string>;
  /** a prohibition (not_contains): guidance must be negated to support it */
  negative: boolean;
  /** probability of complying with no guidance at all */
  base: number;
}

export interface GuidanceLine {
  text: string;
  concepts: Set<string>;
  negated: boolean;
}

const BASE_RATE: Record<Check['op'], number> = {
  contains: 0.15,
  not_contains: 0.5,
  regex: 0.15,
  section_present: 0.15,
  section_contains: 0.12,
  min_chars: 0.6,
  max_chars: 0.5,
  json_valid: 0.2,
  starts_with: 0.15,
  no_refusal: 0.97,
  tool_called: 0.15,
};

const HIGH_RATE = 0.96;
const CONTRADICTED_RATE = 0.03;

/** Literal words of a regex (letters outside escapes/classes), e.g. `^### (Added|Fixed)` → Added Fixed */
function regexWords(pattern: string): string {
  return pattern
    .replace(/\\[a-zA-Z]/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/[^A-Za-z]+/g, ' ');
}

function checkText(check: Check): string {
  const value = check.value === undefined ? '' : String(check.value);
  const parts = [check.description ?? ''];
  switch (check.op) {
    case 'regex':
      // alternatives in a pattern are options, not requirements: the description says what matters
      if (!check.description) parts.push(regexWords(value));
      break;
    case 'section_present':
      parts.push(value, 'heading');
      break;
    case 'section_contains':
      parts.push(value, check.needle ?? '', 'heading');
      break;
    case 'min_chars':
      parts.push('long');
      break;
    case 'max_chars':
      parts.push('short');
      break;
    case 'json_valid':
      parts.push('json');
      break;
    case 'tool_called':
      parts.push(value, 'run');
      break;
    case 'no_refusal':
      break;
    default:
      parts.push(value);
  }
  return parts.join(' ');
}

export function requirementOfCheck(check: Check, task: Pick<Task, 'intent'>): Requirement {
  return makeRequirement(check.id, checkText(check), check.op === 'not_contains', BASE_RATE[check.op], task.intent);
}

export function requirementOfText(id: string, text: string, intent: string, base = 0.2): Requirement {
  return makeRequirement(id, text, isNegated(text), base, intent);
}

function makeRequirement(id: string, text: string, negative: boolean, base: number, intent: string): Requirement {
  const all = concepts(text);
  const context = concepts(intent);
  const distinctive = new Set([...all].filter((c) => !context.has(c)));
  return { id, concepts: distinctive.size > 0 ? distinctive : all, negative, base };
}

// Replays score one skill on many tasks: parse each skill once (small LRU keyed by content).
const PARSED = new Map<string, GuidanceLine[]>();
const PARSED_MAX = 64;

/** Lines and sentences of the skill, each with its concepts and polarity. */
export function guidanceLines(skill: string): GuidanceLine[] {
  const hit = PARSED.get(skill);
  if (hit) return hit;
  const lines = parseGuidance(skill);
  if (PARSED.size >= PARSED_MAX) PARSED.delete(PARSED.keys().next().value as string);
  PARSED.set(skill, lines);
  return lines;
}

function parseGuidance(skill: string): GuidanceLine[] {
  const out: GuidanceLine[] = [];
  for (const raw of skill.split(/\r?\n/)) {
    const line = raw.replace(/^\s*(?:[-*+]|\d+[.)]|#{1,6})\s*/, '').trim();
    if (!line || /^(---|```)/.test(line)) continue;
    for (const sentence of line.split(/(?<=[.!?])\s+(?=[A-Z])|;\s+/)) {
      const c = concepts(sentence);
      if (c.size > 0) out.push({ text: sentence, concepts: c, negated: isNegated(sentence) });
    }
  }
  return out;
}

/** How strongly one line addresses a requirement: 0 (not at all) … 1 (fully). */
export function addressStrength(req: Requirement, line: GuidanceLine): number {
  const need = req.concepts.size;
  if (need === 0) return 0;
  const shared = overlap(req.concepts, line.concepts);
  if (shared < Math.min(2, need)) return 0;
  const coverage = shared / need;
  // full effect from 75% coverage down to none at a third
  return Math.max(0, Math.min(1, (coverage - 0.34) / (0.75 - 0.34)));
}

export interface Compliance {
  p: number;
  support: number;
  contradiction: number;
  /** the line that supports the requirement best, if any */
  bestLine?: string;
}

/** Skills beyond ~250 words cost a little compliance, up to 15%. */
export function clutterFactor(skill: string): number {
  const words = skill.split(/\s+/).filter(Boolean).length;
  return 1 - Math.min(0.15, Math.max(0, words - 250) * 0.0004);
}

export function compliance(req: Requirement, lines: GuidanceLine[], clutter: number): Compliance {
  let support = 0;
  let contradiction = 0;
  let bestLine: string | undefined;
  for (const line of lines) {
    const s = addressStrength(req, line);
    if (s === 0) continue;
    if (line.negated === req.negative) {
      if (s > support) {
        support = s;
        bestLine = line.text;
      }
    } else {
      contradiction = Math.max(contradiction, s);
    }
  }
  let p = req.base + (HIGH_RATE - req.base) * support;
  // a contradicting line pulls toward violation; against strong support the model is torn
  if (contradiction > 0) p = p - (p - CONTRADICTED_RATE) * contradiction * (support > 0 ? 0.6 : 1);
  return { p: Math.max(0, Math.min(1, p * clutter)), support, contradiction, bestLine };
}
