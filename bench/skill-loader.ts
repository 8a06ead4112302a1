/**
 * The simulated agent's choice to load a skill, as Claude Code makes it: the agent sees only the
 * skills' listing (each skill's name and `description`) beside the user's ask, and loads a skill
 * when the description names the job the ask is. It reads both with the same careful reader's
 * knowledge of software jobs as the sim cluster review (src/llm/sim/cluster-review.ts `jobOf`), which is not
 * the miner's vocabulary: a description that only the miner's own words could match does not
 * count. A job the reader does not know is matched by words: every content word of a listed
 * phrase ("asked to sketch an architecture") appears in the ask. It never sees a task, its checks
 * or the skill's body.
 */
import { jobOf } from '../src/llm/sim/cluster-review.js';

export interface SkillListing {
  name: string;
  description: string;
}

const FILLER = new Set('a an the to of for in on at by with and or use when asked any your this that these it its'.split(' '));
const words = (s: string): string[] => s.toLowerCase().match(/[a-z0-9]+/g)?.filter((w) => w.length > 1 && !FILLER.has(w)) ?? [];

/** The jobs a description lists: "Use when A, B or C in ledgerline." → [A, B, C], each read for its job. */
export function listedPhrases(description: string): string[] {
  const body = description
    .replace(/^\s*use (?:when|for)\s*(?:asked to:?)?\s*/i, '')
    .replace(/\s+in (?:any of your projects|[\w.@-]+)\.?\s*$/i, '')
    .replace(/[.…]+\s*$/, '');
  return body
    .split(/\s*[,;]\s*|\s+or\s+/)
    .map((p) => p.replace(/[()]/g, ' ').trim())
    .filter(Boolean);
}

/** Whether the agent loads this skill for this ask. */
export function simLoadsSkill(skill: SkillListing, ask: string): boolean {
  const phrases = listedPhrases(skill.description);
  const job = jobOf(ask);
  if (job !== null) return phrases.some((p) => jobOf(p) === job);
  // a job the reader has no name for: the ask must say every word of one listed phrase
  const asked = new Set(words(ask));
  return phrases.some((p) => {
    const ws = words(p);
    return ws.length >= 2 && ws.every((w) => asked.has(w));
  });
}
