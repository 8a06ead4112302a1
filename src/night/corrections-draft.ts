/**
 * The notepad as a floor: a candidate skill drafted from the user's own corrections, before any
 * optimizer call. Each mined job (family) gets a section named the way a new ask of that job
 * would name it ("## When writing a commit message"), holding the corrections the user typed in
 * that job's sessions, verbatim. A correction said of a commit message ("keep it under 300
 * characters") then stays a rule for commit messages, instead of applying to every reply as it
 * does in a flat note-taking list.
 *
 * The night weighs this draft against the starting skill on validation (the gate decides, as for
 * any candidate) and, when it wins, trains on top of it: learning resolves collisions, scopes and
 * instance values from there. A trailing section for every job keeps the optimizer's later
 * additions (appended at the end) out of the last job's section.
 */
import type { Edit, Task } from '../core/records.js';
import { familyPhrase } from '../mine/skill-description.js';
import { applyEdits } from '../trainer/edits.js';
import type { EditScope } from '../trainer/skilldoc.js';

/** A job section stops after this many corrections (the rest repeat them; length dilutes rules). */
export const MAX_CORRECTIONS_PER_JOB = 12;
/** Where the optimizer's own rules go: a heading that names no job, so a rule there keeps its own scope. */
export const GENERAL_SECTION = '## Rules for every job';

export interface DraftJob {
  /** "writing a commit message" */
  phrase: string;
  corrections: string[];
}

/**
 * A correction as a rule: the conversational interjection it opened with goes ("no, new entries
 * go under …" reads as a prohibition once it stands alone in a skill); the rest stays verbatim.
 */
export function asRule(correction: string): string {
  return correction
    .trim()
    .replace(/^(?:(?:no|nope|nah|not quite|hmm+|ugh|actually|wait|sorry|oops)\b\s*[,.!:;-]+\s*)+/i, '')
    .replace(/\s+/g, ' ');
}

const normalized = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ').replace(/[.!\s]+$/, '').trim();

/**
 * The jobs of these tasks with their corrections. A correction that several families carry goes
 * to the one whose tasks carry it most often (a correction is said of one job); families are
 * ordered by size, and a family with no correction has no section.
 */
export function draftJobs(tasks: Task[]): DraftJob[] {
  const families = new Map<string, Task[]>();
  for (const t of tasks) families.set(t.family ?? t.id, [...(families.get(t.family ?? t.id) ?? []), t]);
  const ordered = [...families.entries()].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
  // how often each family's tasks carry each correction
  const counts = new Map<string, Map<string, number>>();
  const said = new Map<string, string>();
  for (const [key, list] of ordered) {
    for (const t of list) {
      for (const c of t.corrections) {
        const n = normalized(asRule(c));
        if (!n) continue;
        if (!said.has(n)) said.set(n, asRule(c));
        const per = counts.get(n) ?? new Map<string, number>();
        per.set(key, (per.get(key) ?? 0) + 1);
        counts.set(n, per);
      }
    }
  }
  const owner = new Map<string, string>();
  for (const [n, per] of counts) {
    // the first family (by size) among those that carry it most
    const best = Math.max(...per.values());
    owner.set(n, ordered.find(([key]) => per.get(key) === best)![0]);
  }
  const jobs: DraftJob[] = [];
  const phrases = new Map<string, DraftJob>();
  for (const [key, list] of ordered) {
    const mine = [...counts.keys()].filter((n) => owner.get(n) === key);
    if (!mine.length) continue;
    // most often carried first: the corrections that recur are the preferences that hold
    mine.sort((a, b) => (counts.get(b)!.get(key) ?? 0) - (counts.get(a)!.get(key) ?? 0));
    const phrase = familyPhrase({ intents: list.map((t) => t.intent) });
    if (!phrase) continue;
    const twin = phrases.get(phrase);
    const corrections = mine.map((n) => said.get(n)!);
    if (twin) {
      twin.corrections.push(...corrections.filter((c) => !twin.corrections.includes(c)));
      continue;
    }
    const job = { phrase, corrections };
    phrases.set(phrase, job);
    jobs.push(job);
  }
  for (const j of jobs) j.corrections = j.corrections.slice(0, MAX_CORRECTIONS_PER_JOB);
  return jobs;
}

/** The draft's text: one section per job, then the section for every job. */
export function draftText(jobs: DraftJob[]): string {
  const sections = jobs.map((j) => `## When ${j.phrase}\n\n${j.corrections.map((c) => `- ${c}`).join('\n')}`);
  return `${sections.join('\n\n')}\n\n${GENERAL_SECTION}`;
}

const sectionHeading = (j: DraftJob): string => `## When ${j.phrase}`;
const hasLine = (doc: string, line: string): boolean => doc.split(/\r?\n/).some((l) => l.trim() === line);

/**
 * The edits that add the draft to `start`: on a first night one edit (every section, then the
 * section for every job). When an earlier night's draft is already in the document, only the
 * corrections it does not hold yet: under their job's existing section, and sections for new
 * jobs just before the section for every job (so the optimizer's rules stay below them all).
 */
export function draftEdits(start: string, jobs: DraftJob[], evidence: string[]): Edit[] {
  const rationale = 'your own corrections, one section per job they were said of';
  const known = new Set(start.split(/\r?\n/).map((l) => normalized(l.replace(/^\s*[-*+]\s+/, ''))));
  const fresh = jobs.map((j) => ({ ...j, corrections: j.corrections.filter((c) => !known.has(normalized(c))) })).filter((j) => j.corrections.length);
  if (!fresh.length) return [];
  const bullets = (j: DraftJob) => j.corrections.map((c) => `- ${c}`).join('\n');
  const edits: Edit[] = [];
  for (const j of fresh.filter((x) => hasLine(start, sectionHeading(x)))) edits.push({ op: 'add', anchor: sectionHeading(j), content: bullets(j), rationale, evidence });
  const added = fresh.filter((x) => !hasLine(start, sectionHeading(x)));
  if (added.length) {
    const text = draftText(added);
    edits.push(hasLine(start, GENERAL_SECTION) ? { op: 'replace', anchor: GENERAL_SECTION, content: text, rationale, evidence } : { op: 'add', content: text, rationale, evidence });
  }
  return edits;
}

/**
 * The start document with the corrections draft added (in the part of the document training may
 * edit), or null when the tasks carry no correction the document does not already hold.
 */
export function correctionsDraft(start: string, tasks: Task[], scope: EditScope): { content: string; jobs: DraftJob[]; edits: Edit[] } | null {
  const jobs = draftJobs(tasks);
  if (!jobs.length) return null;
  // the review lists the draft as edits, and a partial apply can keep or drop them like any other
  const evidence = tasks.filter((t) => t.corrections.length).map((t) => t.id);
  const edits = draftEdits(start, jobs, evidence);
  if (!edits.length) return null;
  const { content, results } = applyEdits(start, edits, { scope });
  if (results.some((r) => r.status !== 'applied')) return null;
  return { content, jobs, edits };
}
