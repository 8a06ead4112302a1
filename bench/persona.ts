/**
 * A simulated user persona: a TypeScript developer who keeps asking for the same eight kinds of
 * work and has preferences of three kinds, so generalisation can be measured:
 *  - visible: a check the loop sees on train/val (its description reaches the optimizer);
 *  - correction: the loop only sees the user's own words, as a quoted correction in a rubric
 *    graded by the judge role (there is no check to read);
 *  - instance: the right value depends on the instance (this PR's number, this version). In the
 *    generic world train and val check the shape under a generic description; in the
 *    instance-valued world (`instanceChecks: 'valued'`, the bench's default) they check this
 *    instance's own value under a description that states it, as a check mined from that
 *    session would; test always checks the exact value.
 * Test instances are scored by stricter verifiers than the visible checks: every preference as a
 * rule check with the instance's own values. Used by the trainer bench, tests and the replay
 * bench, always with the `sim` backend.
 *
 * `PERSONA_RULES` is the ground truth: a hand-written skill built from it is the oracle.
 */
import type { Check, Task, Split } from '../src/core/records.js';
import { stableId } from '../src/core/ids.js';
import { DEFAULT_COMMAND_TOOL } from '../src/core/tool-kinds.js';
import { Rng } from '../src/llm/sim/rng.js';
import type { Subject } from '../src/llm/sim/jobs.js';

export type PreferenceKind = 'visible' | 'correction' | 'instance';

type CheckDef = Omit<Check, 'id' | 'weight' | 'sealed'>;

interface Preference {
  id: string;
  kind: PreferenceKind;
  /** the check the loop sees on train/val (visible and instance kinds) */
  visible?: CheckDef & { description: string };
  /** what the user said (correction kind): the loop sees only this, in a rubric */
  correction?: string;
  /** the test verifier, with the instance's own values */
  strict: (s: Subject) => CheckDef;
  /**
   * instance kind, in the instance-valued world: the train/val check as the product derives it
   * from one session ("it's PR #412: `(#412)`"), carrying that session's value in its test and in
   * its description. A notepad that pastes it hard-codes one instance.
   */
  valued?: (s: Subject) => CheckDef & { description: string };
}

