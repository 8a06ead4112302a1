/**
 * The software-work vocabulary mining uses to see the job behind the words: which phrases name the
 * same artefact of a recurring job (a test, a changelog entry, a commit message…) or the same
 * action on it. Kept as data, each group with the reason it is one group, so it can be extended
 * without touching the clustering. Matching runs on a normalized prompt key (lower case, paths,
 * numbers and code identifiers already removed: see normalize.ts keyOf).
 *
 * `rank` decides which artefact is the job when an ask names several: the more specific artefact
 * wins ("a changelog entry for PR #949" is a changelog job, "the workflow fails at the test step"
 * a CI job). `weak` phrases name the artefact only when nothing stronger is there ("document X"
 * alone is a docs job; "document X in the changelog" is a changelog job).
 */

export interface ConceptGroup {
  /** feature name of the concept (prefixed with '@' in features) */
  concept: string;
  kind: 'artefact' | 'action';
  /** higher wins when an ask names several artefacts */
  rank: number;
  /** phrases (lower case words; the last word also matches with an -s, -es, -ed or -ing ending) */
  phrases: string[];
  /** phrases that name the artefact only when no strong phrase of any group is present */
  weak?: string[];
  /** regular expressions matched against one whole word, for forms a phrase cannot spell (TS2345) */
  patterns?: string[];
  /** regular expressions matched against the whole key, for names with inner punctuation (`no-unused-vars`) */
  keyPatterns?: string[];
  /** words that name the artefact when they all occur in one ask, whatever sits between ("the notes for the 2.4 release") */
  together?: string[][];
  /**
   * phrases that are also the name of a package (eslint, vitest, typescript): next to a word of a
   * version change (`PACKAGE_CONTEXT`) they name the package being upgraded, not this job
   */
  tools?: string[];
  /** phrases naming a part of the job's work (an upgrade's lockfile), not another instance of the job: "also regenerate the lockfile" reacts to the answer */
  parts?: string[];
  reason: string;
  /** how a skill description names the job (a gerund phrase), by the action the ask names */
  job?: { default: string } & Partial<Record<'write' | 'fix' | 'investigate' | 'explain', string>>;
}

