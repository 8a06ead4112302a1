/**
 * The start draft (the notepad as a floor): a candidate skill drafted from the product's own task
 * data, before any optimizer call. Each job (task family) gets a section named the way a new ask
 * of that job would name it ("## When writing a commit message"), holding what the task data says
 * the user wants of that job: the descriptions of its visible checks and the corrections the user
 * typed in its sessions (from `task.corrections`, or quoted in its rubric as rendered for judges),
 * verbatim. A correction said of a commit message ("keep it under 300 characters") then stays a
 * rule for commit messages, instead of applying to every reply as it does in a flat list.
 * Sealed checks, hidden verifiers and test tasks never reach it (the caller passes train + val).
 * A correction whose quoted value the user's kept versions have since spelled another way, to the
 * newest of them, is stale and stays out (`staleByKept`): the newer correction may have been said
 * in held-out sessions only, and a draft holding the older value teaches what the user took back.
 * A PR/issue number or a version that one of the job's asks states is that instance's value, not
 * the convention: it is written as a placeholder (`#<number>`, `X.Y.Z`); so is a function, package or
 * author the ask names (`<function>`, `<package>`, `Name <email>`).
 *
 * The trainer weighs this draft against the starting skill on validation (the paired gate
 * decides, as for any candidate) and, when it wins, trains on top of it (`start-gate.ts`):
 * learning resolves collisions, scopes and instance values from there. A trailing section for
 * every job keeps the optimizer's later additions (appended at the end) out of the last job's section.
 */
import type { Edit, KeptOutcome, Task } from '../../core/records.js';
import { familyPhrase } from '../../mine/skill-description.js';
import { applyEdits } from '../../skilldoc/edits.js';
import { askValues, withAskPlaceholders } from '../../skilldoc/instance-values.js';
import type { EditScope } from '../../skilldoc/segments.js';
import { contradicts, sameRule } from '../../skilldoc/wording-lint.js';
import { staleByKept } from '../../skilldoc/stale-value.js';
import { cleanCorrection, composeRules, isOneOff, oneOffs, saidCorrections } from './start-draft-compose.js';

/** The proposal's edit ids of the draft: corrections-draft-1, -2, … */
export const DRAFT_EDIT_ID = 'corrections-draft';

/** A job section stops after this many corrections (the rest repeat them; length dilutes rules). */
export const MAX_CORRECTIONS_PER_JOB = 12;
/** … and after this many visible check descriptions. */
export const MAX_CHECKS_PER_JOB = 8;
/** Where the optimizer's own rules go: a heading that names no job, so a rule there keeps its own scope. */
export const GENERAL_SECTION = '## Rules for every job';

export interface DraftJob {
  /** "writing a commit message" */
  phrase: string;
  /** what the job's visible checks say they enforce (their descriptions), placeholders for instance values */
  checks?: string[];
  corrections: string[];
}

/**
 * The corrections a task carries: its own list, or (for a task that only has a rubric) the quotes
 * the rubric renders as what the user said (`The user said: "…"`).
 */
export function taskCorrections(t: Task): string[] {
  if (t.corrections.length) return t.corrections;
  const ref = t.judge.reference;
  if (ref.kind !== 'rubric') return [];
  return [...ref.rubric.matchAll(/\bsaid:?\s*"([^"\n]+)"/gi)].map((m) => m[1]);
}

/** Below this many words a common opening says too little to name a job. */
const MIN_COMMON_WORDS = 3;

/**
 * What every ask of a job says alike, word by word from the start ("Fix the bug reported in
 * issue #12: the importer is broken" and "… issue #40: the watcher is broken" → "Fix the bug
 * reported in issue"): the job without one occurrence's specifics, so a heading drawn from it
 * names the job for every new ask, not the first one's details. Null with fewer than two asks.
 */
