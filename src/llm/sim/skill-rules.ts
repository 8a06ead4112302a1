/**
 * How the simulated target reads a skill: each rule sentence becomes directives with the
 * operative values the rule itself states (a heading name, a prefix, a trailer, a character limit,
 * a literal to include or avoid) and a scope (the jobs the rule names, or its section names, or
 * every job when it names none). The target follows only these; a rule about the right topic with
 * the wrong literal produces the wrong literal.
 */
import { DEFAULT_COMMAND_TOOL } from '../../core/tool-kinds.js';
import { concepts, isNegated, jaccard } from './semantics.js';
import { jobsNamed } from './jobs.js';
import { complaintIn } from '../../skilldoc/wording-lint.js';

/** a shell command a rule may name (its first word is a known runner) */
const COMMAND = /^(?:npm|pnpm|yarn|npx|bun|bunx|deno|node|make|cargo|go|pytest|python3?|uv|poetry|eslint|vitest|jest|tsc|prettier|ruff|mypy|gradle|mvn|dotnet|git)\b/;

function purposeOf(text: string, command: string): CommandPurpose | null {
  const t = `${text} ${command}`.toLowerCase();
  if (/\b(tests?|vitest|jest|pytest|spec)\b/.test(t)) return 'test';
  if (/\b(lint(?:er)?|eslint|ruff)\b/.test(t)) return 'lint';
  if (/\b(type ?check|tsc|mypy)\b/.test(t)) return 'typecheck';
  if (/\b(format(?:ter)?|prettier)\b/.test(t)) return 'format';
  if (/\bbuild\b/.test(t)) return 'build';
  return null;
}