interface Job {
  key: string;
  intent: (s: Subject) => string;
  context: (s: Subject) => string;
  prefs: Preference[];
}

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const JOBS: Job[] = [
  {
    key: 'changelog',
    intent: (s) => `Write the CHANGELOG.md entry for this change: ${s.change} (PR #${s.pr}).`,
    context: (s) => `The repository keeps a CHANGELOG.md at the root. Package: ${s.pkg}.`,
    prefs: [
      {
        id: 'changelog-unreleased',
        kind: 'visible',
        visible: { op: 'section_present', value: 'Unreleased', description: 'Put new changelog entries under an `## [Unreleased]` heading at the top' },
        strict: () => ({ op: 'regex', value: '^## \\[Unreleased\\]', flags: 'm' }),
      },
      {
        id: 'changelog-category',
        kind: 'visible',
        visible: { op: 'regex', value: '^### (Added|Changed|Fixed|Removed)', flags: 'm', description: 'Group each changelog entry under a Keep a Changelog category subheading such as `### Added` or `### Fixed`' },
        strict: () => ({ op: 'regex', value: '^### (Added|Changed|Fixed|Removed)', flags: 'm' }),
      },
      {
        id: 'changelog-pr-ref',
        kind: 'instance',
        visible: { op: 'regex', value: '\\(#\\d+\\)', description: 'Reference the pull request number in parentheses after each changelog item' },
        strict: (s) => ({ op: 'contains', value: `(#${s.pr})` }),
        valued: (s) => ({ op: 'contains', value: `(#${s.pr})`, description: `Reference the pull request in parentheses after each changelog item: \`(#${s.pr})\`` }),
      },
      { id: 'changelog-no-emoji', kind: 'correction', correction: 'please no emojis in the changelog, keep it plain', strict: () => ({ op: 'not_contains', value: '🎉' }) },
    ],
  },
  {
    key: 'tests',
    intent: (s) => `Write unit tests with vitest for the \`${s.fn}\` function in src/${s.file}.ts.`,
    context: (s) => `src/${s.file}.ts exports ${s.fn}(input). The project uses ESM and TypeScript.`,
    prefs: [
      {
        id: 'tests-import',
        kind: 'visible',
        visible: { op: 'contains', value: "from 'vitest'", description: "Import describe, it and expect explicitly in unit tests: `import { describe, it, expect } from 'vitest'`" },
        strict: () => ({ op: 'contains', value: "from 'vitest'" }),
      },
      {
        id: 'tests-each',
        kind: 'visible',
        visible: { op: 'contains', value: 'it.each', description: 'Cover input variants in unit tests with table-driven `it.each` cases' },
        strict: () => ({ op: 'contains', value: 'it.each' }),
      },
      { id: 'tests-no-jest', kind: 'correction', correction: 'stop using `jest.fn`, this repo is on vitest', strict: () => ({ op: 'not_contains', value: 'jest.' }) },
      {
        id: 'tests-describe',
        kind: 'instance',
        visible: { op: 'regex', value: "describe\\(['\"]", description: 'Wrap the unit test cases in a describe block named after the function' },
        strict: (s) => ({ op: 'contains', value: `describe('${s.fn}'` }),
        valued: (s) => ({ op: 'contains', value: `describe('${s.fn}'`, description: `Wrap the unit test cases in a \`describe('${s.fn}', () => {\` block` }),
      },
    ],
  },
  {
    key: 'lint',
    intent: (s) => `Fix the ESLint errors reported in src/${s.file}.ts.`,
    context: (s) => `npx eslint src/${s.file}.ts reports no-unused-vars and prefer-const errors.`,
    prefs: [
      {
        id: 'lint-root-cause',
        kind: 'visible',
        visible: { op: 'section_present', value: 'Root cause', description: 'Explain the root cause of lint errors under a `## Root cause` heading' },
        strict: () => ({ op: 'section_present', value: 'Root cause' }),
      },
      { id: 'lint-no-disable', kind: 'correction', correction: "don't just slap `eslint-disable` on it, fix the code", strict: () => ({ op: 'not_contains', value: 'eslint-disable' }) },
      {
        id: 'lint-run',
        kind: 'visible',
        visible: { op: 'tool_called', value: DEFAULT_COMMAND_TOOL, description: 'Run the linter in the shell afterwards to verify a lint fix' },
        strict: () => ({ op: 'tool_called', value: DEFAULT_COMMAND_TOOL }),
      },
      {
        id: 'lint-concise',
        kind: 'visible',
        visible: { op: 'max_chars', value: 400, description: 'Keep lint fix replies concise: at most 400 characters' },
        strict: () => ({ op: 'max_chars', value: 400 }),
      },
    ],
  },
  {
    key: 'release',
    intent: (s) => `Draft the release notes for version ${s.version} of the ${s.pkg} package.`,
    context: (s) => `Merged since the last release: ${s.change}; PR #${s.pr}.`,
    prefs: [
      {
        id: 'release-title',
        kind: 'instance',
        visible: { op: 'starts_with', value: '# Release v', description: 'Start release notes with a `# Release vX.Y.Z` title line' },
        strict: (s) => ({ op: 'starts_with', value: `# Release v${s.version}` }),
        valued: (s) => ({ op: 'starts_with', value: `# Release v${s.version}`, description: `Start release notes with the title line \`# Release v${s.version}\`` }),
      },
      {
        id: 'release-breaking',
        kind: 'visible',
        visible: { op: 'section_contains', value: 'Breaking changes', needle: 'Migration', description: 'List breaking changes with migration steps in a `## Breaking changes` section of the release notes' },
        strict: () => ({ op: 'section_contains', value: 'Breaking changes', needle: 'Migration' }),
      },
      {
        id: 'release-highlights',
        kind: 'visible',
        visible: { op: 'section_present', value: 'Highlights', description: 'Add a `## Highlights` section to release notes for the top features' },
        strict: () => ({ op: 'section_present', value: 'Highlights' }),
      },
      { id: 'release-json', kind: 'correction', correction: 'the release bot needs a fenced json block in the release notes, add it', strict: () => ({ op: 'json_valid' }) },
    ],
  },
  {
    key: 'commit',
    intent: (s) => `Write the git commit message for: ${s.change}.`,
    context: (s) => `The staged diff is ready; the repository follows the DCO. Author: ${s.author} <${s.email}>.`,
    prefs: [
      {
        id: 'commit-conventional',
        kind: 'visible',
        visible: { op: 'regex', value: '^(feat|fix|docs|refactor|test|chore)(\\([a-z-]+\\))?: \\S', description: 'Start commit messages with a Conventional Commits type prefix such as `feat:` or `fix:`' },
        strict: () => ({ op: 'regex', value: '^(feat|fix|docs|refactor|test|chore)(\\([a-z-]+\\))?: \\S' }),
      },
      {
        id: 'commit-signoff',
        kind: 'instance',
        visible: { op: 'regex', value: 'Signed-off-by: \\S.* <\\S+@\\S+>', description: 'End commit messages with a DCO Signed-off-by trailer' },
        strict: (s) => ({ op: 'contains', value: `Signed-off-by: ${s.author} <${s.email}>` }),
        valued: (s) => ({ op: 'contains', value: `Signed-off-by: ${s.author} <${s.email}>`, description: `End commit messages with the DCO trailer \`Signed-off-by: ${s.author} <${s.email}>\`` }),
      },
      {
        id: 'commit-brief',
        kind: 'visible',
        visible: { op: 'max_chars', value: 300, description: 'Keep commit messages brief: at most 300 characters' },
        strict: () => ({ op: 'max_chars', value: 300 }),
      },
      { id: 'commit-no-wip', kind: 'correction', correction: "do not write 'WIP' in commit messages", strict: () => ({ op: 'not_contains', value: 'WIP', caseSensitive: true }) },
    ],
  },
  {
    key: 'pr',
    intent: (s) => `Summarize pull request #${s.pr} (${s.change}) for the reviewers.`,
    context: (s) => `The diff touches src/${s.file}.ts and its tests.`,
    prefs: [
      {
        id: 'pr-risk',
        kind: 'visible',
        visible: { op: 'section_present', value: 'Risk', description: 'Give PR summaries a `## Risk` section stating the risk level' },
        strict: () => ({ op: 'section_present', value: 'Risk' }),
      },
      {
        id: 'pr-testing',
        kind: 'visible',
        visible: { op: 'section_present', value: 'Testing', description: 'Add a `## Testing` section to PR summaries saying how to verify locally' },
        strict: () => ({ op: 'section_present', value: 'Testing' }),
      },
      { id: 'pr-length', kind: 'correction', correction: 'way too long, keep PR summaries under 500 characters', strict: () => ({ op: 'max_chars', value: 500 }) },
      {
        id: 'pr-number',
        kind: 'instance',
        visible: { op: 'regex', value: 'PR #\\d+', description: 'Name the pull request as `PR #<number>` in PR summaries' },
        strict: (s) => ({ op: 'contains', value: `PR #${s.pr}` }),
        valued: (s) => ({ op: 'contains', value: `PR #${s.pr}`, description: `Name the pull request as \`PR #${s.pr}\` in PR summaries` }),
      },
    ],
  },
  {
    key: 'docs',
    intent: (s) => `Write the README usage docs for the ${s.pkg} package.`,
    context: (s) => `Package: ${s.pkg}. Entry point: src/index.ts.`,
    prefs: [
      {
        id: 'docs-usage',
        kind: 'visible',
        visible: { op: 'section_present', value: 'Usage', description: 'Put README usage docs under a `## Usage` heading' },
        strict: () => ({ op: 'section_present', value: 'Usage' }),
      },
      {
        id: 'docs-install',
        kind: 'instance',
        visible: { op: 'regex', value: 'npm install [\\w@/-]+', description: 'Show the install command `npm install <package>` in the docs' },
        strict: (s) => ({ op: 'contains', value: `npm install ${s.pkg}` }),
        valued: (s) => ({ op: 'contains', value: `npm install ${s.pkg}`, description: `Show the install command \`npm install ${s.pkg}\` in the docs` }),
      },
      { id: 'docs-no-simply', kind: 'correction', correction: "never write 'simply' in the docs, it reads as condescending", strict: () => ({ op: 'not_contains', value: 'simply' }) },
      {
        id: 'docs-example',
        kind: 'visible',
        visible: { op: 'section_present', value: 'Example', description: 'Add an `## Example` section to the docs' },
        strict: () => ({ op: 'section_present', value: 'Example' }),
      },
    ],
  },
  {
    key: 'bugfix',
    intent: (s) => `Fix the bug reported in issue #${s.issue}: ${s.change} is broken.`,
    context: (s) => `src/${s.file}.ts is where it fails. The test suite runs with npm test.`,
    prefs: [
      {
        id: 'bugfix-repro',
        kind: 'visible',
        visible: { op: 'section_present', value: 'Reproduction', description: 'Describe how to reproduce the bug under a `## Reproduction` heading' },
        strict: () => ({ op: 'section_present', value: 'Reproduction' }),
      },
      {
        id: 'bugfix-run',
        kind: 'visible',
        visible: { op: 'tool_called', value: DEFAULT_COMMAND_TOOL, description: 'Run the tests in the shell after a bug fix' },
        strict: () => ({ op: 'tool_called', value: DEFAULT_COMMAND_TOOL }),
      },
      {
        id: 'bugfix-fixes',
        kind: 'instance',
        visible: { op: 'regex', value: 'Fixes #\\d+', description: 'End bug fix reports with a `Fixes #<issue>` line' },
        strict: (s) => ({ op: 'regex', value: `Fixes #${esc(String(s.issue))}\\b` }),
        valued: (s) => ({ op: 'regex', value: `Fixes #${esc(String(s.issue))}\\b`, description: `End bug fix reports with a \`Fixes #${s.issue}\` line` }),
      },
      { id: 'bugfix-prefix', kind: 'correction', correction: "start bug fix reports with 'Fix:' so I can scan them", strict: () => ({ op: 'starts_with', value: 'Fix:' }) },
    ],
  },
];

