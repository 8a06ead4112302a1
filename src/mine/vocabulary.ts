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
  /** phrases (lower case, words separated by one space; a trailing plural s/es is matched too) */
  phrases: string[];
  /** phrases that name the artefact only when no strong phrase of any group is present */
  weak?: string[];
  /** regular expressions (source, matched on word boundaries) for forms a phrase cannot spell */
  patterns?: string[];
  reason: string;
}

export const VOCABULARY: ConceptGroup[] = [
  {
    concept: 'commit-message',
    kind: 'artefact',
    rank: 9,
    phrases: ['commit message', 'commit msg', 'commit text', 'git commit message', 'git commit', 'commit subject', 'commit body'],
    weak: ['commit'],
    reason: 'the text of one git commit; "commit msg" and "git commit" are how people shorten it',
  },
  {
    concept: 'pr-description',
    kind: 'artefact',
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
    rank: 9,
    phrases: ['release notes', 'release note', 'release text', 'github release', 'release description', 'what s new', 'whats new'],
    reason:
      'a user-facing summary of a version; asked apart from a changelog entry (which records one change as it lands) and from cutting the release itself',
  },
  {
    concept: 'changelog',
    kind: 'artefact',
    rank: 8,
    phrases: ['changelog', 'change log', 'changes file', 'changelog entry', 'changelog line'],
    weak: ['unreleased'],
    reason: 'CHANGELOG.md (normalized to "changelog") and its entries: one change recorded as it lands',
  },
  {
    concept: 'migration',
    kind: 'artefact',
    rank: 8,
    phrases: ['migration', 'schema migration', 'db migration', 'database migration', 'schema change', 'alter table', 'down migration', 'up migration'],
    weak: ['column', 'schema'],
    reason: 'a database schema change as a migration file; "migrate to <package>" is a dependency upgrade, so the verb is not here',
  },
  {
    concept: 'doc-comments',
    kind: 'artefact',
    rank: 8,
    phrases: ['jsdoc', 'tsdoc', 'docstring', 'doc comment', 'doc-comment', 'javadoc'],
    reason: 'documentation written in the code next to a function, asked apart from README or docs pages',
  },
  {
    concept: 'ci',
    kind: 'artefact',
    rank: 7,
    phrases: ['ci', 'pipeline', 'github actions', 'github action', 'actions workflow', 'workflow', 'ci job', 'ci build', 'ci check', 'build pipeline'],
    weak: ['build', 'actions'],
    reason: 'the continuous-integration run and its jobs; a test or lint step failing inside CI is still a CI investigation',
  },
  {
    concept: 'dependency',
    kind: 'artefact',
    rank: 7,
    phrases: ['dependency', 'dependencies', 'dep', 'deps', 'upgrade', 'bump', 'outdated', 'latest version', 'renovate', 'dependabot', 'lockfile', 'lock file', 'npm update', 'package version'],
    reason:
      'moving a package to another version; ranked above lint/types/tests because "bump eslint" or "upgrade vitest" is about the package, not about linting or testing',
  },
  {
    concept: 'lint',
    kind: 'artefact',
    rank: 6,
    phrases: ['lint', 'linter', 'linting', 'eslint', 'prettier', 'lint error', 'lint warning', 'eslintrc', 'biome', 'stylelint'],
    reason: 'style and static-rule checks (eslint, prettier and their configs) and making them pass',
  },
  {
    concept: 'types',
    kind: 'artefact',
    rank: 6,
    phrases: ['typescript', 'tsc', 'typecheck', 'type check', 'type-check', 'type error', 'types', 'typing', 'ts', 'noemit', 'type checking', 'mypy', 'pyright'],
    patterns: ['ts\\d{4}'],
    reason: 'the type checker and its errors: tsc, `npm run typecheck`, TSxxxx error codes',
  },
  {
    concept: 'test',
    kind: 'artefact',
    rank: 5,
    phrases: ['test', 'unit test', 'unit-test', 'spec', 'vitest', 'jest', 'mocha', 'pytest', 'coverage', 'test case', 'test file', 'testing', 'tested'],
    weak: ['cover'],
    reason: 'automated tests of code; "cover X" means write tests for X',
  },
  {
    concept: 'stack-trace',
    kind: 'artefact',
    rank: 5,
    phrases: ['stack trace', 'stacktrace', 'traceback', 'exception', 'backtrace'],
    reason: 'an error report pasted to be explained or diagnosed',
  },
  {
    concept: 'release',
    kind: 'artefact',
    rank: 4,
    phrases: ['release', 'patch release', 'minor release', 'major release', 'publish', 'version bump', 'bump the version', 'npm version', 'new version', 'tag'],
    reason:
      'cutting a version: bump, tag, publish. Ranked low because "release" also names what other jobs are about ("release notes" is matched first and wins)',
  },
  {
    concept: 'docs',
    kind: 'artefact',
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

export interface ConceptMatch {
  /** artefact concepts named, strongest first (the first is the job's artefact) */
  artefacts: string[];
  /** true when the first artefact was named by a strong phrase */
  strong: boolean;
  actions: string[];
  /** the key with every matched phrase removed: the object the job applies to */
  rest: string;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface CompiledPhrase {
  group: ConceptGroup;
  weak: boolean;
  re: RegExp;
  length: number;
}

function compile(groups: ConceptGroup[]): CompiledPhrase[] {
  const out: CompiledPhrase[] = [];
  for (const g of groups) {
    const add = (source: string, weak: boolean, length: number) =>
      out.push({ group: g, weak, re: new RegExp(`(^|[^\\p{L}\\p{N}])(?:${source})(?=$|[^\\p{L}\\p{N}])`, 'gu'), length });
    for (const p of g.phrases) add(phraseSource(p), false, p.length);
    for (const p of g.weak ?? []) add(phraseSource(p), true, p.length);
    for (const p of g.patterns ?? []) add(p, false, 4);
  }
  // longest phrases first, so "release notes" is taken before "release" and "pr description" before "pr"
  return out.sort((a, b) => b.length - a.length);
}

function phraseSource(p: string): string {
  const words = p.split(' ').map(escapeRe);
  const last = words.length - 1;
  words[last] = `${words[last]}(?:s|es|ed|ing)?`;
  return words.join('[\\s_-]+');
}

const COMPILED = compile(VOCABULARY);

/** The concepts a normalized key names, and what is left of it (the object). */
export function matchConcepts(key: string): ConceptMatch {
  let rest = ` ${key} `;
  const strong = new Map<string, { rank: number; at: number }>();
  const weak = new Map<string, { rank: number; at: number }>();
  const actions: string[] = [];
  for (const p of COMPILED) {
    p.re.lastIndex = 0;
    if (!p.re.test(rest)) continue;
    p.re.lastIndex = 0;
    let at = -1;
    rest = rest.replace(p.re, (_m, lead: string, offset: number) => {
      if (at < 0) at = offset;
      return `${lead} `;
    });
    const g = p.group;
    if (g.kind === 'action') {
      if (!actions.includes(g.concept)) actions.push(g.concept);
      continue;
    }
    const into = p.weak ? weak : strong;
    const prev = into.get(g.concept);
    if (!prev || at < prev.at) into.set(g.concept, { rank: g.rank, at });
  }
  for (const c of strong.keys()) weak.delete(c);
  const order = (m: Map<string, { rank: number; at: number }>) =>
    [...m.entries()].sort((a, b) => b[1].rank - a[1].rank || a[1].at - b[1].at).map((e) => e[0]);
  const strongList = order(strong);
  const weakList = order(weak);
  return {
    artefacts: [...strongList, ...weakList],
    strong: strongList.length > 0,
    actions,
    rest: rest.replace(/\s+/g, ' ').trim(),
  };
}