/** Verbs a rule in the imperative opens with (after an optional scope label). */
const IMPERATIVE = /^(?:always |never |do not |don't |please |remember to |be sure to |make sure to |ensure (?:that )?)?(?:use|put|start|begin|end|finish|keep|make|add|write|include|file|run|wrap|reference|name|mention|list|avoid|place|cover|give|link|prefix|open|close|state|say|describe|group|import|call|set|follow|format|limit|separate|note|prefer|cite|sign|tag|split|explain|leave|omit|skip|test|check|lead|title|never|always)\b/i;

/**
 * How a line is worded: a complaint ("way too long - …", "you forgot …"); precise (an imperative
 * that states its operative value: a literal, a number, or an example); else plain ("release notes
 * must be at least 500 characters" is a statement, "avoid emojis" names no value).
 */
export function wordingOf(line: string): Wording {
  if (complaintIn(line)) return 'complaint';
  const body = line.replace(/^(?:for|in|when writing)\s+[^,:]{3,60}:\s*/i, '').trim();
  // specific: it states its operative value (a literal, a number) or marks an example
  const specific = /`[^`]+`|"[^"]+"|\d|\b(?:e\.g\.|for example|such as)/i.test(body);
  return IMPERATIVE.test(body) && specific ? 'precise' : 'plain';
}

export type Directive =
  | { kind: 'section'; heading: string; placement: boolean; body: string }
  | { kind: 'subheading'; heading: string }
  | { kind: 'start'; text: string }
  | { kind: 'end'; text: string }
  | { kind: 'max'; n: number }
  | { kind: 'min'; n: number }
  | { kind: 'json'; only: boolean }
  | { kind: 'tool'; name: string }
  | { kind: 'include'; text: string; perItem: boolean }
  | { kind: 'forbid'; literals: string[]; tags: Set<string> }
  /** a rule about content with no literal ("state the risk level"): the reply addresses it in words */
  | { kind: 'say'; text: string }
  /** "Run the tests with `pnpm vitest run`": the shell command to run for a purpose (tests, lint, …), instead of the habit */
  | { kind: 'command'; command: string; purpose: CommandPurpose | null };

/** What a command is for, as a rule names it. */
export type CommandPurpose = 'test' | 'lint' | 'typecheck' | 'build' | 'format';

/** How a rule is worded, which sets how reliably a model follows it (target.ts, `ComplianceKnobs`). */
export type Wording = 'precise' | 'plain' | 'complaint';

export interface SkillRule {
  text: string;
  /** job keys the rule is for; null = every job */
  scope: string[] | null;
  directives: Directive[];
  /** concepts of the rule minus its literals (what it is about), for conflict detection */
  about: Set<string>;
  /** the rule marks its literal as an example ("e.g.", "such as"): instance values replace it */
  example: boolean;
  /** how the rule's line is worded: a precise imperative with an example, a plain rule, or a complaint */
  wording: Wording;
}

const LITERAL = /`([^`]+)`|"([^"]{1,80})"|(?<![A-Za-z])'([^']{1,80})'/g;

function literalsOf(text: string): string[] {
  return [...text.matchAll(LITERAL)].map((m) => (m[1] ?? m[2] ?? m[3]).trim()).filter(Boolean);
}

/** "Changelog: …", "For commit messages, …", "In release notes …": a leading scope label. */
function scopeLabel(text: string): { label: string | null; rest: string } {
  const m = /^(?:for|in|when writing)\s+([^,:]{3,60})[,:]\s*(.*)$/i.exec(text) ?? /^([A-Za-z][A-Za-z -]{2,40}):\s+(.*)$/.exec(text);
  return m ? { label: m[1], rest: m[2] } : { label: null, rest: text };
}

const HEADING_PHRASE = /\b(?:an?|the)\s+(?:`|"|')?([A-Z][\w' .[\]-]{1,40}?)(?:`|"|')?\s+(?:heading|section|header|subheading)\b/;

function cleanHeading(h: string): string {
  return h.replace(/^#+\s*/, '').trim();
}

export function directivesOf(sentence: string): { directives: Directive[]; example: boolean } {
  const text = sentence.trim();
  const lits = literalsOf(text);
  const negated = isNegated(text);
  const example = /(?:^|\W)(?:e\.g\.|for example|for instance|such as|like)(?:\W|$)/i.test(text);
  const out: Directive[] = [];
  // "reply only with JSON and nothing else" is a format, not a prohibition
  if (/\bjson\b/i.test(text) && /\b(only|nothing but|nothing else|solely)\b/i.test(text)) return { directives: [{ kind: 'json', only: true }], example };
  // "`npm test` fails here": what not to run, said of a command; the rule beside it names the one to run
  if (lits.length && lits.every((l) => COMMAND.test(l)) && /\b(?:fails?|failed|does not work|doesn't work|is broken|breaks)\b/i.test(text)) return { directives: [], example };
  if (negated) {
    const tags = concepts(text.replace(LITERAL, ' '));
    out.push({ kind: 'forbid', literals: lits, tags });
    // "never X; use `vi` instead" is split before it gets here; a negated rule only forbids
    return { directives: out, example };
  }
  const used = new Set<string>();
  // "Run the tests with `pnpm vitest run`" / "use `npx eslint --cache .` to lint": the command to run
  const cmd = lits.find((l) => COMMAND.test(l));
  if (cmd && /\b(?:run|use|execute|invoke|with)\b/i.test(text)) {
    out.push({ kind: 'command', command: cmd, purpose: purposeOf(text.replace(LITERAL, ' '), cmd) });
    used.add(cmd);
  }
  const startM = /\b(?:start|begin|open|prefix)\w*\b/i.test(text);
  const endM = /\b(?:end|finish|close)\w*\s+(?:with|on)\b|\btrailer\b|\bat the end\b/i.test(text);
  if (startM && !endM && lits.length) {
    out.push({ kind: 'start', text: lits[0] });
    // "a prefix such as `feat:` or `fix:`": the other literals are alternatives, not extra text
    for (const l of lits) used.add(l);
  } else if (startM && !endM && /\bconventional commits?\b/i.test(text)) out.push({ kind: 'start', text: 'feat:' });
  if (endM && lits.length) {
    out.push({ kind: 'end', text: lits[0] });
    for (const l of lits) used.add(l);
  } else if (endM && /\bsigned[- ]off[- ]by\b|\bdco\b/i.test(text)) out.push({ kind: 'end', text: 'Signed-off-by: Name <email>' });
  const headings = lits.filter((l) => /^#{1,6}\s+\S/.test(l) && !used.has(l));
  const placement = /\b(entr|item|new|put|go|goes|below|under)\w*/i.test(text);
  for (const h of headings) {
    used.add(h);
    if (/^#{3,}/.test(h)) {
      if (!out.some((d) => d.kind === 'subheading')) out.push({ kind: 'subheading', heading: cleanHeading(h) });
    } else out.push({ kind: 'section', heading: cleanHeading(h), placement, body: text });
  }
  const phrase = HEADING_PHRASE.exec(text.replace(LITERAL, (m) => m.replace(/[`"']/g, '')));
  if (headings.length === 0 && phrase && !/^(keep a changelog|markdown)$/i.test(phrase[1])) {
    out.push({ kind: 'section', heading: cleanHeading(phrase[1]), placement, body: text });
  }
  if (/\bkeep a changelog\b/i.test(text) && !out.some((d) => d.kind === 'subheading')) {
    // a model knows the Keep a Changelog categories
    out.push({ kind: 'subheading', heading: lits.find((l) => /^(Added|Changed|Fixed|Removed)$/.test(l)) ?? 'Added' });
  }
  const max = /\b(?:at most|under|no more than|fewer than|less than|below|within|max(?:imum)?(?: of)?)\s+(\d{2,6})\s*(?:char|characters|chars)\b/i.exec(text) ?? /\b(\d{2,6})\s*(?:characters|chars) or (?:fewer|less)\b/i.exec(text);
  if (max) out.push({ kind: 'max', n: Number(max[1]) });
  const min = /\b(?:at least|no fewer than|more than|over)\s+(\d{2,6})\s*(?:char|characters|chars)\b/i.exec(text);
  if (min) out.push({ kind: 'min', n: Number(min[1]) });
  if (/\bjson\b/i.test(text)) out.push({ kind: 'json', only: /\b(only|nothing but|just|solely|entire(?:ly)?|whole reply)\b/i.test(text) });
  const tool = /\b(?:run|execute|invoke|use)\s+the\s+([A-Z][A-Za-z]+)\s+tool\b/.exec(text);
  if (tool) out.push({ kind: 'tool', name: tool[1] });
  else if (/\b(run|execute|invoke)\b/i.test(text) && /\b(shell|bash|terminal|linter|lint|tests?|build|command)\b/i.test(text)) out.push({ kind: 'tool', name: DEFAULT_COMMAND_TOOL });
  const perItem = /\b(each|every)\s+(item|entry|bullet|line|change)\b|\bafter each\b/i.test(text);
  for (const l of lits) {
    if (used.has(l) || /^#{1,6}\s/.test(l)) continue;
    if (out.some((d) => d.kind === 'json') && /^json$/i.test(l)) continue;
    out.push({ kind: 'include', text: l, perItem });
  }
  // a model knows what a describe block named after the function looks like
  if (!lits.length && /\bdescribe\b.*\bblock\b/i.test(text)) out.push({ kind: 'include', text: "describe('<function>', () => {", perItem: false });
  // a rule that asks for the PR or issue number without writing one: the model copies it from the ask
  if (!lits.length && /\b(pull request|pr)\b.*\bnumber\b|\breference the pr\b/i.test(text)) out.push({ kind: 'include', text: '(#123)', perItem });
  if (out.length === 0 && concepts(text).size >= 2) {
    const said = text.replace(/^(?:always|make sure to|remember to|be sure to|please)\s+/i, '').replace(/\.$/, '');
    out.push({ kind: 'say', text: said[0].toUpperCase() + said.slice(1) });
  }
  return { directives: out, example: example || !lits.length };
}

function sentencesOf(line: string): string[] {
  return line
    .split(/(?<!\b(?:e\.g|i\.e)\.)(?<=[.!?])\s+(?=[A-Z`"'])|;\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 2);
}

// Replays score one skill on many tasks: parse each skill once.
const PARSED = new Map<string, { rules: SkillRule[]; words: number }>();

/** Every rule of a skill, with its scope and directives. */
export function parseSkill(skill: string): { rules: SkillRule[]; words: number } {
  const hit = PARSED.get(skill);
  if (hit) return hit;
  const rules: SkillRule[] = [];
  let sectionJobs: string[] = [];
  for (const raw of skill.split(/\r?\n/)) {
    const heading = /^\s*#{1,6}\s+(.*)$/.exec(raw);
    if (heading) {
      sectionJobs = jobsNamed(heading[1]);
      continue;
    }
    // reported speech is read as the request it reports: 'The user said: "no emojis"' → no emojis
    const line = raw
      .replace(/^\s*(?:[-*+]|\d+[.)])\s*/, '')
      .replace(/\b(?:the user|user|they) (?:said|asked|wrote|corrected)\s*:?\s*"([^"]+)"/gi, '$1')
      .trim();
    if (!line || /^(---|```|<!--)/.test(line)) continue;
    const { label, rest } = scopeLabel(line);
    const labelJobs = label ? jobsNamed(label) : [];
    const body = labelJobs.length ? rest : line;
    for (const s of sentencesOf(body)) {
      const named = jobsNamed(s.replace(LITERAL, ' '));
      const scope = labelJobs.length ? labelJobs : sectionJobs.length ? sectionJobs : named.length ? named : null;
      const { directives, example } = directivesOf(s);
      if (directives.length === 0) continue;
      rules.push({ text: s, scope, directives, about: concepts(s.replace(LITERAL, ' ')), example, wording: wordingOf(line) });
    }
  }
  const out = { rules, words: skill.split(/\s+/).filter(Boolean).length };
  if (PARSED.size >= 64) PARSED.delete(PARSED.keys().next().value as string);
  PARSED.set(skill, out);
  return out;
}

/** Two directives compete for one slot of the reply (two prefixes, two limits, two headings for the entries…). */
export function conflicts(a: { rule: SkillRule; d: Directive }, b: { rule: SkillRule; d: Directive }): boolean {
  if (a.d.kind !== b.d.kind) return (a.d.kind === 'json' && a.d.only) || (b.d.kind === 'json' && b.d.only);
  switch (a.d.kind) {
    case 'start':
    case 'end':
      return a.d.text !== (b.d as typeof a.d).text;
    case 'max':
    case 'min':
      return a.d.n !== (b.d as typeof a.d).n;
    case 'section':
    case 'include':
      return directiveValue(a.d) !== directiveValue(b.d) && jaccard(a.rule.about, b.rule.about) >= 0.6;
    case 'subheading':
      return a.d.heading !== (b.d as typeof a.d).heading;
    case 'command':
      return a.d.purpose === (b.d as typeof a.d).purpose && a.d.command !== (b.d as typeof a.d).command;
    default:
      return false;
  }
}

function directiveValue(d: Directive): string {
  return d.kind === 'section' ? d.heading : d.kind === 'include' ? d.text : '';
}