export function commonAsk(intents: string[]): string | null {
  if (intents.length < 2) return null;
  const words = intents.map((i) => i.split(/\s+/).filter(Boolean));
  const out: string[] = [];
  for (let k = 0; k < words[0].length; k++) {
    const w = words[0][k];
    if (!words.every((ws) => ws[k] === w)) break;
    out.push(w);
  }
  // a trailing instance value or dangling connective is not part of the job's name
  while (out.length && /^(?:#\d+\S*|the|a|an|for|of|in|on|to|and|with|v?\d+(?:\.\d+)*\S*)$/i.test(out[out.length - 1])) out.pop();
  return out.length >= MIN_COMMON_WORDS ? out.join(' ') : null;
}

/**
 * The descriptions of a family's visible checks, most often carried first. Sealed checks never; nor
 * checks grounded in outcomes (what the user kept in git, the command that worked): the draft is
 * what the user SAID, and what they never said is the loop's to learn from rollouts (issue 41).
 */
function visibleCheckRules(list: Task[]): string[] {
  const values = askValues(list);
  const counts = new Map<string, { text: string; n: number }>();
  for (const t of list) {
    for (const c of t.judge.checks) {
      if (c.sealed || c.grounded || !c.description?.trim()) continue;
      const text = withAskPlaceholders(c.description.trim().replace(/\s+/g, ' ').replace(/[.\s]*$/, '.'), values);
      const n = normalized(text);
      counts.set(n, { text, n: (counts.get(n)?.n ?? 0) + 1 });
    }
  }
  return [...counts.values()].sort((a, b) => b.n - a.n).map((c) => c.text).slice(0, MAX_CHECKS_PER_JOB);
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
export function draftJobs(tasks: Task[], opts: { withChecks?: boolean } = {}): DraftJob[] {
  const families = new Map<string, Task[]>();
  for (const t of tasks) families.set(t.family ?? t.id, [...(families.get(t.family ?? t.id) ?? []), t]);
  const ordered = [...families.entries()].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
  // what the user said, with where and when; a one-off ask stays out of every job
  const said = new Map(tasks.map((t) => [t, saidCorrections(t, taskCorrections(t))]));
  const oneOff = oneOffs([...said.values()].flat());
  // how often each family's tasks carry each rule (its corrections, cleaned), and when it was last said
  const counts = new Map<string, Map<string, number>>();
  const ruleOf = new Map<string, string>();
  const lastAt = new Map<string, number | null>();
  // when each rule was last said, where the miner knows it (not a task's last sighting)
  const saidAt = new Map<string, number>();
  for (const [key, list] of ordered) {
    const values = askValues(list);
    for (const t of list) {
      for (const c of said.get(t)!) {
        if (isOneOff(oneOff, c.text)) continue;
        const cleaned = cleanCorrection(c.text);
        if (!cleaned) continue;
        const rule = withAskPlaceholders(cleaned, values);
        const n = normalized(rule);
        if (!n) continue;
        if (!ruleOf.has(n)) ruleOf.set(n, rule);
        const was = lastAt.get(n);
        lastAt.set(n, was === undefined ? c.at : c.at === null ? was : Math.max(was ?? 0, c.at));
        if (c.dated && c.at !== null) saidAt.set(n, Math.max(saidAt.get(n) ?? 0, c.at));
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
    // a value the user said, then stopped keeping in what they commit, stays out (issue 41)
    const kept = keptOf(list);
    const mine = [...counts.keys()].filter((n) => owner.get(n) === key && !staleByKept(ruleOf.get(n)!, kept, saidAt.get(n) ?? null));
    // each rule once; a newer correction replaces the older one it contradicts
    const composed = composeRules(mine.map((n) => ({ rule: ruleOf.get(n)!, n: counts.get(n)!.get(key) ?? 0, at: lastAt.get(n) ?? null })));
    const corrections = composed.map((r) => r.text);
    const checks = (opts.withChecks === false ? [] : visibleCheckRules(list)).filter((c) => !corrections.some((r) => normalized(r) === normalized(c) || sameRule(r, c)));
    if (!corrections.length && !checks.length) continue;
    const common = commonAsk(list.map((t) => t.intent));
    const phrase = familyPhrase({ intents: [...(common ? [common] : []), ...list.map((t) => t.intent)] });
    if (!phrase) continue;
    const twin = phrases.get(phrase);
    if (twin) {
      twin.corrections = composeRules([...twin.corrections, ...corrections].map((rule) => ({ rule, n: 1, at: null }))).map((r) => r.text);
      if (checks.length) twin.checks = [...(twin.checks ?? []), ...checks.filter((c) => !twin.checks?.includes(c))];
      continue;
    }
    const job: DraftJob = checks.length ? { phrase, checks, corrections } : { phrase, corrections };
    phrases.set(phrase, job);
    jobs.push(job);
  }
  for (const j of jobs) {
    j.corrections = j.corrections.slice(0, MAX_CORRECTIONS_PER_JOB);
    if (j.checks) j.checks = j.checks.slice(0, MAX_CHECKS_PER_JOB);
  }
  return jobs;
}

/** What the user kept of a family's occurrences, each kept version once (tasks of one family may share one). */
function keptOf(list: Task[]): KeptOutcome[] {
  const out = new Map<string, KeptOutcome>();
  for (const t of list) for (const k of t.kept ?? []) out.set(`${k.commit}:${k.kind}:${k.file ?? ''}`, k);
  return [...out.values()];
}

/** A job's rules in the order they are written: its checks' descriptions, then the user's corrections. */
export const jobRules = (j: DraftJob): string[] => [...(j.checks ?? []), ...j.corrections];

/** The draft's text: one section per job, then the section for every job. */
export function draftText(jobs: DraftJob[]): string {
  const sections = jobs.map((j) => `## When ${j.phrase}\n\n${jobRules(j).map((c) => `- ${c}`).join('\n')}`);
  return `${sections.join('\n\n')}\n\n${GENERAL_SECTION}`;
}

const sectionHeading = (j: DraftJob): string => `## When ${j.phrase}`;

/** The rule texts (bullets, without the marker) under `heading` in `doc`, to the next heading of its level or higher. */
function sectionBullets(doc: string, heading: string): string[] {
  const out: string[] = [];
  let inside = false;
  for (const line of doc.split(/\r?\n/)) {
    if (/^#{1,2}\s/.test(line)) inside = line.trim() === heading;
    else if (inside && /^\s*[-*+]\s+\S/.test(line)) out.push(line.replace(/^\s*[-*+]\s+/, '').trim());
  }
  return out;
}
const hasLine = (doc: string, line: string): boolean => doc.split(/\r?\n/).some((l) => l.trim() === line);

/**
 * The edits that add the draft to `start`: on a first night one edit (every section, then the
 * section for every job). When an earlier night's draft is already in the document, only the
 * corrections it does not hold yet: under their job's existing section, and sections for new
 * jobs just before the section for every job (so the optimizer's rules stay below them all).
 */
export function draftEdits(start: string, jobs: DraftJob[], evidence: string[]): Edit[] {
  const rationale = "your own corrections and the tasks' visible checks, one section per job they were said of";
  const known = new Set(start.split(/\r?\n/).map((l) => normalized(l.replace(/^\s*[-*+]\s+/, ''))));
  const unknown = (xs: string[] | undefined) => (xs ?? []).filter((c) => !known.has(normalized(c)));
  // a rule an earlier night's draft holds that a newer correction contradicts is replaced, not kept beside it
  const edits: Edit[] = [];
  const changedMinds = jobs.map((j) => {
    const held = sectionBullets(start, sectionHeading(j));
    const replacing = new Set<string>();
    for (const c of unknown(j.corrections)) {
      const old = held.find((l) => contradicts(l, c) && !edits.some((e) => e.anchor === l));
      if (!old) continue;
      edits.push({ op: 'replace', anchor: old, content: c, rationale: `you changed your mind: "${c}" replaces "${old}"`, evidence });
      replacing.add(c);
    }
    return replacing;
  });
  const fresh = jobs
    .map((j, i) => ({ ...j, checks: unknown(j.checks), corrections: unknown(j.corrections).filter((c) => !changedMinds[i].has(c)) }))
    .filter((j) => jobRules(j).length);
  if (!fresh.length) return edits;
  const bullets = (j: DraftJob) => jobRules(j).map((c) => `- ${c}`).join('\n');
  for (const j of fresh.filter((x) => hasLine(start, sectionHeading(x)))) edits.push({ op: 'add', anchor: sectionHeading(j), content: bullets(j), rationale, evidence });
  const added = fresh.filter((x) => !hasLine(start, sectionHeading(x)));
  if (added.length) {
    const text = draftText(added);
    edits.push(hasLine(start, GENERAL_SECTION) ? { op: 'replace', anchor: GENERAL_SECTION, content: text, rationale, evidence } : { op: 'add', content: text, rationale, evidence });
  }
  return edits;
}

/**
 * The start document with the draft added (in the part of the document training may edit), or
 * null when the tasks carry no correction or check description the document does not already hold.
 * `withChecks: false` drafts the corrections only.
 */
export function correctionsDraft(start: string, tasks: Task[], scope: EditScope, opts: { withChecks?: boolean } = {}): { content: string; jobs: DraftJob[]; edits: Edit[] } | null {
  const jobs = draftJobs(tasks, opts);
  if (!jobs.length) return null;
  // the review lists the draft as edits, and a partial apply can keep or drop them like any other
  const evidence = tasks.filter((t) => taskCorrections(t).length || t.judge.checks.some((c) => !c.sealed && !c.grounded && c.description)).map((t) => t.id);
  const edits = draftEdits(start, jobs, evidence);
  if (!edits.length) return null;
  const { content, results } = applyEdits(start, edits, { scope });
  if (results.some((r) => r.status !== 'applied')) return null;
  return { content, jobs, edits };
}
