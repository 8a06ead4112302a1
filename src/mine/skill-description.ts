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
    // so does a code identifier (`parseAmount`, `tenant_id`): the occurrence's object, not the job
    .replace(/(?:\s+(?:in|for|on|of|to|at|from|into))?\s*\b(?:[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)\b/g, '')
    // a follow-up's connective ("then move …", "and also …") is how it was said, not what it asks
    .replace(/^\s*(?:(?:and|then|also|now|next|too)\b[\s,]*)+/i, '')
    .replace(/\s+([,.;:!?])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  const clause = general.split(/(?<=[.!?;])\s/)[0].replace(/[.!?;:,]+$/, '').trim();
  if (!clause || clause.length > MAX_ASK_PHRASE) return null;
  return `asked to ${lowerFirst(clause)}`;
}

const lowerFirst = (s: string) => (/^[A-Z][a-z]/.test(s) ? s[0].toLowerCase() + s.slice(1) : s);

/** "a, b or c" */
const orList = (xs: string[]): string => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`);

/**
 * One sentence: "fixing lint errors or TypeScript type errors, writing a CHANGELOG entry, a commit
 * message or release notes" — phrases that start with the same gerund are said together, the
 * gerund once; a single group is one "a, b or c" list.
 */
function joinPhrases(xs: string[]): string {
  const groups = new Map<string, string[]>();
  for (const p of xs) {
    const g = /^(\w+ing)\s+(.+)$/.exec(p);
    const key = g ? g[1] : p;
    const list = groups.get(key);
    if (!g) groups.set(key, []);
    else if (list) list.push(g[2]);
    else groups.set(key, [g[2]]);
  }
  const said = [...groups.entries()].map(([head, rest]) => (rest.length ? `${head} ${orList(rest)}` : head));
  // (an "or" inside a group already ends its list: groups are then joined with commas alone)
  return [...groups.values()].every((r) => r.length <= 1) ? orList(said) : said.join(', ');
}

/**
 * "Use when …" naming every family's job (most frequent first), as many as fit the length limit;
 * families whose job is already named are not repeated.
 */
export function skillDescription(project: string | null, families: DescribedFamily[]): string {
  const where = project ? ` in ${path.basename(project)}` : ' in any of your projects';
  const found: string[] = [];
  for (const f of families) {
    const p = familyPhrase(f);
    if (p && !found.includes(p)) found.push(p);
  }
  // most frequent first decides which jobs fit; jobs of the same gerund are said together
  const phrases: string[] = [];
  for (const p of found) {
    const next = `Use when ${joinPhrases([...phrases, p])}${where}.`;
    if (next.length > MAX_DESCRIPTION_CHARS) break;
    phrases.push(p);
  }
  return phrases.length ? `Use when ${joinPhrases(phrases)}${where}.` : `Use for the recurring requests learned${where}.`;
}

/**
 * The description of a skill trained on these tasks: one job per family (its tasks are occurrences
 * of the same request), most frequent families first (by tasks, then occurrences). The night's
 * managed skill describes its train and validation tasks this way (src/night/item.ts).
 */
export function skillDescriptionOfTasks(project: string | null, tasks: Array<{ id: string; family?: string | null; intent: string; occurrences: number }>): string {
  const families = new Map<string, Array<(typeof tasks)[number]>>();
  for (const t of tasks) families.set(t.family ?? t.id, [...(families.get(t.family ?? t.id) ?? []), t]);
  const ordered = [...families.values()].sort(
    (a, b) => b.length - a.length || b.reduce((n, t) => n + t.occurrences, 0) - a.reduce((n, t) => n + t.occurrences, 0),
  );
  return skillDescription(project, ordered.map((f) => ({ intents: f.map((t) => t.intent) })));
}