export const VOCABULARY: ConceptGroup[] = [
  {
    concept: 'commit-message',
    kind: 'artefact',
    job: { default: 'writing a commit message' },
    rank: 9,
    phrases: ['commit message', 'commit msg', 'commit text', 'git commit message', 'git commit', 'commit subject', 'commit body'],
    weak: ['commit'],
    reason: 'the text of one git commit; "commit msg" and "git commit" are how people shorten it',
  },
  {
    concept: 'pr-description',
    kind: 'artefact',
    job: { default: 'writing a pull request description' },
    rank: 9,
    phrases: [
      'pr description',
      'pull request description',
      'pr body',
      'pull request body',
      'pr template',
      'pull request template',
      'description of the pr',
      'description of pr',
      'description of the pull request',
      'mr description',
      'merge request description',
    ],
    weak: ['pull request', 'pr', 'merge request', 'mr'],
    reason:
      'the text that presents a branch for review; a bare "PR" usually only names which change another job is about ("a changelog entry for PR #12"), so alone it is weak',
  },
  {
    concept: 'release-notes',
    kind: 'artefact',
    job: { default: 'writing release notes' },
    rank: 9,
    phrases: ['release notes', 'release note', 'release text', 'github release', 'release description', 'release announcement', 'what s new', 'whats new'],
    together: [
      ['notes', 'release'],
      ['announcement', 'release'],
    ],
    reason:
      'a user-facing summary of a version; asked apart from a changelog entry (which records one change as it lands) and from cutting the release itself',
  },
  {
    concept: 'changelog',
    kind: 'artefact',
    job: { default: 'writing a CHANGELOG entry' },
    rank: 8,
    phrases: ['changelog', 'change log', 'changes file', 'changelog entry', 'changelog line'],
    weak: ['unreleased'],
    reason: 'CHANGELOG.md (normalized to "changelog") and its entries: one change recorded as it lands',
  },
  {
    concept: 'migration',
    kind: 'artefact',
    job: { default: 'writing a database migration' },
    rank: 8,
    phrases: ['migration', 'schema migration', 'db migration', 'database migration', 'schema change', 'alter table', 'down migration', 'up migration'],
    weak: ['column', 'schema'],
    reason: 'a database schema change as a migration file; "migrate to <package>" is a dependency upgrade, so the verb is not here',
  },
  {
    concept: 'doc-comments',
    kind: 'artefact',
    job: { default: 'writing doc comments (JSDoc) for code' },
    rank: 8,
    phrases: ['jsdoc', 'tsdoc', 'docstring', 'doc comment', 'doc-comment', 'javadoc'],
    reason: 'documentation written in the code next to a function, asked apart from README or docs pages',
  },
  {
    concept: 'ci',
    kind: 'artefact',
    job: { default: 'investigating a failing CI run' },
    rank: 7,
    phrases: ['ci', 'pipeline', 'github actions', 'github action', 'actions workflow', 'workflow', 'ci job', 'ci build', 'ci check', 'build pipeline'],
    weak: ['build', 'actions'],
    reason: 'the continuous-integration run and its jobs; a test or lint step failing inside CI is still a CI investigation',
  },
  {
    concept: 'dependency',
    kind: 'artefact',
    job: { default: 'upgrading a dependency' },
    rank: 7,
    phrases: [
      'dependency',
      'dependencies',
      'dep',
      'deps',
      'upgrade',
      'outdated',
      'latest version',
      'newest version',
      'newest release',
      'up to date',
      'versions behind',
      'renovate',
      'dependabot',
      'lockfile',
      'lock file',
      'npm update',
      'package version',
    ],
    weak: ['bump'],
    parts: ['lockfile', 'lock file'],
    reason:
      'moving a package to another version; ranked above lint/types/tests because "bump eslint" or "upgrade vitest" is about the package, not about linting or testing. A bare "bump" is weak: "bump to 2.4.0" and "bump the version" cut a release',
  },
  {
    concept: 'lint',
    kind: 'artefact',
    job: { default: 'fixing lint errors' },
    rank: 6,
    phrases: ['lint', 'linter', 'linting', 'eslint', 'prettier', 'lint error', 'lint warning', 'eslintrc', 'biome', 'stylelint'],
    // (no-unused-vars, but not "a no-op": a no- rule id has two parts after "no")
    keyPatterns: ['\\bno-[a-z]+(?:-[a-z]+)+\\b|\\b(?:prefer|require)-[a-z]+(?:-[a-z]+)*\\b'],
    tools: ['eslint', 'prettier', 'biome', 'stylelint'],
    reason:
      'style and static-rule checks (eslint, prettier and their configs) and making them pass; a rule id such as no-unused-vars or prefer-const names a lint failure',
  },
  {
    concept: 'types',
    kind: 'artefact',
    job: { default: 'fixing TypeScript type errors' },
    rank: 6,
    phrases: ['typescript', 'tsc', 'typecheck', 'type check', 'type-check', 'type error', 'types', 'typing', 'ts', 'noemit', 'type checking', 'mypy', 'pyright'],
    patterns: ['ts\\d{4}'],
    tools: ['typescript', 'mypy', 'pyright'],
    reason: 'the type checker and its errors: tsc, `npm run typecheck`, TSxxxx error codes',
  },
  {
    concept: 'test',
    kind: 'artefact',
    job: { default: 'writing unit tests', fix: 'fixing failing tests', investigate: 'finding out why tests fail' },
    rank: 5,
    phrases: ['test', 'unit test', 'unit-test', 'spec', 'vitest', 'jest', 'mocha', 'pytest', 'coverage', 'test case', 'test file', 'testing', 'tested'],
    weak: ['cover'],
    tools: ['vitest', 'jest', 'mocha', 'pytest'],
    reason: 'automated tests of code; "cover X" means write tests for X',
  },
  {
    concept: 'stack-trace',
    kind: 'artefact',
    job: { default: 'explaining a stack trace or an exception' },
    rank: 5,
    phrases: ['stack trace', 'stacktrace', 'traceback', 'exception', 'backtrace'],
    reason: 'an error report pasted to be explained or diagnosed',
  },
  {
    concept: 'release',
    kind: 'artefact',
    job: { default: 'cutting a release (version bump, tag, publish)' },
    rank: 4,
    phrases: ['release', 'patch release', 'minor release', 'major release', 'publish', 'version bump', 'bump the version', 'bump version', 'bump to', 'npm version', 'new version', 'tag'],
    reason:
      'cutting a version: bump, tag, publish. Ranked low because "release" also names what other jobs are about ("release notes" is matched first and wins)',
  },
  {
    concept: 'docs',
    kind: 'artefact',
    job: { default: 'updating the README or the docs' },
    rank: 3,
    phrases: ['readme', 'docs', 'documentation', 'doc page', 'docs page', 'usage section'],
    weak: ['document'],
    reason: 'README and documentation pages; the verb "document" names the job only when no other artefact is named',
  },
  {
    concept: 'write',
    kind: 'action',
    rank: 0,
    phrases: ['write', 'add', 'draft', 'compose', 'create', 'generate', 'prepare', 'fill in', 'fill out', 'put together', 'give me', 'suggest', 'come up with'],
    reason: 'producing a new artefact',
  },
  {
    concept: 'fix',
    kind: 'action',
    rank: 0,
    phrases: ['fix', 'resolve', 'sort out', 'repair', 'clean up', 'pass', 'passing', 'fail', 'fails', 'failing', 'red', 'broken', 'broke', 'complain', 'complains', 'error', 'errors', 'warning', 'problem'],
    reason: 'making a failing check pass: the words describe the failure or ask for the repair',
  },
  {
    concept: 'investigate',
    kind: 'action',
    rank: 0,
    phrases: ['why', 'investigate', 'find out', 'figure out', 'diagnose', 'debug', 'what broke', 'what happened', 'look at', 'logs'],
    reason: 'finding the cause of something rather than producing an artefact',
  },
  {
    concept: 'explain',
    kind: 'action',
    rank: 0,
    phrases: ['explain', 'understand', 'what does', 'mean'],
    reason: 'asking for an explanation',
  },
];

