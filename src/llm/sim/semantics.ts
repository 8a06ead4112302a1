/**
 * The sim's notion of meaning: text → a set of concepts. Words are lowercased, multi-word phrases
 * are folded first ("pull request" → pr, "Keep a Changelog" → keepachangelog), function words and
 * generic instruction words are dropped, the rest is stemmed and mapped through a small synonym
 * table ("link" ~ "reference" ~ "cite"). Two texts mean the same thing when their concept sets
 * overlap, whatever their wording. Negation is tracked separately as a polarity.
 */
import type { Rng } from './rng.js';

/** Multi-word phrases folded to one token before splitting (order matters: longest first). */
const PHRASES: Array<[RegExp, string]> = [
  [/\bkeep[\s_-]*a[\s_-]*change[\s_-]*log\b/g, ' keepachangelog '],
  [/\bpull[\s_-]*requests?\b|\bmerge[\s_-]*requests?\b/g, ' pr '],
  [/\bsigned[\s_-]*off[\s_-]*by\b|\bsign[\s_-]*off\b|\bsign[\s_-]*offs\b/g, ' signoff '],
  [/\bconventional[\s_-]*commits?\b/g, ' conventionalcommit '],
  [/\bsemantic[\s_-]*version(?:ing)?\b/g, ' semver '],
  [/\bbreaking[\s_-]*changes?\b/g, ' breaking '],
  [/\b(?:it|test)\.each\b|\btable[\s_-]*driven\b|\bparam(?:e)?tri[sz]ed\b/g, ' paramtable '],
  [/\broot[\s_-]*causes?\b/g, ' rootcause '],
  [/\biso[\s_-]*8601\b|\byyyy-mm-dd\b/g, ' isodate '],
  [/\bchange[\s_-]*log\b/g, ' changelog '],
  [/\bre[\s_-]*lease[\s_-]*notes?\b/g, ' releasenote '],
  [/\bunit[\s_-]*tests?\b/g, ' test '],
  [/\bat[\s_-]*most\b|\bno[\s_-]*more[\s_-]*than\b/g, ' short '],
  [/\bat[\s_-]*least\b|\bno[\s_-]*less[\s_-]*than\b/g, ' long '],
  [/\bdon'?t[\s_-]*forget\b|\bbe[\s_-]*sure\b|\bmake[\s_-]*sure\b/g, ' '],
];

/** Synonym groups: every surface word maps to the group's concept id (the first word). */
const SYNONYM_GROUPS: string[][] = [
  ['reference', 'link', 'cite', 'url', 'href', 'point'],
  ['pr', 'pullreq'],
  ['keepachangelog'],
  ['changelog', 'history'],
  ['semver', 'semantic'],
  ['version', 'release', 'tag'],
  ['test', 'spec', 'testcase'],
  ['heading', 'header', 'section', 'headline', 'title'],
  ['explain', 'justify', 'rationale', 'clarify', 'reason'],
  ['rootcause', 'underlying'],
  ['date', 'day', 'dated'],
  ['isodate'],
  ['breaking', 'incompatible'],
  ['migration', 'migrate', 'upgrade', 'port'],
  ['silence', 'disable', 'suppress', 'mute', 'ignore'],
  ['lint', 'linter', 'eslint', 'linting'],
  ['run', 'execute', 'invoke', 'launch'],
  ['verify', 'check', 'confirm', 'validate', 'prove'],
  ['short', 'concise', 'brief', 'terse', 'compact', 'succinct'],
  ['long', 'detailed', 'thorough', 'lengthy'],
  ['json'],
  ['import', 'require'],
  ['paramtable', 'parametrize', 'parameterize'],
  ['group', 'category', 'categorize', 'classify', 'bucket', 'sort'],
  ['signoff', 'dco'],
  ['trailer', 'footer'],
  ['emoji', 'emoticon', 'icon'],
  ['parentheses', 'parenthesis', 'parens', 'paren', 'brackets', 'bracket'],
  ['todo', 'fixme', 'placeholder'],
  ['number', 'id', 'identifier'],
  ['mock', 'stub', 'fake', 'spy'],
  ['assert', 'expect', 'assertion', 'expectation'],
  ['prefix', 'start', 'begin', 'lead', 'open', 'first'],
  ['summary', 'summarize', 'overview', 'tldr', 'recap'],
  ['step', 'instruction', 'procedure'],
  ['wrap', 'enclose', 'nest', 'contain'],
  ['block', 'scope'],
  ['command', 'cli', 'shell', 'bash', 'terminal'],
  ['fix', 'repair', 'resolve', 'correct', 'patch'],
  ['added', 'introduce'],
  ['removed', 'delete', 'drop'],
  ['commit'],
  ['message', 'msg'],
  ['describe'],
  ['unreleased', 'upcoming', 'pending'],
  ['error', 'failure', 'bug', 'problem', 'issue'],
  ['file', 'path', 'filename'],
  ['code', 'snippet', 'source'],
  ['api', 'interface', 'endpoint'],
  ['jest'],
  ['vitest'],
];

/** Function words and generic instruction words: they say nothing about what a rule requires. */
const STOPWORDS = new Set(
  (
    'a an the and or but to of for in on at by with from as is are was were be been being it its this that these those ' +
    'each every all any always must should shall will would can could may might need needs have has had do does did ' +
    'make use using used include includes including add write put response reply answer output text item items entry entries line lines ' +
    'please when then than so your you we our they them their us me my one per only also instead like e g eg example such ensure follow format ' +
    'via about into there here other same some more most less very just well within where which what who how if else after before over ' +
    'i agent model task tasks work result results thing things way get give keep place provide state mention show see note ' +
    'new change changes suggest suggests list lists listing under top above below afterwards afterward explicitly such response responses must required require requires requirement rule rules guidance skill yes'
  ).split(/\s+/),
);

/** Words that negate an instruction. "never omit" is two negations, i.e. positive. */
const NEGATORS = new Set(
  "not no never don't dont doesn't doesnt avoid without omit skip exclude forbid forbidden stop nothing neither nor cannot can't mustn't shouldn't won't refrain forget leave_out".split(
    ' ',
  ),
);

const CONCEPT_OF = new Map<string, string>();
for (const group of SYNONYM_GROUPS) {
  const id = group[0];
  for (const w of group) CONCEPT_OF.set(stem(w), id);
}

/** A light suffix stripper: enough that "tests", "testing", "tested" meet. */
export function stem(word: string): string {
  let w = word.toLowerCase().replace(/'s$/, '');
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('ing') && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 4) w = w.slice(0, -2);
  else if (/(ss|us)$/.test(w)) return w;
  else if (/(sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && w.length > 3) w = w.slice(0, -1);
  if (/([^aeiouls])\1$/.test(w)) w = w.slice(0, -1); // running → runn → run
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

function foldPhrases(text: string): string {
  let t = text.toLowerCase().replace(/[\u2018\u2019]/g, "'");
  for (const [re, rep] of PHRASES) t = t.replace(re, rep);
  return t;
}

function rawWords(text: string): string[] {
  return foldPhrases(text)
    .split(/[^a-z0-9'#]+/)
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .filter((w) => w.length > 0);
}

/** The concept a single word stands for, or null for function words and negators. */
export function conceptOf(word: string): string | null {
  const w = word.toLowerCase();
  if (STOPWORDS.has(w) || NEGATORS.has(w) || w.length < 2) return null;
  if (/^\d+$/.test(w)) return null; // numbers are examples, not meaning
  const s = stem(w);
  if (STOPWORDS.has(s)) return null;
  return CONCEPT_OF.get(s) ?? CONCEPT_OF.get(w) ?? s;
}

// the same rule and intent texts are analysed for every rollout: remember recent results
const CONCEPT_CACHE = new Map<string, Set<string>>();
const CONCEPT_CACHE_MAX = 4096;

export function concepts(text: string): Set<string> {
  const hit = CONCEPT_CACHE.get(text);
  if (hit) return new Set(hit);
  const out = computeConcepts(text);
  if (CONCEPT_CACHE.size >= CONCEPT_CACHE_MAX) CONCEPT_CACHE.delete(CONCEPT_CACHE.keys().next().value as string);
  CONCEPT_CACHE.set(text, out);
  return new Set(out);
}

function computeConcepts(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of rawWords(text)) {
    const c = conceptOf(w);
    if (c) out.add(c);
  }
  return out;
}

/** true when the text is phrased as a prohibition (odd number of negators). */
export function isNegated(text: string): boolean {
  const words = foldPhrases(text.replace(/\bleave\s+out\b/gi, 'leave_out')).split(/[^a-z']+/);
  let n = 0;
  for (const w of words) if (NEGATORS.has(w)) n++;
  return n % 2 === 1;
}

/** |a ∩ b| */
export function overlap(a: Set<string>, b: Set<string>): number {
  let n = 0;
  for (const x of a) if (b.has(x)) n++;
  return n;
}

export function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const inter = overlap(a, b);
  return inter / (a.size + b.size - inter);
}

/**
 * Same-meaning swaps for rewording: every alternative belongs to the same concept group (so the
 * meaning is kept) and the same part of speech (so the sentence still reads).
 */
const SWAPS: Record<string, string[]> = {
  reference: ['link', 'cite'],
  link: ['reference'],
  cite: ['reference'],
  heading: ['header'],
  header: ['heading'],
  section: ['heading'],
  headline: ['heading'],
  explain: ['clarify', 'justify'],
  run: ['execute'],
  execute: ['run'],
  verify: ['confirm', 'check'],
  confirm: ['verify'],
  check: ['verify'],
  concise: ['brief', 'terse'],
  brief: ['concise', 'short'],
  short: ['brief'],
  silence: ['suppress', 'mute'],
  suppress: ['silence'],
  trailer: ['footer'],
  footer: ['trailer'],
  start: ['begin'],
  begin: ['start'],
  wrap: ['enclose'],
  enclose: ['wrap'],
  steps: ['instructions'],
  summary: ['overview'],
  mock: ['stub'],
  emojis: ['emoticons'],
  import: ['require'],
  require: ['import'],
  use: ['apply'],
  put: ['place'],
  add: ['include'],
  include: ['add'],
  each: ['every'],
  every: ['each'],
};

/**
 * Rewords a sentence with same-meaning swaps ("reference the pull request" → "link the PR"), so
 * the result has the same concepts but is not the same string. Quoted and backticked text stays.
 */
export function paraphrase(text: string, rng: Rng): string {
  const swappable = (part: string): boolean => /[A-Za-z]+/.test(part) && (part.match(/[A-Za-z]+/g) ?? []).some((w) => SWAPS[w.toLowerCase()]);
  let changed = false;
  const swap = (part: string, force: boolean): string =>
    part
      .replace(/\bpull requests?\b/gi, (m) => {
        if (!force && !rng.chance(0.7)) return m;
        changed = true;
        return m.toLowerCase().endsWith('s') ? 'PRs' : 'PR';
      })
      .replace(/[A-Za-z]+/g, (word) => {
        const alts = SWAPS[word.toLowerCase()];
        if (!alts || (force && changed) || (!force && !rng.chance(0.7))) return word;
        changed = true;
        const alt = rng.pick(alts);
        return word[0] === word[0].toUpperCase() ? alt[0].toUpperCase() + alt.slice(1) : alt;
      });
  // quoted and backticked parts, and code written bare (`it.each`, `toMinorUnits()`), are literals
  // the rule depends on: never reworded
  const parts = text.split(/(`[^`]*`|"[^"]*"|(?<![A-Za-z])'[^']*'|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?|[A-Za-z_$][\w$]*\(\))/);
  let out = parts.map((part, i) => (i % 2 === 1 ? part : swap(part, false)));
  if (!changed) {
    // a rewording that changed nothing is not a rewording: swap the first word that can be
    const at = parts.findIndex((part, i) => i % 2 === 0 && swappable(part));
    if (at >= 0) out = out.map((part, i) => (i === at ? swap(part, true) : part));
  }
  return out.join('');
}
