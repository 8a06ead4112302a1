/**
 * Heuristic judge synthesis: turns what users asked for and how they corrected the agent into rule
 * checks, plus a rubric. Each recognised preference yields a visible check (its failure feedback
 * teaches the optimizer) and, where a second, stricter form exists, a sealed one (it counts in the
 * gate but is never shown, so a skill that merely quotes the visible check does not pass).
 * Every check is validated on creation: a check that cannot be evaluated is an error here.
 */
import type { Check, Judge } from '../core/records.js';
import { validateCheck } from '../core/checks.js';
import { stableId } from '../core/ids.js';
import { SleepError } from '../core/errors.js';
import { COMMAND_TOOL_OF_AGENT, DEFAULT_COMMAND_TOOL, verifyKindsOfCommand, type VerifyKind } from '../core/tool-kinds.js';
import type { OutcomeLabel } from './outcome.js';

type Draft = Omit<Check, 'id' | 'weight' | 'sealed'> & { sealed?: boolean; weight?: number };

export function makeCheck(d: Draft): Check {
  const check: Check = {
    id: stableId('chk', d.op, String(d.value ?? ''), d.needle ?? '', d.flags ?? '').slice(0, 16),
    weight: d.weight ?? 1,
    sealed: d.sealed ?? false,
    ...d,
  } as Check;
  validateCheck(check);
  return check;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface PreferenceRule {
  name: string;
  /** tested against lower-cased correction and prompt text */
  pattern: RegExp;
  checks(m: RegExpMatchArray): Draft[];
}

/** Preferences people state to coding agents again and again, and how to verify each. */
const RULES: PreferenceRule[] = [
  {
    name: 'keep-a-changelog',
    pattern: /keep ?a ?changelog|keepachangelog/,
    checks: () => [
      { op: 'regex', value: '^#{2,3}\\s*\\[?unreleased\\]?', flags: 'im', description: 'Keep a Changelog: entries go under an [Unreleased] heading' },
      {
        op: 'regex',
        value: '^#{3,4}\\s*(added|changed|deprecated|removed|fixed|security)\\b',
        flags: 'im',
        description: 'Keep a Changelog change-type subsection',
        sealed: true,
      },
    ],
  },
  {
    name: 'link-pr',
    pattern: /\b(link|reference|mention|include|cite)s? (to )?(the )?(pr|pull request|pull-request)\b|\bpr (link|number)\b/,
    checks: () => [{ op: 'regex', value: '(#\\d+|/pull/\\d+|\\bPR\\s*#?\\d+)', flags: 'i', description: 'links the pull request' }],
  },
  {
    name: 'issue-ref',
    pattern: /\b(ticket|issue|jira) (number|id|key|reference|link)\b/,
    checks: () => [{ op: 'regex', value: '([A-Z][A-Z0-9]+-\\d+|#\\d+)', description: 'references the ticket or issue' }],
  },
  {
    name: 'it-each',
    pattern: /\bit\.each\b|\btest\.each\b|table[- ]driven/,
    checks: () => [
      { op: 'contains', value: '.each', description: 'uses table-driven tests (it.each)' },
      { op: 'regex', value: '\\b(it|test)\\.each\\s*[(`]', description: 'it.each called with a table', sealed: true },
    ],
  },
  {
    name: 'vitest',
    pattern: /\bvitest\b/,
    checks: () => [
      { op: 'contains', value: 'vitest', description: 'uses vitest' },
      { op: 'not_contains', value: 'jest.fn', description: 'no jest APIs in vitest tests', sealed: true },
    ],
  },
  {
    name: 'conventional-commits',
    pattern: /conventional commits?|conventional-commit|\bfeat: |commit (message )?(prefix|type)|\btype prefix\b/,
    checks: () => [
      {
        op: 'regex',
        value: '^\\s*(feat|fix|docs|style|refactor|perf|test|build|ci|chore|revert)(\\([^)]+\\))?!?: \\S',
        flags: 'im',
        description: 'Conventional Commits subject line (type(scope): summary)',
      },
    ],
  },
  { name: 'pnpm', pattern: /\bpnpm\b/, checks: () => [{ op: 'contains', value: 'pnpm', description: 'uses pnpm' }] },
  { name: 'yarn', pattern: /\buse yarn\b|\byarn instead\b/, checks: () => [{ op: 'contains', value: 'yarn', description: 'uses yarn' }] },
  { name: 'json', pattern: /\b(as|in|return|output|valid) json\b|\bjson (only|output|format)\b/, checks: () => [{ op: 'json_valid', description: 'answers with valid JSON' }] },
  {
    name: 'concise',
    pattern: /\b(too long|shorter|be (more )?(concise|brief)|keep it (short|brief)|less verbose|too verbose)\b/,
    checks: () => [{ op: 'max_chars', value: 1500, description: 'stays concise' }],
  },
  {
    name: 'bullets',
    pattern: /\bbullet(ed)? (points?|list)\b|\bas bullets\b/,
    checks: () => [{ op: 'regex', value: '^\\s*[-*•] \\S', flags: 'm', description: 'uses a bulleted list' }],
  },
  {
    name: 'typescript-types',
    pattern: /\bno any\b|\bavoid any\b|don'?t use any\b/,
    checks: () => [{ op: 'regex', value: '^(?![\\s\\S]*:\\s*any\\b)', description: 'no `any` types', sealed: false }],
  },
];

/** "add a Testing section" / "include a ## Summary section" → section_present. */
const SECTION_RE = /\b(?:add|include|with|needs?|missing|put (?:it|them) (?:in|under)) (?:an? |the )?(?:#+ ?)?["'`]?([a-z][\w -]{1,30}?)["'`]? (?:section|heading)\b/g;
/** "start with `X`" → starts_with. */
const STARTS_RE = /\b(?:start|begin)s? with ["'`]([^"'`\n]{1,40})["'`]/g;
/** "use `X` (instead of|not|rather than) `Y`" / "use X instead of Y". */
const USE_INSTEAD_RE = /\buse ["'`]?([\w.@/:-]{2,40})["'`]?(?: \w+)?,? (?:instead of|not|rather than|over) ["'`]?([\w.@/:-]{2,40})["'`]?/g;
/** "use `X`" with a code-quoted operand. */
const USE_QUOTED_RE = /\b(?:use|call|prefer|import) `([^`\n]{2,40})`/g;
/** "don't use `Y`" / "never `Y`" / "no `Y`". */
const AVOID_QUOTED_RE = /\b(?:don'?t|do not|never|avoid|no|stop using|not) (?:use |using |call |calling )?`([^`\n]{2,40})`/g;

const GENERIC_WORDS = new Set(['the', 'a', 'an', 'it', 'this', 'that', 'them', 'these', 'those', 'my', 'our', 'same', 'one']);

/** Contains-style checks from explicit literals in corrections. */
function literalDrafts(text: string, original: string): Draft[] {
  const out: Draft[] = [];
  for (const m of text.matchAll(USE_INSTEAD_RE)) {
    const want = m[1];
    const avoid = m[2];
    if (GENERIC_WORDS.has(want) || GENERIC_WORDS.has(avoid)) continue;
    const wantOrig = findOriginalCase(original, want);
    out.push({ op: 'contains', value: wantOrig, description: `uses ${wantOrig}` });
    const avoidOrig = findOriginalCase(original, avoid);
    if (wantOrig.toLowerCase().includes(avoidOrig.toLowerCase())) {
      // "use pnpm, not npm": a plain not_contains would forbid "pnpm" too; match the word alone
      out.push({ op: 'regex', value: `^(?![\\s\\S]*(?<![\\w.-])${escapeRe(avoidOrig)}(?![\\w-]))`, flags: 'i', description: `does not use ${avoidOrig}` });
    } else {
      out.push({ op: 'not_contains', value: avoidOrig, description: `does not use ${avoidOrig}` });
    }
  }
  for (const m of original.matchAll(USE_QUOTED_RE)) out.push({ op: 'contains', value: m[1], description: `uses ${m[1]}` });
  for (const m of original.matchAll(AVOID_QUOTED_RE)) out.push({ op: 'not_contains', value: m[1], description: `avoids ${m[1]}` });
  for (const m of text.matchAll(SECTION_RE)) {
    const name = m[1].trim();
    if (!GENERIC_WORDS.has(name) && name.length >= 3) out.push({ op: 'section_present', value: titleCase(name), description: `has a ${name} section` });
  }
  for (const m of original.matchAll(STARTS_RE)) out.push({ op: 'starts_with', value: m[1], description: `starts with ${m[1]}` });
  out.push(...limitDrafts(text, original), ...headingDrafts(text, original), ...openingDrafts(original));
  return out;
}

// ---- constraints people state with a number, a heading or an opening line -------------------
// The user's own sentence is the check's description: its failure feedback shows the optimizer
// what the user said, and a rule learned from it keeps the user's values.

const MAX_LIMIT_RE = /\b(?:under|below|at most|no more than|not more than|less than|fewer than|max(?:imum)?(?: of)?|within|up to)\s+(\d{2,6})\s*(?:characters|chars)\b/;
const MIN_LIMIT_RE = /\b(?:at least|no fewer than|no less than|not less than|min(?:imum)?(?: of)?|more than|over)\s+(\d{2,6})\s*(?:characters|chars)\b/;

/** "keep it under 300 characters" → max_chars 300; "at least 600 characters" → min_chars 600. */
function limitDrafts(text: string, original: string): Draft[] {
  const out: Draft[] = [];
  const max = MAX_LIMIT_RE.exec(text);
  if (max) out.push({ op: 'max_chars', value: Number(max[1]), description: original.trim() });
  const min = MIN_LIMIT_RE.exec(text);
  if (min) out.push({ op: 'min_chars', value: Number(min[1]), description: original.trim() });
  return out;
}

/** A markdown heading the user quotes ("put it under `## [Unreleased]`"), unless they forbid it. */
const QUOTED_HEADING_RE = /[`"'](#{2,6})\s+([^`"'\n]{2,40})[`"']/g;

function headingDrafts(text: string, original: string): Draft[] {
  if (isNegatedPreference(text)) return [];
  const out: Draft[] = [];
  for (const m of original.matchAll(QUOTED_HEADING_RE)) {
    const name = m[2].replace(/^\[(.*)\]$/, '$1').trim();
    if (name.length >= 2 && !hasPlaceholder(name)) out.push({ op: 'section_present', value: name, description: original.trim() });
  }
  return out;
}

/** Placeholders a user writes for the instance's value: vX.Y.Z, <email>, NNN, {name}. */
const PLACEHOLDER_RE = /\bv?X\.Y(?:\.Z)?\b|<[^<>\n]{1,30}>|\{[^{}\n]{1,30}\}|\bN{2,}\b/g;
const hasPlaceholder = (s: string): boolean => new RegExp(PLACEHOLDER_RE.source).test(s);

/** A literal as a regex: placeholders match the instance's own value (`# Release vX.Y.Z` → `# Release v\d+\.\d+\.\d+`). */
function literalPattern(lit: string): string {
  let out = '';
  let at = 0;
  for (const m of lit.matchAll(PLACEHOLDER_RE)) {
    out += escapeRe(lit.slice(at, m.index));
    out += /X\.Y/.test(m[0]) ? `${m[0].startsWith('v') ? 'v' : ''}\\d+\\.\\d+(?:\\.\\d+)?` : '\\S.*?';
    at = (m.index ?? 0) + m[0].length;
  }
  return out + escapeRe(lit.slice(at));
}

/**
 * How the answer must open: "start it with a type like `fix:` or `feat:`", "the title line must
 * be `# Release vX.Y.Z`". Alternatives become one pattern; placeholders match any value.
 */
const OPENING_RE = /\b(?:start|begin|open|lead)\w*\b[^`"]{0,60}?((?:[`"][^`"\n]{1,40}[`"](?:,?\s*(?:or|,)\s*)?)+)|\b(?:title|first line|subject line|heading)(?: line)? (?:must|should|has to|needs to) be\s+((?:[`"][^`"\n]{1,40}[`"]))/i;

function openingDrafts(original: string): Draft[] {
  if (STARTS_RE.test(original)) {
    STARTS_RE.lastIndex = 0;
    if (!/\bor\b/.test(original) && !hasPlaceholder(original)) return []; // a plain "start with `X`" is made above
  }
  STARTS_RE.lastIndex = 0;
  const m = OPENING_RE.exec(original);
  if (!m) return [];
  const lits = [...(m[1] ?? m[2] ?? '').matchAll(/[`"]([^`"\n]{1,40})[`"]/g)].map((x) => x[1].trim()).filter(Boolean);
  if (lits.length === 0) return [];
  const alternatives = lits.map(literalPattern);
  const value = `^\\s*(?:${alternatives.join('|')})`;
  return [{ op: 'regex', value, description: original.trim() }];
}

/** A preference stated as a prohibition ("never add a `## Notes` section"). */
function isNegatedPreference(text: string): boolean {
  return /\b(?:don'?t|do not|never|no need|without|stop|avoid|remove|drop)\b/.test(text);
}

function findOriginalCase(original: string, lower: string): string {
  const i = original.toLowerCase().indexOf(lower);
  return i >= 0 ? original.slice(i, i + lower.length) : lower;
}

const titleCase = (s: string) => s.replace(/\b\w/g, (c) => c.toUpperCase());

export interface JudgeEvidence {
  intent: string;
  prompts: string[];
  corrections: string[];
  /** lengths of the agent's final answers that the user accepted, if known */
  acceptedLengths?: number[];
  /** each ask's outcome label and the verifying commands its turn ran (consistency evidence for command checks) */
  occurrences?: Array<{ label: OutcomeLabel; verified?: VerifyKind[] }>;
  /** agents the asks were made to: names the command tool a check shows (scoring accepts any agent's) */
  agents?: string[];
  /**
   * The replay target can run shell commands (`backendRunsCommands`). Without it no `tool_called`
   * check on a command is made: the CLI targets replay with their shell tool switched off
   * (adapters/<agent>/exec.ts) and the HTTP backends call no tools, so such a check would fail
   * every rollout, good skills included.
   */
  targetRunsCommands?: boolean;
}

export interface SynthesizedJudge {
  judge: Judge;
  /** names of the preference rules that fired, for tags and reports */
  preferences: string[];
}

/**
 * A rule preference counts when any correction states it (the user cared enough to object), or
 * when at least a third of the asks state it (it is part of how they ask).
 */
export function synthesizeJudge(ev: JudgeEvidence): SynthesizedJudge {
  const drafts: Draft[] = [];
  const preferences: string[] = [];
  // distinct asks with their counts, in first-seen order: a big family repeats the same words
  // hundreds of times, and every rule is tried on every distinct ask
  const promptCounts = new Map<string, number>();
  for (const p of ev.prompts) {
    const k = p.toLowerCase();
    promptCounts.set(k, (promptCounts.get(k) ?? 0) + 1);
  }
  const corrections = ev.corrections.map((c) => c.toLowerCase());
  for (const rule of RULES) {
    const inCorrection = corrections.map((c) => c.match(rule.pattern)).find(Boolean);
    let promptHits = 0;
    let firstHit: RegExpMatchArray | null = null;
    for (const [p, n] of promptCounts) {
      const hit = p.match(rule.pattern);
      if (!hit) continue;
      promptHits += n;
      firstHit ??= hit;
    }
    const m = inCorrection ?? (promptHits > 0 && promptHits * 3 >= ev.prompts.length ? firstHit : null);
    if (!m) continue;
    preferences.push(rule.name);
    drafts.push(...rule.checks(m));
  }
  ev.corrections.forEach((c, i) => drafts.push(...literalDrafts(corrections[i], c)));
  if (ev.targetRunsCommands) {
    const cmd = commandDrafts(ev);
    if (cmd.preference) preferences.push(cmd.preference);
    drafts.push(...cmd.drafts);
  }
  // generic guards: the task was done (not refused), and the answer has a plausible length
  const maxLen = Math.max(4000, ...(ev.acceptedLengths ?? []).map((n) => n * 3));
  drafts.push({ op: 'no_refusal', description: 'does the task instead of refusing' });
  drafts.push({ op: 'min_chars', value: 20, description: 'gives a substantive answer' });
  if (!drafts.some((d) => d.op === 'max_chars')) drafts.push({ op: 'max_chars', value: Math.min(maxLen, 20000), description: 'stays within a plausible length' });

  // one length limit each way: the user's own number over a generic guess (or the guard)
  const tightest = (op: 'max_chars' | 'min_chars') => {
    const ds = drafts.filter((d) => d.op === op);
    return ds.length ? ds.reduce((a, b) => ((op === 'max_chars' ? Number(b.value) < Number(a.value) : Number(b.value) > Number(a.value)) ? b : a)) : undefined;
  };
  const keep = new Set([tightest('max_chars'), tightest('min_chars')]);
  const checks: Check[] = [];
  const seen = new Set<string>();
  for (const d of drafts) {
    if ((d.op === 'max_chars' || d.op === 'min_chars') && !keep.has(d)) continue;
    const c = makeCheck(d);
    if (seen.has(c.id)) continue;
    seen.add(c.id);
    checks.push(c);
  }
  return { judge: { checks, reference: { kind: 'rubric', rubric: rubricFor(ev.intent, ev.corrections), passThreshold: 0.7 } }, preferences };
}

// ---- command checks (`tool_called`) --------------------------------------------------------
// Only the tool's name reaches the judge (a rollout records which tools it called, not their
// input), so "ran vitest" and "ran any command" score alike: one check on the command tool, its
// description naming what to run. With no stricter scorable form there is no sealed twin.

/** Words of a correction that end the clause a "run …" ask is read in. */
const CLAUSE_SPLIT = /[.;!?,\n]+|\s(?:but|and then|then)\s/;
const RUN_RE = /\b(?:run|re-?run|running|execute)\s+((?:(?![.;!?,]).){1,48})/;
const ENSURE_PASS_RE = /\b(?:make sure|ensure|check|verify|confirm)\s+(?:that\s+)?(?:the\s+|all\s+(?:the\s+)?)?(?:unit\s+)?(tests?|specs?|lint(?:er)?|type ?checks?|build)\s+(?:still\s+)?(?:pass(?:es)?|succeeds?|is\s+green|are\s+green)\b/;
const TOOL_ASK_RE = /\buse\s+(?:the\s+)?(?:(?:bash|shell|terminal)\s+tool|terminal|run_in_terminal|exec_command)\b/;
/**
 * "you didn't run …", "forgot to run …": a complaint that it was not done is an ask to do it
 * ("never" only after "you": a bare "never run the tests" forbids it).
 */
const OMISSION_RE =
  /(?:\byou\s+(?:still\s+)?never|\b(?:didn'?t|did\s+not|forgot\s+to|haven'?t|have\s+not|failed\s+to)|\bdidn'?t\s+you|\bdid\s+you\s+not|\b(?:don'?t|do\s+not)\s+forget\s+to)\s+(?:even\s+|actually\s+)?$/;
/** Anything else negating or questioning the run before it in the clause: no check. */
const NEGATION_RE = /\b(?:don'?t|do\s+not|never|no\s+need|not|without|stop|skip|avoid|no|why|if|unless|instead\s+of|rather\s+than|shouldn'?t|should\s+not|needn'?t)\b/;

const OBJECT_KINDS: Array<[VerifyKind, RegExp]> = [
  ['test', /\b(?:tests?|test suite|specs?)\b/],
  ['lint', /\b(?:lint|linter|linting)\b/],
  ['typecheck', /\b(?:type ?-?check(?:er|s|ing)?)\b/],
  ['format', /\b(?:formatter)\b/],
];
const KIND_WORDS: Record<VerifyKind, string> = { test: 'the tests', lint: 'the linter', typecheck: 'the type checker', format: 'the formatter' };

/** What one correction asks to run: verifying kinds, or just "use the command tool"; null = nothing. */
export function commandAskOf(correction: string): { kinds: VerifyKind[] } | null {
  const kinds = new Set<VerifyKind>();
  let toolAsk = false;
  // clause by clause: "no, run the tests" and "don't lint, run the tests" are read in their parts
  for (const raw of correction.toLowerCase().split(CLAUSE_SPLIT)) {
    const clause = raw.trim();
    if (!clause) continue;
    const asked = (index: number): boolean => {
      const before = clause.slice(0, index);
      return OMISSION_RE.test(before) || !NEGATION_RE.test(before);
    };
    const run = RUN_RE.exec(clause);
    if (run && asked(run.index)) {
      // "run the linter, not the tests": what follows a negation is not asked for
      const object = run[1].split(/\b(?:not|except|but|instead|rather|without|no)\b/)[0];
      for (const [k, re] of OBJECT_KINDS) if (re.test(object)) kinds.add(k);
      for (const k of verifyKindsOfCommand(object)) kinds.add(k);
    }
    const ensure = ENSURE_PASS_RE.exec(clause);
    if (ensure && asked(ensure.index)) {
      const what = ensure[1];
      if (/^(?:test|spec)/.test(what)) kinds.add('test');
      else if (what.startsWith('lint')) kinds.add('lint');
      else if (what.startsWith('type')) kinds.add('typecheck');
      // "make sure the build passes" names no verifying tool: nothing
    }
    const tool = TOOL_ASK_RE.exec(clause);
    if (tool && asked(tool.index)) toolAsk = true;
  }
  if (kinds.size === 0 && !toolAsk) return null;
  return { kinds: [...kinds] };
}

/** The command tool named in checks: the one of the agent most of the asks went to (Claude's when unknown). */
function commandToolFor(agents: string[] | undefined): string {
  const counts = new Map<string, number>();
  for (const a of agents ?? []) if (COMMAND_TOOL_OF_AGENT[a]) counts.set(a, (counts.get(a) ?? 0) + 1);
  const best = [...counts].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0];
  return best ? COMMAND_TOOL_OF_AGENT[best[0]] : DEFAULT_COMMAND_TOOL;
}

const listKinds = (kinds: VerifyKind[]) => {
  const words = kinds.map((k) => KIND_WORDS[k]);
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
};

/** Consistency: at least this many accepted asks, and this share of them ran the same kind of check. */
export const CONSISTENT_MIN_ACCEPTED = 3;
export const CONSISTENT_SHARE = 0.8;

/**
 * Command checks of a family: from a correction asking to run something (the user objected, so it
 * counts fully), else from habit — the agent ran the same verifying command in ≥ 80% of at least 3
 * accepted asks — as a lighter check (half weight), since nobody asked for it outright.
 */
function commandDrafts(ev: JudgeEvidence): { drafts: Draft[]; preference?: string } {
  const tool = commandToolFor(ev.agents);
  const asked = new Set<VerifyKind>();
  let anyAsk = false;
  for (const c of ev.corrections) {
    const ask = commandAskOf(c);
    if (!ask) continue;
    anyAsk = true;
    for (const k of ask.kinds) asked.add(k);
  }
  if (anyAsk) {
    const kinds = [...asked].sort();
    const what = kinds.length ? `runs ${listKinds(kinds)}` : 'runs commands';
    return { preference: 'run-commands', drafts: [{ op: 'tool_called', value: tool, description: `${what} with the ${tool} tool before answering` }] };
  }
  const accepted = (ev.occurrences ?? []).filter((o) => o.label === 'success');
  if (accepted.length < CONSISTENT_MIN_ACCEPTED) return { drafts: [] };
  const habitual = (['test', 'lint', 'typecheck', 'format'] as VerifyKind[]).filter(
    (k) => accepted.filter((o) => o.verified?.includes(k)).length >= CONSISTENT_SHARE * accepted.length,
  );
  if (habitual.length === 0) return { drafts: [] };
  return {
    preference: 'verifies-habitually',
    drafts: [{ op: 'tool_called', value: tool, weight: 0.5, description: `runs ${listKinds(habitual)} with the ${tool} tool before answering` }],
  };
}

/** The rubric of one ask: what was asked, and what the user insisted on before (their corrections). */
/**
 * The rubric of one ask: what was asked, then what the user insisted on before, one criterion per
 * correction in their own words (a judge grades a list of criteria one by one; a long sentence of
 * quotes is graded as a whole, and corrections past the first few never reached it).
 */
export const MAX_RUBRIC_CORRECTIONS = 12;

export function rubricFor(intent: string, corrections: string[]): string {
  const head = `The response fully does what was asked: "${intent.slice(0, 400)}". It is correct, specific to the request, and does not refuse or stall.`;
  if (!corrections.length) return head;
  const said = corrections.slice(0, MAX_RUBRIC_CORRECTIONS).map((c) => `- The user said: "${c.replace(/\s+/g, ' ').trim()}"`);
  return `${head}\n${said.join('\n')}`;
}

/** Validates every check of a judge (used for imported and edited tasks); throws on the first bad one. */
export function validateJudge(judge: Judge): void {
  const ids = new Set<string>();
  for (const c of judge.checks) {
    validateCheck(c);
    if (ids.has(c.id)) throw invalid(`duplicate check id "${c.id}"`);
    ids.add(c.id);
  }
  if (judge.reference.kind === 'rubric' && !judge.reference.rubric.trim()) throw invalid('rubric reference with an empty rubric');
  if (judge.reference.kind === 'exact' && !judge.reference.answer.trim()) throw invalid('exact reference with an empty answer');
}

const invalid = (message: string) => new SleepError('INVALID_INPUT', message, { hint: 'fix the judge of the task (`skillopt-sleep tasks edit ID`)' });