/**
 * Words of a version change. A tool's name (`tools` above) in an ask with one of them names a
 * package ("update typescript to its newest release", "vitest needs a version bump", "migrate to
 * eslint 9"): the job is the upgrade and the tool is its object. Unless the word after the tool
 * says it is the tool's own setup or output ("update the eslint config", "typescript errors").
 */
export const PACKAGE_CONTEXT = {
  words: ['update', 'upgrade', 'bump', 'install', 'uninstall', 'downgrade', 'pin', 'migrate', 'version', 'versions', 'latest', 'newest', 'outdated', 'behind'],
  notAfter: ['config', 'configuration', 'rule', 'rules', 'error', 'errors', 'warning', 'warnings', 'setting', 'settings', 'check', 'step', 'job', 'types', 'type', 'cases', 'case', 'test', 'tests', 'spec', 'specs'],
  reason: 'a tool is also a package: next to a version change its name is what is upgraded',
};

export interface ConceptMatch {
  /** artefact concepts named, strongest first (the first is the job's artefact) */
  artefacts: string[];
  /** true when the first artefact was named by a strong phrase */
  strong: boolean;
  /** strong artefacts named as what the job produces, not only by a part of its work (`parts`) */
  products: string[];
  actions: string[];
  /** the key with every matched phrase removed: the object the job applies to */
  rest: string;
}

interface PhraseEntry {
  group: ConceptGroup;
  weak: boolean;
  tokens: string[];
  /** the phrase is a tool's name (a package too) */
  tool?: boolean;
  /** the phrase names a part of the job's work */
  part?: boolean;
}

