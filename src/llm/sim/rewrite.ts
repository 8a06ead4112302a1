/**
 * How the simulated optimizer rewrites rules the skill already states (issue 41, item 4), rather
 * than adding another line beside them:
 *  - a **rival**: a stated clause that puts another value into the slot a new rule fills (the
 *    subheading, the heading entries go under, the opening, the trailer). The optimizer sees the
 *    rival's value in the failing replies (`### Added` where every kept version has `### Changed`)
 *    and finds the clause of the skill that asks for it: a literal, or a convention a model knows
 *    the value of ("the Keep a Changelog way" files entries under `### Added`). That clause leaves
 *    the line; the line's other values stay.
 *  - **moved up**: a rule rewritten because the attempts keep failing it goes to the top of its
 *    job's section, as a person puts the rule that matters first.
 * It reads what a reflect prompt carries: the skill text and the failing replies. The reading of a
 * clause is the model's language knowledge (skill-rules.ts, the same reading the sim target has);
 * it never sees a check or the world's ground truth.
 */
import { directivesOf, type Directive } from './skill-rules.js';
import { jobsNamed } from './jobs.js';

/** A slot of the reply one directive fills, its value, and how that value shows in a reply (null: it does not show in the text). */
interface Slot {
  slot: string;
  value: string;
  shows: string | null;
}

function slotOf(d: Directive): Slot | null {
  switch (d.kind) {
    case 'subheading':
      return { slot: 'subheading', value: d.heading, shows: `### ${d.heading}` };
    case 'section':
      return d.placement ? { slot: 'placement', value: d.heading, shows: `## ${d.heading}` } : null;
    case 'start':
      return { slot: 'start', value: d.text, shows: d.text.trim() || null };
    case 'end':
      return { slot: 'end', value: d.text, shows: d.text.trim() || null };
    default:
      return null;
  }
}

/** The slots a text's rules fill (the model's reading of it). */
export function slotsOf(text: string): Slot[] {
  return directivesOf(text)
    .directives.map(slotOf)
    .filter((s): s is Slot => s !== null);
}

const PROTECTED = /<!--\s*[\w:-]*:(?:start|end)\s*-->/;
const BULLET = /^(\s*[-*+]\s+)(.*)$/;
const HEADING = /^\s*#{1,6}\s+(.*)$/;

/** A line's clauses: its sentences, each split at commas outside literals ("Use `## [Unreleased]` with the brackets, the Keep a Changelog way"). */
export function clausesOf(body: string): string[] {
  const sentences = body.split(/(?<!\b(?:e\.g|i\.e)\.)(?<=[.!?])\s+(?=[A-Z`"'])|;\s+/);
  const out: string[] = [];
  for (const s of sentences) {
    let depth = false;
    let start = 0;
    for (let i = 0; i < s.length; i++) {
      if (s[i] === '`') depth = !depth;
      else if (s[i] === ',' && !depth && s[i + 1] === ' ') {
        out.push(s.slice(start, i).trim());
        start = i + 1;
      }
    }
    out.push(s.slice(start).trim());
  }
  return out.filter(Boolean);
}

/** The job each raw line of the skill is written for, by the section it sits in (null: a section for no one job). */
function sectionJobs(lines: string[]): Array<string | null> {
  let job: string | null = null;
  return lines.map((l) => {
    const h = HEADING.exec(l);
    if (h) {
      const named = jobsNamed(h[1]);
      job = named.length === 1 ? named[0] : null;
    }
    return job;
  });
}

export interface Rival {
  /** the raw line of the skill (with its bullet) */
  line: string;
  /** the clause that asks for the rival value */
  clause: string;
  /** the line without that clause, or null when nothing operative is left */
  remainder: string | null;
  why: string;
}

/**
 * A stated clause, for the same job, that puts another value in a slot `rule` fills, and whose
 * value the failing replies show (`responses`). Lines inside protected blocks are not considered.
 */
export function findRival(skill: string, rule: string, job: string | null, responses: string[]): Rival | null {
  const mine = slotsOf(rule);
  if (!mine.length || !responses.length) return null;
  const lines = skill.split(/\r?\n/);
  const jobs = sectionJobs(lines);
  let depth = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    if (PROTECTED.test(raw)) {
      depth += /:start/.test(raw) ? 1 : -1;
      continue;
    }
    const m = BULLET.exec(raw);
    if (depth > 0 || !m) continue;
    // a line for another job is not this rule's rival (its section, or the jobs it names)
    const forJobs = jobs[i] ? [jobs[i]] : jobsNamed(m[2].replace(/`[^`]*`/g, ' '));
    if (job && forJobs.length && !forJobs.includes(job)) continue;
    const clauses = clausesOf(m[2]);
    for (const clause of clauses) {
      for (const theirs of slotsOf(clause)) {
        const same = mine.find((s) => s.slot === theirs.slot);
        if (!same || same.value === theirs.value || !theirs.shows) continue;
        const shows = theirs.shows;
        if (!responses.some((r) => r.includes(shows))) continue;
        const rest = clauses.filter((c) => c !== clause);
        const remainder = rest.length && rest.some((c) => directivesOf(c).directives.length) ? sentence(rest.join(', ')) : null;
        return { line: raw, clause, remainder, why: `the replies write \`${shows}\` where the rule asks for \`${same.shows ?? same.value}\`; "${clause}" asks for it` };
      }
    }
  }
  return null;
}

function sentence(s: string): string {
  const t = s.trim().replace(/[,;:\s]+$/, '');
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/**
 * One replace edit over the bullets of `line`'s section: `lead` (a rule, with its bullet) goes to
 * the top of the section, and `line` becomes `becomes` (with its bullet) or goes. Outside a
 * section, or across a protected block, the change stays where the line is.
 */
export function sectionRewrite(skill: string, line: string, lead: string | null, becomes: string | null): { anchor: string; content: string } | null {
  const lines = skill.split(/\r?\n/);
  const i = lines.indexOf(line);
  if (i < 0) return null;
  let h = i - 1;
  while (h >= 0 && !HEADING.test(lines[h])) h--;
  let first = i;
  if (h >= 0) {
    first = h + 1;
    while (first < i && !BULLET.test(lines[first])) first++;
  }
  const between = lines.slice(first, i);
  if (between.some((l) => PROTECTED.test(l) || HEADING.test(l))) return { anchor: line, content: [lead, becomes].filter((x): x is string => x !== null).join('\n') };
  return { anchor: [...between, line].join('\n'), content: [lead, ...between, becomes].filter((x): x is string => x !== null).join('\n') };
}

/** The heading line of the section written for `job` alone ("## When writing a CHANGELOG entry"), if the skill has one outside protected blocks. */
export function sectionHeadingFor(skill: string, job: string | null): string | null {
  if (!job) return null;
  let depth = 0;
  for (const raw of skill.split(/\r?\n/)) {
    if (PROTECTED.test(raw)) {
      depth += /:start/.test(raw) ? 1 : -1;
      continue;
    }
    const h = /^\s*#{2,6}\s+(.*)$/.exec(raw);
    if (depth === 0 && h) {
      const named = jobsNamed(h[1]);
      if (named.length === 1 && named[0] === job) return raw;
    }
  }
  return null;
}
