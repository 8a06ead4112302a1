/**
 * The staging guard: only rules reach a live skill file. Every text that may become a live file
 * (a staged candidate, the content of a partial apply) passes through `guardSkillContent`, which
 * keeps front matter, headings with rules under them, and rules, and takes out:
 *   - the trainer's run notes: the guidance block the epoch slow update writes ("Epoch review: …",
 *     "Still failing: …", "Regressed: …") and any such line outside it; they belong in the run's
 *     files (the caller writes `notes` there), never in the skill;
 *   - text cut mid-word ("…negative numbers, thousa...", a prompt clip marker "…[297 more characters]");
 *   - generic padding the user never asked for: the guard checks every mined task carries (the
 *     reply is not a refusal, is not empty, is not absurdly long; mine/judge-synth.ts) restated
 *     as rules ("does the task instead of refusing", "gives a substantive answer", …);
 *   - a one-off correction (said in one session only) turned into a rule, when the caller says which;
 *   - a heading left with nothing under it (the draft's "## Rules for every job" after a partial apply);
 * and drops the conversational "No," a correction opened with ("No, apply X" → "Apply X").
 * Then the wording lint (skilldoc/wording-lint.ts): a complaint is rewritten as the rule it carried
 * or goes, a rule said twice keeps one copy, a rule that says the opposite of another goes (never
 * the user's own), a line that is no rule goes, and past the token budget the last new rules go, so no
 * staged skill fails the lint on lines the night wrote (the user's own lines are never touched).
 * The front matter is never rewritten: a candidate that lost or broke the start's is refused.
 * A line the start document already held is the user's (or a decision they already made) and stays,
 * except run notes, which are never the user's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SleepError } from '../core/errors.js';
import { GUIDANCE_END, GUIDANCE_START, isFrontMatterValid, parseFrontMatter, splitFrontMatter } from '../skilldoc/document.js';
import { fixWording, isInstanceSpecific } from '../skilldoc/wording-lint.js';

export type GuardReason = 'run-note' | 'cut-text' | 'padding' | 'one-off' | 'empty-section' | 'not-staged' | 'complaint' | 'duplicate' | 'over-budget' | 'contradiction' | 'fragment';

export interface GuardRemoval {
  line: string;
  why: GuardReason;
  /** for the wording lint's removals: what the line repeated, or the budget it broke */
  detail?: string;
}

/** A line the wording lint rewrote (a complaint turned into the rule it carried). */
export interface GuardRewrite {
  line: string;
  to: string;
  why: string;
}

export interface GuardResult {
  /** the text that may reach the live file */
  content: string;
  /** what was taken out, line by line (the leading "No," rewrites are not removals) */
  removed: GuardRemoval[];
  /** the run notes found in the text (the guidance block's inside), for the run's files */
  runNotes: string[];
  /** lines the wording lint rewrote in place */
  rewrites: GuardRewrite[];
}

export interface GuardOptions {
  /** the document training started from: its front matter must survive intact */
  start?: string | null;
  /** normalized texts (see `normalizeRule`) of corrections said in a single session */
  oneOffCorrections?: ReadonlySet<string>;
  /** normalized texts of rules the guard already took out of the staged candidate */
  notStaged?: ReadonlySet<string>;
  /** the wording lint's token budget per skill (default DEFAULT_SKILL_TOKEN_BUDGET, config `training.skillTokenBudget`) */
  tokenBudget?: number;
}

/** A rule's text compared loosely: lower case, no bullet, no "No," opener, punctuation as spaces. */
/** (said of the one output in front of the user: skilldoc/wording-lint.ts, shared with the start draft's composer) */
export { isInstanceSpecific };