const TOKEN_RE = /[\p{L}\p{N}]+/gu;
const SUFFIXES = ['s', 'es', 'ed', 'ing'];

/**
 * Phrases indexed by their first word, longest first, so one left-to-right walk over an ask's
 * words takes "release notes" before "release" and "pr description" before "pr" (mining runs this
 * on every ask: a map lookup per word rather than a regex per phrase).
 */
interface Compiled {
  byFirst: Map<string, PhraseEntry[]>;
  patterns: Array<{ re: RegExp; entry: PhraseEntry }>;
  keyPatterns: Array<{ re: RegExp; group: ConceptGroup }>;
  together: Array<{ words: string[]; group: ConceptGroup }>;
  packageWords: Set<string>;
  notAfterTool: Set<string>;
}

function compile(groups: ConceptGroup[]): Compiled {
  const byFirst = new Map<string, PhraseEntry[]>();
  const patterns: Array<{ re: RegExp; entry: PhraseEntry }> = [];
  const keyPatterns: Array<{ re: RegExp; group: ConceptGroup }> = [];
  const together: Array<{ words: string[]; group: ConceptGroup }> = [];
  for (const g of groups) {
    const tools = new Set(g.tools ?? []);
    const parts = new Set(g.parts ?? []);
    const add = (p: string, weak: boolean) => {
      const tokens = p.match(TOKEN_RE) ?? [];
      const first = tokens[0];
      if (first === undefined) return;
      const list = byFirst.get(first) ?? [];
      list.push({ group: g, weak, tokens, tool: tools.has(p), part: parts.has(p) });
      byFirst.set(first, list);
    };
    for (const p of g.phrases) add(p, false);
    for (const p of g.weak ?? []) add(p, true);
    for (const p of g.patterns ?? []) patterns.push({ re: new RegExp(`^(?:${p})$`, 'u'), entry: { group: g, weak: false, tokens: [] } });
    for (const p of g.keyPatterns ?? []) keyPatterns.push({ re: new RegExp(p, 'u'), group: g });
    for (const words of g.together ?? []) together.push({ words, group: g });
  }
  for (const list of byFirst.values()) list.sort((a, b) => b.tokens.length - a.tokens.length || b.tokens.join(' ').length - a.tokens.join(' ').length);
  return { byFirst, patterns, keyPatterns, together, packageWords: new Set(PACKAGE_CONTEXT.words), notAfterTool: new Set(PACKAGE_CONTEXT.notAfter) };
}

const COMPILED = compile(VOCABULARY);

/** A word of the ask matches a phrase's word, the last one also with a plural or verb ending. */
function wordMatches(word: string, want: string, last: boolean): boolean {
  if (word === want) return true;
  if (!last || !word.startsWith(want)) return false;
  return SUFFIXES.includes(word.slice(want.length));
}

/** A word of the ask is one of `set`, also with a plural or verb ending. */
function inWordSet(word: string, set: Set<string>): boolean {
  if (set.has(word)) return true;
  for (const suf of SUFFIXES) if (word.length > suf.length + 2 && word.endsWith(suf) && set.has(word.slice(0, -suf.length))) return true;
  return false;
}

