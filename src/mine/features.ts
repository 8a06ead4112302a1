/**
 * Lexical features of a normalized prompt key: stemmed, canonicalized content words plus character
 * 4-grams of those words (robust to typos and morphology: "linter" ~ "lint"). Words carry full
 * weight, character grams a fraction; boilerplate ("write", "add", "please") is dropped as stopwords.
 * On top, the job an ask is about: the artefact and action it names (vocabulary.ts) weigh more
 * than the object they apply to, so "write vitest cases for X" and "we need tests for Y" compare
 * as one job, and "a changelog entry: fix the leak" and "a commit message: fix the leak" as two.
 */
import { matchConcepts } from './vocabulary.js';

/** English function words plus the filler every request to a coding agent contains. */
const STOPWORDS = new Set(
  (
    'a an the and or but if then else of to in on at by for with from into onto about as is are was were be been being ' +
    'it its this that these those there here i me my we our us you your he she they them their his her ' +
    'do does did done doing have has had having can could would should will shall may might must ' +
    'please pls plz thanks thank hi hello hey ok okay so just also too very really quite some any all ' +
    'what which who whom whose when where why how not no yes can\'t don\'t dont cant won\'t ' +
    'let lets let\'s want wanted need needs like get got make sure go going now again one thing stuff ' +
    'help able kind sort bit little quick quickly real actually maybe perhaps up out over under than ' +
    'e.g etc via per each every other another same new ' +
    'vs versus around given whether between while without within across after before during through ' +
    'because since until unless though although also either neither both only own such more most less least ' +
    'then than there once still yet even ever much many few several one two ' +
    // verbs every request uses: what distinguishes two asks is their object, not "write" or "fix"
    'write add fix create update make give run generate draft prepare suggest show tell provide put do'
  ).split(/\s+/),
);

/** Keep it.each / vi.fn / e2e style tokens whole; split the rest on punctuation. */
const TOKEN_RE = /[\p{L}\p{N}]+(?:[._-][\p{L}\p{N}]+)*/gu;

/** A light suffix stripper: enough to merge tests/testing/tested, entries/entry, fixes/fixed. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y';
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('es') && /(x|ch|sh|ss|zz)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed') && !w.endsWith('eed')) w = w.slice(0, -2);
  if (w.length > 4 && /([^aeiouls])\1$/.test(w)) w = w.slice(0, -1); // running → runn → run
  if (w.length > 5 && w.endsWith('ly')) w = w.slice(0, -2);
  return w;
}

/**
 * Developer shorthand and synonyms mapped to one canonical word, so "bump zod" and "upgrade zod",
 * "fix tsc errors" and "fix TypeScript errors", "PR" and "pull request" compare as the same ask.
 * Keys are stems (see `stem`).
 */
const CANONICAL: Record<string, string> = {
  ts: 'typescript',
  tsc: 'typescript',
  typecheck: 'typescript',
  typescript: 'typescript',
  js: 'javascript',
  msg: 'message',
  pr: 'pull-request',
  mr: 'pull-request',
  bump: 'upgrade',
  eslint: 'lint',
  linter: 'lint',
  lint: 'lint',
  dep: 'dependency',
  deps: 'dependency',
  db: 'database',
  doc: 'documentation',
  docs: 'documentation',
  document: 'documentation',
  documentation: 'documentation',
  repo: 'repository',
  config: 'configuration',
  conf: 'configuration',
  env: 'environment',
  spec: 'test',
  unittest: 'test',
  coverage: 'test',
  err: 'error',
  exception: 'error',
  changelog: 'changelog',
  chnagelog: 'changelog',
  readme: 'readme',
  func: 'function',
  fn: 'function',
  impl: 'implementation',
  perf: 'performance',
  auth: 'authentication',
  k8s: 'kubernetes',
};

export function contentWords(key: string): string[] {
  const out: string[] = [];
  key = key.replace(/\bpull[ -]requests?\b/g, 'pr').replace(/\bmerge requests?\b/g, 'mr').replace(/\bchange ?logs?\b/g, 'changelog');
  for (const m of key.matchAll(TOKEN_RE)) {
    const raw = m[0];
    // compound tokens: keep the whole and, for dotted ones, their parts are not useful alone
    const parts = raw.includes('.') ? [raw] : raw.split(/[_-]/);
    for (const p of parts) {
      if (p.length < 2 || STOPWORDS.has(p) || /^\d+$/.test(p)) continue;
      const st = stem(p);
      if (STOPWORDS.has(st)) continue; // "adding" → "add"
      out.push(CANONICAL[st] ?? st);
    }
  }
  return out;
}

export const CHAR_GRAM_WEIGHT = 0.25;

/**
 * Request verbs say how to help, not with what: "brainstorm X" and "brainstorm Y" are different
 * asks. They keep a small weight (they do distinguish "explain the error" from "fix the error"),
 * so a cluster cannot grow around a verb alone.
 */