/** Ground-truth rules per job, as the user would write them in a skill (the oracle). */
export const PERSONA_RULES: Record<string, string[]> = {
  changelog: [
    'Put new entries under an `## [Unreleased]` heading at the top.',
    'Group entries under Keep a Changelog category subheadings such as `### Added` or `### Fixed`.',
    'Reference the pull request number in parentheses after each item, e.g. `(#123)`.',
    'No emojis in changelog entries.',
  ],
  tests: [
    "Import describe, it and expect explicitly: `import { describe, it, expect } from 'vitest'`.",
    'Cover input variants with table-driven `it.each` cases.',
    'Never use jest APIs such as `jest.fn`.',
    "Wrap the cases in a `describe('<function>')` block named after the function.",
  ],
  lint: [
    'Explain the root cause under a `## Root cause` heading.',
    'Never silence rules with `eslint-disable` comments.',
    'Run the linter in the shell afterwards to verify the fix.',
    'Keep the reply concise: at most 400 characters.',
  ],
  release: [
    'Start with a `# Release vX.Y.Z` title line.',
    'List breaking changes with migration steps in a `## Breaking changes` section.',
    'Add a `## Highlights` section for the top features.',
    'Attach a fenced JSON block for the release bot.',
  ],
  commit: [
    'Start with a Conventional Commits type prefix such as `feat:` or `fix:`.',
    'End with a DCO `Signed-off-by: Name <email>` trailer.',
    'Keep commit messages brief: at most 300 characters.',
    "Never write 'WIP' in commit messages.",
  ],
  pr: [
    'Add a `## Risk` section stating the risk level.',
    'Add a `## Testing` section saying how to verify locally.',
    'Keep PR summaries under 500 characters.',
    'Name the pull request as `PR #123`, e.g. its own number.',
  ],
  docs: [
    'Put usage under a `## Usage` heading.',
    'Show the install command, e.g. `npm install <package>`.',
    "Never write 'simply'.",
    'Add an `## Example` section.',
  ],
  bugfix: [
    "Start bug fix reports with 'Fix:'.",
    'Describe how to reproduce the bug under a `## Reproduction` heading.',
    'Run the tests in the shell after the fix.',
    'End with a `Fixes #<issue>` line.',
  ],
};

