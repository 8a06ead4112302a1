/**
 * The simulated optimizer's sense of whether a skill line already addresses a requirement, by
 * meaning (concept overlap, same polarity) — used by reflect.ts to avoid re-proposing a rule and
 * to find the line a new rule contradicts. The simulated target does not use it: it follows the
 * skill's literal rules (skill-rules.ts), never a check.
 */
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
