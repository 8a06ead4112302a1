/**
 * The `description` of a learned skill: the text an agent reads to decide whether to load it, so it
 * must name the jobs the skill covers in general words ("Use when writing a CHANGELOG entry, a
 * commit message or release notes in ledgerline"), never one occurrence's details cut mid-word.
 * Each job is named by the vocabulary (vocabulary.ts `jobPhrase`), by the job name a cluster
 * review gave it, or else by its most typical ask with the specifics removed.
 */
import path from 'node:path';
import { keyOf } from './normalize.js';
import { jobPhrase } from './vocabulary.js';

/** The Agent Skills convention caps `description` at 1024 characters. */
export const MAX_DESCRIPTION_CHARS = 1024;
/** A fallback phrase (an ask, generalised) longer than this is left out rather than cut. */
const MAX_ASK_PHRASE = 140;

export interface DescribedFamily {
  /** the family's asks or task intents, most typical first */
  intents: string[];
  /** a one-line job name from a cluster review, if any */
  jobName?: string | null;
}

/** One phrase per family: its job, in general words. */
export function familyPhrase(f: DescribedFamily): string | null {
  if (f.jobName) return lowerFirst(f.jobName.replace(/[.\s]+$/, ''));
  for (const intent of f.intents) {
    const p = jobPhrase(keyOf(intent));
    if (p) return p;
  }
  const first = f.intents[0];
  if (!first) return null;
  // the ask without this occurrence's specifics (paths, PR numbers, versions), its first clause whole
  const general = first
    .replace(/`[^`]*`/g, '')
    // a path or a version goes with the preposition that introduced it ("in src/a.ts", "for v1.2.0")
    .replace(/(?:\s+(?:in|for|on|of|to|at|from|into))?\s*(?:(?:[\w.@~-]*\/)+[\w.@-]+|\(?#\d+\)?|\bv?\d+(?:\.\d+)+\b)/g, '')
    .replace(/\s+([,.;:!?])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  const clause = general.split(/(?<=[.!?;])\s/)[0].replace(/[.!?;:,]+$/, '').trim();
  if (!clause || clause.length > MAX_ASK_PHRASE) return null;
  return `asked to ${lowerFirst(clause)}`;
}

const lowerFirst = (s: string) => (/^[A-Z][a-z]/.test(s) ? s[0].toLowerCase() + s.slice(1) : s);

function joinPhrases(xs: string[]): string {
  if (xs.length <= 1) return xs.join('');
  return `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;
}

/**
 * "Use when …" naming every family's job (most frequent first), as many as fit the length limit;
 * families whose job is already named are not repeated.
 */
export function skillDescription(project: string | null, families: DescribedFamily[]): string {
  const where = project ? ` in ${path.basename(project)}` : ' in any of your projects';
  const phrases: string[] = [];
  for (const f of families) {
    const p = familyPhrase(f);
    if (!p || phrases.includes(p)) continue;
    const next = `Use when ${joinPhrases([...phrases, p])}${where}.`;
    if (next.length > MAX_DESCRIPTION_CHARS) break;
    phrases.push(p);
  }
  if (!phrases.length) return `Use for the recurring requests learned${where}.`;
  return `Use when ${joinPhrases(phrases)}${where}.`;
}