const SECTION_TITLE: Record<string, string> = {
  changelog: 'Changelog entries',
  tests: 'Unit tests',
  lint: 'Lint fixes',
  release: 'Release notes',
  commit: 'Commit messages',
  pr: 'PR summaries',
  docs: 'Docs',
  bugfix: 'Bug fix reports',
};

/** The oracle: every preference, scoped to its job, with its operative values. */
export function personaIdealSkill(): string {
  const sections = Object.entries(PERSONA_RULES).map(([k, rules]) => `## ${SECTION_TITLE[k]}\n${rules.map((r) => `- ${r}`).join('\n')}`);
  return `# Team conventions\n\n${sections.join('\n\n')}\n`;
}

/**
 * The learning-free bar: every visible check's description pasted verbatim, one bullet each.
 * Given the tasks the loop sees (train + val), every distinct description they carry, in order of
 * first appearance, values included, as a notepad would paste them; `onePerCheck` keeps one bullet
 * per check (its latest wording), the shorter notepad that overwrites a note instead of adding one.
 * Without tasks: the generic world's descriptions (the same text the generic world's tasks give).
 */
export function personaVisibleChecksSkill(seen?: Task[], opts: { onePerCheck?: boolean } = {}): string {
  const generic = (): string[] => JOBS.flatMap((j) => j.prefs.filter((p) => p.visible).map((p) => `${p.visible?.description}`));
  const byKey = new Map<string, string>();
  for (const t of seen ?? []) {
    for (const c of t.judge.checks) {
      if (c.sealed || !c.description) continue;
      const key = opts.onePerCheck ? c.id : c.description;
      // a note overwritten keeps its place in the list (Map order is first insertion)
      if (opts.onePerCheck || !byKey.has(key)) byKey.set(key, c.description);
    }
  }
  const lines = seen ? [...byKey.values()] : generic();
  return `# Checks\n\n${lines.map((l) => `- ${l}.`).join('\n')}\n`;
}