/** The concepts a normalized key names, and what is left of it (the object). */
export function matchConcepts(key: string): ConceptMatch {
  const strong = new Map<string, { rank: number; at: number }>();
  const weak = new Map<string, { rank: number; at: number }>();
  const actions: string[] = [];
  const words: Array<{ w: string; start: number; end: number }> = [];
  for (const m of key.matchAll(TOKEN_RE)) words.push({ w: m[0], start: m.index, end: m.index + m[0].length });
  // a tool named next to a version change is the package upgraded (PACKAGE_CONTEXT)
  const versionChange = words.some((x) => inWordSet(x.w, COMPILED.packageWords)) || /up to date/.test(key);
  const dependency = VOCABULARY.find((g) => g.concept === 'dependency');
  const products = new Set<string>();
  let rest = '';
  let last = 0;
  for (let i = 0; i < words.length; ) {
    const w = words[i].w;
    let hit: PhraseEntry | undefined;
    let len = 0;
    const firsts = [w];
    for (const suf of SUFFIXES) if (w.length > suf.length + 1 && w.endsWith(suf)) firsts.push(w.slice(0, -suf.length));
    for (const first of firsts) {
      for (const e of COMPILED.byFirst.get(first) ?? []) {
        const n = e.tokens.length;
        if (i + n > words.length || (n > 1 && first !== w)) continue;
        let ok = true;
        for (let k = 0; k < n && ok; k++) ok = wordMatches(words[i + k].w, e.tokens[k], k === n - 1);
        if (ok && n > len) {
          hit = e;
          len = n;
        }
      }
    }
    if (!hit) {
      const p = COMPILED.patterns.find((x) => x.re.test(w));
      if (p) {
        hit = p.entry;
        len = 1;
      }
    }
    if (!hit) {
      i++;
      continue;
    }
    const at = words[i].start;
    const next = words[i + len]?.w;
    if (hit.tool && versionChange && dependency && !(next !== undefined && COMPILED.notAfterTool.has(next))) {
      // the package's name stays in the object; the job is the upgrade
      i += len;
      products.add(dependency.concept);
      const prev = strong.get(dependency.concept);
      if (!prev || at < prev.at) strong.set(dependency.concept, { rank: dependency.rank, at });
      continue;
    }
    rest += key.slice(last, at) + ' ';
    last = words[i + len - 1].end;
    i += len;
    const g = hit.group;
    if (g.kind === 'action') {
      if (!actions.includes(g.concept)) actions.push(g.concept);
      continue;
    }
    if (!hit.weak && !hit.part) products.add(g.concept);
    const into = hit.weak ? weak : strong;
    const prev = into.get(g.concept);
    if (!prev || at < prev.at) into.set(g.concept, { rank: g.rank, at });
  }
  rest += key.slice(last);
  for (const p of COMPILED.keyPatterns) {
    const m = p.re.exec(key);
    if (m && !strong.has(p.group.concept)) strong.set(p.group.concept, { rank: p.group.rank, at: m.index });
    if (m) products.add(p.group.concept);
  }
  for (const t of COMPILED.together) {
    if (strong.has(t.group.concept)) continue;
    const at = t.words.map((w) => words.find((x) => x.w === w || (x.w.startsWith(w) && SUFFIXES.includes(x.w.slice(w.length))))?.start);
    if (!at.every((a) => a !== undefined)) continue;
    strong.set(t.group.concept, { rank: t.group.rank, at: Math.min(...(at as number[])) });
    products.add(t.group.concept);
  }
  for (const c of strong.keys()) weak.delete(c);
  const order = (m: Map<string, { rank: number; at: number }>) =>
    [...m.entries()].sort((a, b) => b[1].rank - a[1].rank || a[1].at - b[1].at).map((e) => e[0]);
  const strongList = order(strong);
  const weakList = order(weak);
  return {
    artefacts: [...strongList, ...weakList],
    strong: strongList.length > 0,
    products: strongList.filter((c) => products.has(c)),
    actions,
    rest: rest.replace(/\s+/g, ' ').trim(),
  };
}

/** The job an ask is, as a gerund phrase for a skill description ("writing a CHANGELOG entry"), if the vocabulary knows it. */
export function jobPhrase(key: string): string | null {
  const m = matchConcepts(key);
  if (!m.artefacts.length) return null;
  const group = VOCABULARY.find((g) => g.concept === m.artefacts[0]);
  if (!group?.job) return null;
  for (const a of m.actions) {
    const phrase = group.job[a as 'write' | 'fix' | 'investigate' | 'explain'];
    if (phrase) return phrase;
  }
  return group.job.default;
}