const WEAK_WORDS = new Set(
  (
    'explain investigate describe compare analyze analyse review check look find sketch outline brainstorm estimate ' +
    'diagnose debug plan think consider evaluate assess summarize summarise critique simulate visualize prototype ' +
    'benchmark translate reorganize audit improve optimize understand clean refactor implement handle support ' +
    'work use using build set setup change changes question curious idea ideas way ways approach'
  )
    .split(/\s+/)
    .map((w) => stem(w)),
);
export const WEAK_WORD_WEIGHT = 0.3;
export const isWeakWord = (w: string) => WEAK_WORDS.has(w);
const GRAM = 4;

/** A feature: a word (string) or a character gram (its 32-bit hash: cheap to hash and compare). */
export type Term = string | number;
export type Features = Map<Term, number>;

/** Weight of the artefact that names the job (the strongest one an ask names). */
export const JOB_WEIGHT = 4;
/** Weight of any other artefact an ask names ("a changelog entry for PR #12" also names a PR). */
export const OTHER_ARTEFACT_WEIGHT = 1;
/** Weight of the action on the artefact (write, fix, investigate, explain). */
export const ACTION_WEIGHT = 1.5;
/**
 * Weight of the object words (what the job applies to: `parseAmount`, "the auth middleware") when
 * the ask names a job's artefact: enough to tell two jobs apart that the vocabulary does not
 * know, too little to pull two jobs together because they share an object.
 */
export const OBJECT_WEIGHT = 0.35;

/** Concept features are named `@<concept>` (a word to the index, never produced by `contentWords`). */
export const conceptTerm = (concept: string): string => `@${concept}`;

/**
 * Weighted features of a key: the job's artefact and action (from the vocabulary, vocabulary.ts),
 * then the remaining content words and their character 4-grams (padded with '_'). Values are
 * weights; the cosine in cluster.ts multiplies them with `termWeight`.
 */
export function featuresOf(key: string): Features {
  const f: Features = new Map();
  const m = matchConcepts(key);
  m.artefacts.forEach((a, i) => f.set(conceptTerm(a), i === 0 ? JOB_WEIGHT : OTHER_ARTEFACT_WEIGHT));
  for (const a of m.actions) f.set(conceptTerm(`act:${a}`), ACTION_WEIGHT);
  const scale = m.artefacts.length ? OBJECT_WEIGHT : 1;
  for (const w of contentWords(m.rest)) {
    f.set(w, scale);
    if (w.length < GRAM || WEAK_WORDS.has(w)) continue;
    const padded = `_${w}_`;
    for (let i = 0; i + GRAM <= padded.length; i++) {
      let h = 0x811c9dc5;
      for (let j = i; j < i + GRAM; j++) h = Math.imul(h ^ padded.charCodeAt(j), 0x01000193);
      f.set(h | 0, scale);
    }
  }
  return f;
}

export const isWordTerm = (t: Term): t is string => typeof t === 'string';

/** Feature maps as JSON (gram hashes as "#<n>" keys) and back. */
export function termsToJson(m: Features): Record<string, number> {
  const o: Record<string, number> = {};
  for (const [t, n] of m) o[typeof t === 'number' ? `#${t}` : t] = n;
  return o;
}
export function termsFromJson(o: Record<string, number>): Features {
  const m: Features = new Map();
  for (const [k, n] of Object.entries(o)) m.set(k.startsWith('#') ? Number(k.slice(1)) : k, n);
  return m;
}

/** Document-frequency table with a document count, for IDF. */
export interface DfTable {
  docs: number;
  get(term: string): number;
}

export function idf(df: DfTable, term: string): number {
  return Math.log((df.docs + 1) / (df.get(term) + 1)) + 1;
}

/**
 * Weight of a term in the similarity. Deliberately not IDF: in a corpus of recurring asks the words
 * that define a family are frequent by construction (low IDF), while the incidental detail that
 * varies between occurrences (package, table, topic) is rarer (high IDF), so IDF weighting splits
 * families (measured on the labeled corpus: recall 0.60 with IDF vs 0.88 without at equal
 * precision). Stopwords handle the truly common words; IDF still picks the probe words.
 */
export function termWeight(_df: DfTable, term: Term): number {
  if (!isWordTerm(term)) return CHAR_GRAM_WEIGHT;
  return WEAK_WORDS.has(term) ? WEAK_WORD_WEIGHT : 1;
}

/** L2-normalised TF-IDF vector of a count map. */
export function weightedVector(counts: Features, df: DfTable): { vec: Features; norm: number } {
  const vec: Features = new Map();
  let sq = 0;
  for (const [t, c] of counts) {
    const w = c * termWeight(df, t);
    vec.set(t, w);
    sq += w * w;
  }
  return { vec, norm: Math.sqrt(sq) };
}

export function cosine(a: { vec: Features; norm: number }, b: { vec: Features; norm: number }): number {
  if (a.norm === 0 || b.norm === 0) return 0;
  const [small, large] = a.vec.size <= b.vec.size ? [a.vec, b.vec] : [b.vec, a.vec];
  let dot = 0;
  for (const [t, w] of small) {
    const o = large.get(t);
    if (o !== undefined) dot += w * o;
  }
  return dot / (a.norm * b.norm);
}