/** What a note-taking memory would write: the user's corrections pasted verbatim. */
export function personaCorrectionsSkill(): string {
  const lines = JOBS.flatMap((j) => j.prefs.filter((p) => p.correction).map((p) => `- ${p.correction}`));
  return `# Notes from corrections\n\n${lines.join('\n')}\n`;
}

/** Which kind of preference each check id stands for (reports per preference type). */
export const PREFERENCE_KIND: Record<string, PreferenceKind> = Object.fromEntries(JOBS.flatMap((j) => j.prefs.map((p) => [p.id, p.kind])));

const CHANGES = [
  'add retry with backoff to the HTTP client',
  'fix the crash when the config file is empty',
  'remove the deprecated --legacy flag',
  'support ESM-only plugins',
  'speed up the cache lookup',
  'change the default log level to warn',
  'handle Windows paths in the watcher',
  'add a --json flag to the status command',
  'fix the memory leak in the scheduler',
  'rename the sync command to pull',
  'drop Node 18 support',
  'add OpenTelemetry tracing hooks',
];
const FUNCTIONS = ['parseDuration', 'slugify', 'mergeConfig', 'formatBytes', 'retryWithBackoff', 'normalizePath', 'chunkArray', 'debounce'];
const FILES = ['duration', 'slug', 'config', 'bytes', 'retry', 'paths', 'array', 'timing'];
const PACKAGES = ['fastcache', 'tinyqueue', 'logpipe', 'confetti-cli', 'pathkit'];
const AUTHORS: Array<[string, string]> = [
  ['Dana Kim', 'dana@kim.dev'],
  ['Ravi Patel', 'ravi@patel.io'],
  ['Mia Lopez', 'mia@lopez.dev'],
];

export const PERSONA_FAMILIES = JOBS.map((j) => j.key);

export interface PersonaOptions {
  /** restrict to some jobs (default: all eight) */
  families?: string[];
  /** no rubric on train/val (correction-only preferences are then invisible): for tests that count target calls */
  ruleOnly?: boolean;
  /**
   * How an instance-dependent preference reaches the loop on train/val:
   *  - 'generic' (default): a shape check with a generic description ("Reference the pull
   *    request number in parentheses"), so pasting descriptions already generalises;
   *  - 'valued': as the product sees it, a check from that session carrying that session's value
   *    (`(#412)`, `# Release v2.4.0`, `describe('slugify'`), in its test and its description.
   */
  instanceChecks?: 'generic' | 'valued';
}

