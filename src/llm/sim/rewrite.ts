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
import { concepts, jaccard } from './semantics.js';

/** A slot of the reply one directive fills, its value, and how that value shows in a reply (null: it does not show in the text). */
interface Slot {
  slot: string;
  value: string;
  shows: string | null;
}

/** Two clauses are about one thing when their words (literals aside) mostly agree, as the target reads competing rules. */
const SAME_SUBJECT = 0.6;

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

/** The literals a text asks the reply to include, with what the text is about (its words without literals). */
function includesOf(text: string): { values: string[]; about: Set<string> } {
  const values = directivesOf(text).directives.flatMap((d) => (d.kind === 'include' ? [d.text] : []));
  return { values, about: concepts(text.replace(/`[^`]*`|"[^"]*"/g, ' ')) };
}

/**
 * Whether a reply shows `value`: placeholders (`#<number>`, `<function>`, `X.Y.Z`) match the
 * instance's own value, as they read to a model comparing a rule with what was written.
 */
export function showsIn(reply: string, value: string): boolean {
  const parts = value.split(/(<[^>]+>|\bX\.Y\.Z\b)/);
  if (parts.length === 1) return reply.includes(value);
  const pattern = parts.map((p, i) => (i % 2 ? '[\\w.-]+' : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(pattern).test(reply);
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
 * The stated clauses, for the same job, that compete with `rule`: each puts another value in a
 * slot `rule` fills (the subheading, the heading entries go under, the opening, the trailer) and
 * the failing replies (`responses`) show that value; or each asks to include another literal for
 * the same thing (two lines on the `describe` block, one with the name, one without), which the
 * new rule makes redundant. Lines inside protected blocks are not considered.
 */
export function findRivals(skill: string, rule: string, job: string | null, responses: string[]): Rival[] {
  const mine = slotsOf(rule);
  const wants = includesOf(rule);
  if (!mine.length && !wants.values.length) return [];
  const lines = skill.split(/\r?\n/);
  const jobs = sectionJobs(lines);
  const out: Rival[] = [];
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
      const why = rivalry(clause, mine, wants, responses);
      if (!why) continue;
      const rest = clauses.filter((c) => c !== clause);
      const remainder = rest.length && rest.some((c) => directivesOf(c).directives.length) ? sentence(rest.join(', ')) : null;
      out.push({ line: raw, clause, remainder, why });
      break;
    }
  }
  return out;
}

/** Why `clause` competes with a rule that fills `mine` and includes `wants`, or null. */
function rivalry(clause: string, mine: Slot[], wants: { values: string[]; about: Set<string> }, responses: string[]): string | null {
  for (const theirs of slotsOf(clause)) {
    const same = mine.find((s) => s.slot === theirs.slot);
    if (!same || same.value === theirs.value || !theirs.shows) continue;
    const shows = theirs.shows;
    if (!responses.some((r) => showsIn(r, shows))) continue;
    return `the replies write \`${shows}\` where the rule asks for \`${same.shows ?? same.value}\`; "${clause}" asks for it`;
  }
  // a literal the rule spells out in full (`Refs:` where the rule says `Refs: #<number>`): the same rule, said less well
  const full = [...mine.map((x) => x.value), ...wants.values];
  for (const m of clause.matchAll(/`([^`]+)`/g)) {
    const lit = m[1].trim();
    const longer = full.find((v) => v.trim() !== lit && lit.length >= 4 && v.trim().startsWith(lit));
    if (longer) return `"${clause}" says \`${lit}\`, which the rule spells out in full (\`${longer.trim()}\`)`;
  }
  if (wants.values.length) {
    const theirs = includesOf(clause);
    const other = theirs.values.find((v) => !wants.values.includes(v));
    if (other !== undefined && jaccard(theirs.about, wants.about) >= SAME_SUBJECT) return `"${clause}" asks for \`${other}\` for the same thing; the rule says it exactly`;
  }
  return null;
}

/** A stated line that already fills one of `rule`'s slots with a value that spells `rule`'s out in full (`Refs: #<number>` for `Refs:`): the rule adds nothing. */
export function statedMoreFully(skill: string, rule: string): string | null {
  const mine = slotsOf(rule);
  if (!mine.length) return null;
  for (const raw of skill.split(/\r?\n/)) {
    const m = BULLET.exec(raw);
    if (!m) continue;
    for (const clause of clausesOf(m[2])) {
      for (const theirs of slotsOf(clause)) {
        const same = mine.find((s) => s.slot === theirs.slot);
        if (same && same.value !== theirs.value && same.value.trim().length >= 3 && theirs.value.startsWith(same.value.trim())) return raw;
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
 * One replace edit over the bullets of a section: `lead` (rules, with their bullets) goes to the
 * top of the section, and each changed line becomes its replacement (with its bullet) or goes.
 * Changes outside the first changed line's section are left out; across a protected block, or
 * outside any section, the change stays where the line is.
 */
export function sectionRewrite(skill: string, lead: string | null, changes: Array<{ line: string; becomes: string | null }>): { anchor: string; content: string } | null {
  const lines = skill.split(/\r?\n/);
  const at = changes.map((c) => ({ ...c, i: lines.indexOf(c.line) })).filter((c) => c.i >= 0);
  if (!at.length) return null;
  const i0 = at[0].i;
  let h = i0 - 1;
  while (h >= 0 && !HEADING.test(lines[h])) h--;
  let end = h + 1;
  while (end < lines.length && !HEADING.test(lines[end])) end++;
  const mine = at.filter((c) => c.i > h && c.i < end);
  const last = Math.max(...mine.map((c) => c.i));
  let first = i0;
  if (h >= 0) {
    first = h + 1;
    while (first < i0 && !BULLET.test(lines[first])) first++;
  }
  const span = lines.slice(first, last + 1);
  if (span.some((l) => PROTECTED.test(l))) return { anchor: at[0].line, content: [lead, at[0].becomes].filter((x): x is string => x !== null).join('\n') };
  const body = span.flatMap((l, k) => {
    const c = mine.find((x) => x.i === first + k);
    return c ? (c.becomes === null ? [] : [c.becomes]) : [l];
  });
  // blank lines left at the top of the list (a removed first bullet) are not kept
  while (body.length && body[0].trim() === '' && lead !== null) body.shift();
  return { anchor: span.join('\n'), content: [lead, ...body].filter((x): x is string => x !== null).join('\n') };
}

/** A rival's line as it becomes: its remainder with the line's bullet, or null when it goes. */
export function rivalBecomes(r: Rival): string | null {
  return r.remainder === null ? null : `${/^\s*[-*+]\s+/.exec(r.line)![0]}${r.remainder}`;
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