export function normalizeRule(text: string): string {
  return text
    .trim()
    .replace(/^[-*+]\s+/, '')
    .replace(OPENERS, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * The generic checks judge-synth adds to every task, as their descriptions say them and as an
 * optimizer restates them (the sim's "Always attempt the task; do not refuse."). A user who asked
 * for length limits says so with their own numbers and words; these are the product's defaults.
 */
const PADDING: RegExp[] = [
  /^(the (agent|response|reply) )?(does|do) the task instead of refusing$/,
  /^(always )?attempt the task (and )?do not refuse$/,
  /^(the (agent|response|reply) )?(gives|give) a substantive answer$/,
  /^(the (agent|response|reply) )?(stays|stay) within a plausible length$/,
  /^(the (reply|response) must )?be at least 20 characters long$/,
  /^be detailed at least 20 characters$/,
];

const RUN_NOTE = /^\s*(?:[-*+]\s+)?(?:Epoch review|Still failing|Regressed):/;
const META_NOTE = /^\s*Epoch \d+: validation \d/;
/** a word cut and an ellipsis put after it (`thousa...`, `parseAm…`), at the end of a line */
const CUT_WORD = /\p{L}(?:\.{3,}|…)[\s.)"'`*_]*$/u;
const CLIP_MARKER = /…?\[\d+ more characters?\]/;
const HEADING = /^(#{1,6})\s+\S/;
const FENCE = /^\s*(```|~~~)/;
const MARKER = /^\s*<!--\s*skillopt:[a-z]+:(?:start|end)\s*-->\s*$/i;
/** the interjections a correction may open with (as the start draft's asRule drops them) */
const OPENERS = /^(?:(?:no|nope|nah|not quite|hmm+|ugh|actually|wait|sorry|oops)\b\s*[,.!:;–—-]+\s*)+/i;
const NO_OPENER = /^(?:no|nope|nah)\s*[,.:;!–—-]+\s*/i;

function dropNoOpener(text: string): string {
  if (!NO_OPENER.test(text)) return text;
  const rest = text.replace(NO_OPENER, '');
  return rest ? rest[0].toUpperCase() + rest.slice(1) : rest;
}

/** `- No, apply …` → `- Apply …`; any other line unchanged. */
function dropNoOpenerOfBullet(line: string): string {
  const m = /^(\s*[-*+]\s+)(.*)$/.exec(line);
  return m ? m[1] + dropNoOpener(m[2]) : line;
}

/** Takes every guidance block out of `body`, returning what was inside as note lines. */
function takeGuidance(body: string): { body: string; notes: string[] } {
  const notes: string[] = [];
  let out = body;
  for (;;) {
    const lower = out.toLowerCase();
    const at = lower.indexOf(GUIDANCE_START);
    if (at < 0) break;
    const close = lower.indexOf(GUIDANCE_END, at);
    // an unterminated block runs to the end (as the trainer reads it)
    const end = close < 0 ? out.length : close + GUIDANCE_END.length;
    const inner = out.slice(at + GUIDANCE_START.length, close < 0 ? out.length : close);
    notes.push(...inner.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !/^#{1,6}\s/.test(l)));
    out = out.slice(0, at) + out.slice(end).replace(/^[ \t]*\r?\n/, '');
  }
  return { body: out, notes };
}

function classify(line: string, opts: GuardOptions): GuardReason | null {
  if (RUN_NOTE.test(line) || META_NOTE.test(line)) return 'run-note';
  if (CLIP_MARKER.test(line) || CUT_WORD.test(line.trimEnd())) return 'cut-text';
  const bullet = /^\s*[-*+]\s+\S/.test(line);
  if (!bullet) return null;
  const norm = normalizeRule(line);
  if (PADDING.some((re) => re.test(norm))) return 'padding';
  if (opts.oneOffCorrections?.has(norm)) return 'one-off';
  if (opts.notStaged?.has(norm)) return 'not-staged';
  return null;
}

/**
 * Drops section headings (`##` and deeper) with nothing under them: a heading whose section (to the next heading of the same
 * or a higher level) holds no line of text once its own empty sub-headings are gone.
 */
function dropEmptySections(lines: string[], removed: GuardRemoval[], theirs: ReadonlySet<string>): string[] {
  const level = (l: string) => HEADING.exec(l)?.[1].length ?? 0;
  let out = lines;
  for (let changed = true; changed; ) {
    changed = false;
    let inFence = false;
    const fenced = out.map((l) => {
      if (FENCE.test(l)) inFence = !inFence;
      return inFence || FENCE.test(l);
    });
    for (let i = 0; i < out.length; i++) {
      const lv = fenced[i] ? 0 : level(out[i]);
      // the document's title (`# name`) is not a section: a new skill may be a title alone
      if (lv < 2 || theirs.has(out[i].trim())) continue;
      let content = false;
      for (let j = i + 1; j < out.length; j++) {
        const lj = fenced[j] ? 0 : level(out[j]);
        if (lj && lj <= lv) break;
        if (!lj && out[j].trim() && !MARKER.test(out[j])) {
          content = true;
          break;
        }
        // a sub-heading is not text itself: the section holds what its sub-sections hold
      }
      if (!content) {
        removed.push({ line: out[i], why: 'empty-section' });
        out = [...out.slice(0, i), ...out.slice(i + 1)];
        changed = true;
        break;
      }
    }
  }
  return out;
}

/** Blank-line runs left by removals become one blank line; the text ends with one newline. */
function tidy(lines: string[]): string[] {
  const out: string[] = [];
  for (const l of lines) {
    if (!l.trim() && (out.length === 0 || !out[out.length - 1].trim())) continue;
    out.push(l);
  }
  while (out.length && !out[out.length - 1].trim()) out.pop();
  return out;
}

export function guardSkillContent(text: string, opts: GuardOptions = {}): GuardResult {
  const { front, body } = splitFrontMatter(text);
  assertFrontMatterKept(front, opts.start ?? null);
  const taken = takeGuidance(body);
  const removed: GuardRemoval[] = [];
  const runNotes = [...taken.notes];
  const theirs = new Set((opts.start ? splitFrontMatter(opts.start).body : '').split(/\r?\n/).map((l) => l.trim()).filter(Boolean));
  const kept: string[] = [];
  let inFence = false;
  let rewritten = false;
  for (const line of taken.body.split(/\r?\n/)) {
    if (FENCE.test(line)) inFence = !inFence;
    if (inFence || FENCE.test(line)) {
      kept.push(line);
      continue;
    }
    const why = classify(line, opts);
    if (why && (why === 'run-note' || !theirs.has(line.trim()))) {
      removed.push({ line, why });
      if (why === 'run-note') runNotes.push(line.trim());
      continue;
    }
    const fixed = theirs.has(line.trim()) ? line : dropNoOpenerOfBullet(line);
    if (fixed !== line) rewritten = true;
    kept.push(fixed);
  }
  const worded = fixWording(kept.join('\n'), { tokenBudget: opts.tokenBudget, keep: theirs });
  const rewrites: GuardRewrite[] = [];
  for (const c of worded.changes) {
    if (c.to === null) removed.push({ line: c.line, why: c.kind, detail: c.why });
    else rewrites.push({ line: c.line, to: c.to, why: c.why });
  }
  const lines = dropEmptySections(worded.content.split('\n'), removed, theirs);
  if (!removed.length && !rewritten && !rewrites.length && taken.body === body) return { content: text, removed, runNotes, rewrites };
  const out = tidy(lines);
  const joined = out.join('\n');
  const sep = front && joined && !front.endsWith('\n\n') ? '\n' : '';
  return { content: `${front}${sep}${joined}${joined ? '\n' : ''}`, removed, runNotes, rewrites };
}

/** The start's front matter (when it had a valid one) must still open the text, valid and with the same name. */
function assertFrontMatterKept(front: string, start: string | null): void {
  if (start === null) {
    if (front && !isFrontMatterValid(front)) throw brokenFrontMatter('the candidate\'s front matter is not a YAML mapping');
    return;
  }
  const startFront = splitFrontMatter(start).front;
  if (!startFront || !isFrontMatterValid(startFront)) return;
  if (!front) throw brokenFrontMatter('the candidate lost the skill\'s front matter');
  if (!isFrontMatterValid(front)) throw brokenFrontMatter('the candidate\'s front matter is not a YAML mapping');
  const before = parseFrontMatter(start).name;
  const after = parseFrontMatter(front).name;
  if (before !== undefined && before !== after) throw brokenFrontMatter(`the candidate renamed the skill (${before} → ${after ?? 'no name'})`);
}

function brokenFrontMatter(why: string): SleepError {
  return new SleepError('INVALID_INPUT', `refused by the staging guard: ${why}`, {
    hint: 'nothing was staged or written; the live file is unchanged. Run the night again; if it repeats, report the run id',
  });
}

/** One line per kind of removal, for the proposal's notes (and one on the scores, when rules went); then each rewrite. */
export function describeRemovals(removed: GuardRemoval[], rewrites: GuardRewrite[] = []): string[] {
  const rules = removed.filter((r) => r.why !== 'empty-section' && r.why !== 'run-note').length;
  const scores = rules
    ? [`the scores above were measured with the ${rules} line(s) the staging guard took out still in the text; the text staged is without them`]
    : [];
  const label: Record<GuardReason, string> = {
    'run-note': 'run note(s) moved to the run\'s files',
    'cut-text': 'line(s) of cut text',
    padding: 'generic rule(s) you never asked for',
    'one-off': 'correction(s) said only once',
    'empty-section': 'empty heading(s)',
    'not-staged': 'rule(s) the staged candidate does not hold',
    complaint: 'complaint(s) with no rule in them',
    duplicate: 'rule(s) the skill already states (each rule is said once)',
    'over-budget': 'rule(s) past the skill\'s token budget',
    contradiction: 'rule(s) saying the opposite of another rule (yours, when it is yours)',
    fragment: 'line(s) that are no rule (an example alone, a sentence cut short)',
  };
  const by = new Map<GuardReason, string[]>();
  for (const r of removed) by.set(r.why, [...(by.get(r.why) ?? []), r.line.trim()]);
  const why = (r: GuardRemoval) => (r.detail && (r.why === 'duplicate' || r.why === 'contradiction') ? ` — ${r.detail.slice(0, 100)}` : '');
  const removedLines = [...by].map(([kind, lines]) => {
    const shown = removed.filter((r) => r.why === kind).slice(0, 3).map((r) => `"${r.line.trim().slice(0, 80)}"${why(r)}`);
    return `staging guard took out ${lines.length} ${label[kind]}: ${shown.join(', ')}${lines.length > 3 ? ', …' : ''}`;
  });
  const rewritten = rewrites.map((r) => `staging guard rewrote "${r.line.trim().slice(0, 80)}" as "${r.to.trim().slice(0, 80)}" (${r.why})`);
  return [...scores, ...removedLines, ...rewritten];
}

/**
 * The guard over a partial apply's text: the same rules, and none of the lines the guard took out
 * of the staged candidate (`removed`, from report.json: a one-off correction stays out when its
 * edit is chosen alone, although the store that said "one-off" is not asked again).
 */
export function guardPartialContent(content: string, start: string, removed: GuardRemoval[]): string {
  // a duplicate or an over-budget rule is judged again on the partial text (its twin may not be chosen)
  const notStaged = new Set(removed.filter((r) => !['empty-section', 'duplicate', 'over-budget', 'contradiction'].includes(r.why)).map((r) => normalizeRule(r.line)).filter(Boolean));
  return guardSkillContent(content, { start, notStaged }).content;
}

/** What the staging guard took out of a proposal's candidate, as its report.json records it ([] for older proposals). */
export function stagedRemovals(proposalDir: string): GuardRemoval[] {
  try {
    const r = JSON.parse(fs.readFileSync(path.join(proposalDir, 'report.json'), 'utf8')) as { guard?: { removed?: unknown } };
    const list = Array.isArray(r.guard?.removed) ? (r.guard.removed as unknown[]) : [];
    return list.filter((x): x is GuardRemoval => !!x && typeof (x as GuardRemoval).line === 'string' && typeof (x as GuardRemoval).why === 'string');
  } catch {
    return [];
  }
}