function subjectOf(rng: Rng, i: number): Subject {
  const [author, email] = AUTHORS[rng.int(0, AUTHORS.length - 1)];
  return {
    change: CHANGES[(i * 5 + rng.int(0, CHANGES.length - 1)) % CHANGES.length],
    fn: FUNCTIONS[(i + rng.int(0, FUNCTIONS.length - 1)) % FUNCTIONS.length],
    file: FILES[(i * 3 + rng.int(0, FILES.length - 1)) % FILES.length],
    pkg: PACKAGES[rng.int(0, PACKAGES.length - 1)],
    version: `${rng.int(1, 4)}.${rng.int(0, 12)}.${rng.int(0, 9)}`,
    pr: rng.int(100, 999),
    issue: rng.int(10, 899),
    author,
    email,
  };
}

/** One instance of a job: what the loop sees on train/val, the strict verifiers on test. */
function makeTask(seed: number, i: number, job: Job, split: Split, s: Subject, opts: PersonaOptions = {}): Task {
  const test = split === 'test';
  const ruleOnly = opts.ruleOnly === true;
  const seen = (p: Preference): CheckDef | undefined => (opts.instanceChecks === 'valued' && p.valued ? p.valued(s) : p.visible);
  const checks: Check[] = test
    ? job.prefs.map((p) => ({ id: p.id, ...p.strict(s), weight: 1, sealed: true, description: p.visible?.description ?? p.correction }))
    : job.prefs.filter((p) => p.visible).map((p) => ({ id: p.id, ...(seen(p) as CheckDef), weight: 1, sealed: false }));
  const corrections = job.prefs.filter((p) => p.correction).map((p) => p.correction as string);
  return {
    id: stableId('sim', String(seed), String(i), job.key),
    project: '/sim/persona',
    intent: job.intent(s),
    context: job.context(s),
    judge: {
      checks,
      reference: test || ruleOnly || corrections.length === 0 ? { kind: 'rule' } : { kind: 'rubric', rubric: corrections.map((c) => `- The user said: "${c}"`).join('\n'), passThreshold: 0.99 },
    },
    split,
    origin: 'dream',
    skillHint: 'team-conventions',
    // the recurring job this is an occurrence of, as the miner's intent clustering names it
    family: job.key,
    occurrences: 1 + (i % 5),
    firstSeen: null,
    lastSeen: null,
    status: 'active',
    reviewed: false,
    corrections: test ? [] : corrections,
    agents: [],
  };
}

/** Split by round, so every job appears in train, val and test. */
const SPLIT_PATTERN: Split[] = ['train', 'val', 'test', 'train', 'val', 'test', 'train', 'train', 'val', 'test'];

/** `n` persona tasks (deterministic per seed), cycling through the jobs. */
export function simPersonaTasks(seed: number, n: number, opts: PersonaOptions = {}): Task[] {
  const jobs = opts.families ? JOBS.filter((j) => opts.families?.includes(j.key)) : JOBS;
  if (jobs.length === 0) throw new Error(`no persona job among ${opts.families?.join(', ')}`);
  const rng = new Rng(seed, 'persona');
  const tasks: Task[] = [];
  for (let i = 0; i < n; i++) {
    const job = jobs[i % jobs.length];
    const round = Math.floor(i / jobs.length);
    tasks.push(makeTask(seed, i, job, SPLIT_PATTERN[round % SPLIT_PATTERN.length], subjectOf(rng, i), opts));
  }
  return tasks;
}

/** A persona world with fixed split sizes (per job, cycling): the bench uses ≥ 20 val and ≥ 40 test. */
export function personaWorld(seed: number, sizes: { train: number; val: number; test: number }, opts: PersonaOptions = {}): { train: Task[]; val: Task[]; test: Task[] } {
  const jobs = opts.families ? JOBS.filter((j) => opts.families?.includes(j.key)) : JOBS;
  const rng = new Rng(seed, 'persona-world');
  let i = 0;
  const make = (split: Split, count: number): Task[] =>
    Array.from({ length: count }, (_, k) => {
      const idx = i++;
      return makeTask(seed, idx, jobs[k % jobs.length], split, subjectOf(rng, idx), opts);
    });
  return { train: make('train', sizes.train), val: make('val', sizes.val), test: make('test', sizes.test) };
}
