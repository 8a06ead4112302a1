/**
 * The outcome world (issue 41): a developer who repeats five jobs in Claude Code across two
 * projects, and whose preferences come in five kinds — only one of which a note-taker can see.
 *
 * - stated: said in words right after an answer that missed it ("add a Risk section");
 * - instance: said in words with an example value the instance's own value must replace (the PR
 *   number, the version, the function's name);
 * - silent: never said; the user fixes the agent's output by hand before committing, so the
 *   preference is visible only in what landed in git (the commit message, CHANGELOG.md as merged,
 *   the test file as committed);
 * - procedural: never said; the agent's first command fails (tool result is_error) and another one
 *   works, in the transcript's tool calls (`npm test` → `pnpm vitest run`);
 * - changed-mind: said twice, the later value replacing the earlier one (release notes of at least
 *   500 characters, later 1000; `## Unreleased`, later `## [Unreleased]`). Hidden verifiers use the
 *   newer value.
 * Plus one one-off ask ("for this one, mention CVE-2026-1234") that belongs to one release only.
 *
 * Silent preferences use only the property vocabulary of docs/41-design (the sim target's
 * directives): a start prefix, an end trailer, a subheading, a forbidden literal. Ground truth lives
 * here and nowhere in the pipeline: `OUTCOME_JOBS` (each preference, its kind, the words it is said
 * with if any, what the kept artifact does with it, its oracle rule and its strict verifier).
 * Hidden test instances draw their objects from a disjoint half of every list, so no hidden value
 * appears in a transcript or a commit (tests/unit/outcome-world.test.ts checks it).
 */
import type { Check, Task } from '../src/core/records.js';
import { stableId } from '../src/core/ids.js';
import { mulberry32 } from '../src/core/random.js';

export type OutcomeJobKey = 'commit' | 'changelog' | 'release' | 'tests' | 'pr';
export type PrefKind = 'stated' | 'instance' | 'silent' | 'procedural' | 'changed-mind';
export const PREF_KINDS: PrefKind[] = ['stated', 'instance', 'silent', 'procedural', 'changed-mind'];

/** The world's knobs. Each default states its basis; none is a measurement of real users. */
export interface OutcomeKnobs {
  /** sessions per job and project it recurs in. Basis: assumption (a job done about twice a week over a month). */
  perJob: number;
  /** hidden test instances per job. Basis: assumption (enough for a per-kind mean; the CI comes from seeds). */
  hiddenPerJob: number;
  /** share of sessions in which the user corrects one or two stated preferences aloud. Basis: the e2e world's 0.85 (assumption there too). */
  correctionRate: number;
  /**
   * share of artifact sessions in which the user edits the agent's output before committing (the
   * silent evidence). Basis: assumption, following the issue ("differ ... every time, in the same
   * ways"), lowered to 0.9 so one commit in ten lands as the agent wrote it apart from the stated fixes.
   */
  keptEditRate: number;
  /** share of test / commit sessions in which the agent first runs the failing command. Basis: assumption (the agent's habit wins most sessions). */
  procedureRate: number;
  /** where on each job's timeline the user changes their mind (0..1). Basis: assumption (mid-month). */
  changedMindAt: number;
  /** one-off asks per seed ("for this one, mention CVE-…"). Basis: assumption (one per month). */
  oneOffs: number;
}

export const OUTCOME_DEFAULTS: OutcomeKnobs = { perJob: 8, hiddenPerJob: 8, correctionRate: 0.85, keptEditRate: 0.9, procedureRate: 0.9, changedMindAt: 0.5, oneOffs: 1 };
export const OUTCOME_QUICK: OutcomeKnobs = { ...OUTCOME_DEFAULTS, perJob: 6, hiddenPerJob: 5 };

export interface Subject {
  change: string;
  pr: number;
  version: string;
  pkg: string;
  fn: string;
  file: string;
  scope: string;
  author: string;
  email: string;
}

/** A hidden verifier: a text check on the reply, or a command the agent must have run (LlmReply.commandsRun). */
export type Verifier = { kind: 'text'; check: Omit<Check, 'id' | 'weight' | 'sealed'> } | { kind: 'ran'; command: string };

export interface OutcomePref {
  id: string;
  kind: PrefKind;
  /** what the user says (stated, instance); for changed-mind: the earlier and the later wording */
  said?: string[];
  /** changed-mind: the superseded value's words, and a pattern that finds it in a skill */
  earlier?: { said: string[]; inSkill: RegExp };
  /** the rule as a careful person writes it into a skill (the oracle; the newer value) */
  rule: string;
  /** the hidden-test verifier, with the instance's own values */
  strict: (s: Subject) => Verifier;
}

export interface OutcomeJob {
  key: OutcomeJobKey;
  title: string;
  projects: string[];
  asks: string[];
  hidden: (s: Subject) => { intent: string; context: string };
  prefs: OutcomePref[];
}

export const OUTCOME_PROJECTS = ['ledgerline', 'tallybook'];

export const ONE_OFF = { said: 'for this one, also mention CVE-2026-1234 since this release fixes it', literal: 'CVE-2026-1234' };

export const OUTCOME_JOBS: OutcomeJob[] = [
  {
    key: 'commit',
    title: 'Commit messages',
    projects: ['ledgerline', 'tallybook'],
    asks: ['give me a commit message: {change}', 'write the commit message for {change}', 'commit msg for the {change} work please', 'I staged {change}, write a commit for it', 'draft a git commit message for: {change}', 'what should the commit message be for {change}?'],
    hidden: (s) => ({ intent: `Write the git commit message for: ${s.change}.`, context: `This is PR #${s.pr}; the staged diff touches src/${s.file}.ts.` }),
    prefs: [
      {
        id: 'commit-scope-prefix',
        kind: 'silent',
        rule: 'Start the subject with a Conventional Commits type and scope, e.g. `fix(cli): `, then a lower-case summary.',
        strict: () => ({ kind: 'text', check: { op: 'regex', value: '^(feat|fix|chore|docs|refactor|perf|test)\\([a-z0-9-]+\\): [a-z]' } }),
      },
      {
        id: 'commit-refs-trailer',
        kind: 'silent',
        rule: 'End the message with a trailer naming the pull request, e.g. `Refs: #123`.',
        strict: (s) => ({ kind: 'text', check: { op: 'contains', value: `Refs: #${s.pr}` } }),
      },
      {
        id: 'commit-no-wip',
        kind: 'stated',
        said: ["don't write WIP in it", 'never put WIP in a commit message'],
        rule: "Never write 'WIP' in commit messages.",
        strict: () => ({ kind: 'text', check: { op: 'not_contains', value: 'WIP', caseSensitive: true } }),
      },
      {
        id: 'commit-lint-cache',
        kind: 'procedural',
        rule: 'Run the linter with `npx eslint --cache .` before committing.',
        strict: () => ({ kind: 'ran', command: 'eslint --cache' }),
      },
    ],
  },
  {
    key: 'changelog',
    title: 'Changelog entries',
    projects: ['ledgerline'],
    asks: ['add a changelog entry for PR #{pr}: {change}', 'write the CHANGELOG entry for {change} (#{pr})', 'we need a changelog line for {change}, PR #{pr}', 'update CHANGELOG.md for {change} (PR #{pr})', 'log {change} (#{pr}) in the changelog'],
    hidden: (s) => ({ intent: `Write the CHANGELOG.md entry for this change: ${s.change} (PR #${s.pr}).`, context: `Package: ${s.pkg}.` }),
    prefs: [
      {
        id: 'changelog-heading',
        kind: 'changed-mind',
        earlier: { said: ['new entries go under a `## Unreleased` heading at the top', 'put it under `## Unreleased`'], inSkill: /##\s*Unreleased(?!\])/ },
        said: ['use `## [Unreleased]` with the brackets from now on, the Keep a Changelog way', 'the heading is `## [Unreleased]` now, with brackets'],
        rule: 'Put new entries under an `## [Unreleased]` heading at the top.',
        strict: () => ({ kind: 'text', check: { op: 'regex', value: '^## \\[Unreleased\\]', flags: 'm' } }),
      },
      {
        id: 'changelog-changed-subheading',
        kind: 'silent',
        rule: 'File each entry under a `### Changed` subheading.',
        strict: () => ({ kind: 'text', check: { op: 'regex', value: '^### Changed', flags: 'm' } }),
      },
      {
        id: 'changelog-no-emoji',
        kind: 'silent',
        rule: 'Never put emoji such as `🎉` in changelog entries.',
        strict: () => ({ kind: 'text', check: { op: 'not_contains', value: '🎉' } }),
      },
      {
        id: 'changelog-pr-ref',
        kind: 'instance',
        said: ['reference the PR number in parentheses after the item, like `(#123)`', 'you forgot the PR reference, put it after the item like `(#123)`'],
        rule: 'Reference the pull request number in parentheses after each item, e.g. `(#123)`.',
        strict: (s) => ({ kind: 'text', check: { op: 'contains', value: `(#${s.pr})` } }),
      },
    ],
  },
  {
    key: 'release',
    title: 'Release notes',
    projects: ['ledgerline'],
    asks: ['draft the release notes for v{ver}', 'write release notes for {pkg} {ver}', 'we are cutting v{ver}, write the release notes', 'release notes for version {ver} please', 'can you put together the v{ver} release notes'],
    hidden: (s) => ({ intent: `Draft the release notes for version ${s.version} of the ${s.pkg} package.`, context: `Merged since the last release: ${s.change}; PR #${s.pr}.` }),
    prefs: [
      {
        id: 'release-title',
        kind: 'instance',
        said: ['the title line must be `# Release vX.Y.Z`', 'start the notes with a `# Release vX.Y.Z` title line'],
        rule: 'Start with a `# Release vX.Y.Z` title line.',
        strict: (s) => ({ kind: 'text', check: { op: 'starts_with', value: `# Release v${s.version}` } }),
      },
      {
        id: 'release-highlights',
        kind: 'stated',
        said: ['add a Highlights section for the top features', 'release notes need a `## Highlights` section'],
        rule: 'Add a `## Highlights` section for the top features.',
        strict: () => ({ kind: 'text', check: { op: 'section_present', value: 'Highlights' } }),
      },
      {
        id: 'release-length',
        kind: 'changed-mind',
        earlier: { said: ['too thin - release notes should be at least 500 characters', 'release notes must be at least 500 characters'], inSkill: /\b(?:at least|no fewer than|minimum of)\s+500\s*char/i },
        said: ['release notes can be longer now: at least 1000 characters', 'make release notes at least 1000 characters from now on, 500 is too thin'],
        rule: 'Make release notes detailed: at least 1000 characters.',
        strict: () => ({ kind: 'text', check: { op: 'min_chars', value: 1000 } }),
      },
    ],
  },
  {
    key: 'tests',
    title: 'Unit tests',
    projects: ['tallybook'],
    asks: ['write vitest cases for {fn}', 'add a unit test for {fn} in src/{file}.ts', 'we need tests for {fn}', 'cover {fn} with unit tests', '{fn} has no tests yet, add some'],
    hidden: (s) => ({ intent: `Write unit tests for the \`${s.fn}\` function in src/${s.file}.ts.`, context: `src/${s.file}.ts exports ${s.fn}(input). The project uses ESM and TypeScript.` }),
    prefs: [
      {
        id: 'tests-no-jest',
        kind: 'silent',
        rule: 'Never use jest APIs such as `jest.fn`.',
        strict: () => ({ kind: 'text', check: { op: 'not_contains', value: 'jest.' } }),
      },
      {
        id: 'tests-pnpm-vitest',
        kind: 'procedural',
        rule: 'Run the tests with `pnpm vitest run`.',
        strict: () => ({ kind: 'ran', command: 'pnpm vitest run' }),
      },
      {
        id: 'tests-each',
        kind: 'stated',
        said: ['use `it.each` for the input variants', 'cover the variants with a table-driven `it.each`'],
        rule: 'Cover input variants with table-driven `it.each` cases.',
        strict: () => ({ kind: 'text', check: { op: 'contains', value: 'it.each' } }),
      },
      {
        id: 'tests-describe',
        kind: 'instance',
        said: ['wrap the cases in a describe block named after the function', 'group them in a `describe` block named after the function'],
        rule: "Wrap the cases in a `describe('<function>')` block named after the function.",
        strict: (s) => ({ kind: 'text', check: { op: 'contains', value: `describe('${s.fn}'` } }),
      },
    ],
  },
  {
    key: 'pr',
    title: 'PR descriptions',
    projects: ['ledgerline', 'tallybook'],
    asks: ['write the PR description for #{pr}: {change}', 'summarize pull request #{pr} for the reviewers', 'I opened PR #{pr} ({change}), write its description', 'PR description for #{pr} please', 'draft the PR body for {change}'],
    hidden: (s) => ({ intent: `Write the pull request description for PR #${s.pr} (${s.change}).`, context: `The diff touches src/${s.file}.ts and its tests.` }),
    prefs: [
      {
        id: 'pr-testing',
        kind: 'stated',
        said: ['add a `## Testing` section saying how to verify it locally', 'PR descriptions need a Testing section'],
        rule: 'Add a `## Testing` section saying how to verify locally.',
        strict: () => ({ kind: 'text', check: { op: 'section_present', value: 'Testing' } }),
      },
      {
        id: 'pr-risk',
        kind: 'stated',
        said: ['state the risk level in a `## Risk` section', 'add a Risk section'],
        rule: 'Add a `## Risk` section stating the risk level.',
        strict: () => ({ kind: 'text', check: { op: 'section_present', value: 'Risk' } }),
      },
      {
        id: 'pr-brief',
        kind: 'stated',
        said: ['way too long, keep it under 500 characters', 'keep PR descriptions under 500 characters'],
        rule: 'Keep PR descriptions under 500 characters.',
        strict: () => ({ kind: 'text', check: { op: 'max_chars', value: 500 } }),
      },
    ],
  },
];

export const cap = (s: string): string => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** Objects: the transcripts and commits use the first half of each list, hidden instances the disjoint second half. */
const CHANGES_SEEN = ['fix the rounding of half cents', 'add a --json flag to the export command', 'handle empty ledgers in the importer', 'speed up the balance query', 'drop Node 18 support', 'support ISO week numbers in reports', 'fix the memory leak in the scheduler', 'rename the sync command to pull'];
const CHANGES_HIDDEN = ['add retry with backoff to the HTTP client', 'fix the crash when the config file is empty', 'remove the deprecated --legacy flag', 'change the default log level to warn', 'handle Windows paths in the watcher', 'add OpenTelemetry tracing hooks'];
const FUNCTIONS = ['parseAmount', 'formatCurrency', 'splitLedger', 'roundHalfEven', 'parseDuration', 'slugify', 'mergeConfig', 'formatBytes', 'chunkArray', 'debounce'];
const FILES = ['amount', 'currency', 'ledger', 'rounding', 'duration', 'slug', 'config', 'bytes', 'array', 'timing'];
const SCOPES = ['cli', 'export', 'importer', 'reports', 'scheduler', 'sync'];
const PACKAGES = ['ledgerline', 'tallybook', 'fastcache', 'logpipe'];
export const USER = { name: 'Dana Kim', email: 'dana@kim.dev' };

type Rand = () => number;
export const pick = <T>(r: Rand, xs: T[]): T => xs[Math.floor(r() * xs.length)];
const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

/** Seen subjects: PR 100..499, versions 1-2.x.y; hidden: PR 500..999, versions 3-4.x.y. */
export function subject(r: Rand, hidden: boolean): Subject {
  const half = (xs: string[]) => (hidden ? xs.slice(xs.length / 2) : xs.slice(0, xs.length / 2));
  const fi = int(r, 0, FUNCTIONS.length / 2 - 1);
  return {
    change: pick(r, hidden ? CHANGES_HIDDEN : CHANGES_SEEN),
    pr: hidden ? int(r, 500, 999) : int(r, 100, 499),
    version: `${hidden ? int(r, 3, 4) : int(r, 1, 2)}.${int(r, 0, 12)}.${int(r, 0, 9)}`,
    pkg: pick(r, PACKAGES),
    fn: half(FUNCTIONS)[fi],
    file: half(FILES)[fi],
    scope: pick(r, SCOPES),
    author: USER.name,
    email: USER.email,
  };
}

/** Values a hidden instance brings that no transcript or commit may hold (the leak test reads these). */
export function hiddenOnlyValues(): string[] {
  return [...CHANGES_HIDDEN, ...FUNCTIONS.slice(FUNCTIONS.length / 2)];
}

export function fill(template: string, s: Subject): string {
  return template
    .replace(/\{change\}/g, s.change)
    .replace(/\{pr\}/g, String(s.pr))
    .replace(/\{ver\}/g, s.version)
    .replace(/\{pkg\}/g, s.pkg)
    .replace(/\{fn\}/g, s.fn)
    .replace(/\{file\}/g, s.file);
}

// ---- what the agent writes, and what the user keeps ---------------------------------------------

/** The conventional type a change's verb maps to (what the user writes by hand). */
const typeOf = (change: string): string => (/^fix\b/.test(change) ? 'fix' : /^(add|support)\b/.test(change) ? 'feat' : /^speed\b/.test(change) ? 'perf' : 'chore');

/** The agent's habitual commit message (the sim target's habit too: `Update: …`, sometimes WIP). */
export function agentCommitMessage(s: Subject, wip: boolean): string {
  return `Update: ${s.change}${wip ? '\n\nWIP - more cleanup to follow.' : ''}`;
}

/** The commit message that landed: the stated fixes (no WIP), and, when the user edited it, the silent ones. */
export function keptCommitMessage(s: Subject, edited: boolean): string {
  // (a body line either way: people explain a change in their own words; it keeps the kept message's length the agent's)
  const body = `${cap(s.change)} in src/${s.file}.ts, with its tests.`;
  return edited ? `${typeOf(s.change)}(${s.scope}): ${s.change}\n\n${body}\n\nRefs: #${s.pr}` : `Update: ${s.change}\n\n${body}`;
}

export interface ChangelogItem {
  change: string;
  pr: number;
}

/**
 * CHANGELOG.md as the agent wrote it: its `## Upcoming` heading and a celebratory emoji. The project
 * releases after every change (the user moves the unreleased entries into the release notes), so
 * the file holds only the unreleased section: the agent's file and the kept one compare whole.
 */
export function agentChangelog(s: Subject): string {
  return `# Changelog\n\n## Upcoming\n- ${cap(s.change)} 🎉\n`;
}

/** CHANGELOG.md as merged: the heading the user wanted at that time, the PR ref, and (edited by hand) `### Changed`, no emoji. */
export function keptChangelog(item: ChangelogItem, heading: string, edited: boolean): string {
  return `# Changelog\n\n${heading}\n${edited ? '### Changed\n' : ''}- ${cap(item.change)} (#${item.pr})${edited ? '' : ' 🎉'}\n`;
}

/** The test file as the agent wrote it (jest habits; the sim target's habit too). */
export function agentTestFile(s: Subject): string {
  return `import { jest } from '@jest/globals';\nimport { ${s.fn} } from '../src/${s.file}';\n\ntest('${s.fn} works', () => {\n  const spy = jest.fn();\n  expect(${s.fn}(spy)).toBeDefined();\n});\n`;
}

/** The test file as committed: vitest, `describe` after the function, `it.each`, `vi.fn` (silent: no jest). */
export function keptTestFile(s: Subject, edited: boolean): string {
  const mock = edited ? 'vi.fn' : 'jest.fn';
  return (
    `import { describe, expect, it${edited ? ', vi' : ''} } from 'vitest';\nimport { ${s.fn} } from '../src/${s.file}';\n\n` +
    `describe('${s.fn}', () => {\n  it.each([[${s.pr}], [${s.pr + 1}]])('handles %s', (input) => {\n    const spy = ${mock}();\n    expect(${s.fn}(input, spy)).toBeDefined();\n  });\n});\n`
  );
}

export function agentReleaseNotes(s: Subject): string {
  return `${s.pkg} ${s.version} release notes\n\n## What's new\n- ${cap(s.change)}\n\nThanks to everyone who contributed to this release. Upgrade at your convenience.`;
}

export function agentPrDescription(s: Subject): string {
  return `This pull request makes the following changes.\n\n- ${cap(s.change)}\n\n${'Reviewers should look at the diff as a whole; the change is self-contained. '.repeat(7).trim()}`;
}

// ---- sessions -------------------------------------------------------------------------------

export interface ToolCall {
  name: 'Bash' | 'Write';
  input: { command: string } | { file_path: string; content: string };
  output: string;
  isError: boolean;
}

export interface OutcomeTurn {
  prompt: string;
  reply: string;
  label: { kind: 'ask'; job: OutcomeJobKey } | { kind: 'correction'; job: OutcomeJobKey; pref: string; value: 'current' | 'earlier' | 'newer' } | { kind: 'one-off'; job: OutcomeJobKey } | { kind: 'praise' };
  tools?: ToolCall[];
}

/** What the user committed after a session (relative paths; the message that landed). */
export interface SessionCommit {
  message: string;
  files: Record<string, string>;
  /** minutes after the session's start */
  afterMinutes: number;
}

export interface OutcomeSession {
  project: string;
  job: OutcomeJobKey;
  /** ms since the epoch: the session's first prompt */
  at: number;
  subject: Subject;
  turns: OutcomeTurn[];
  commit: SessionCommit | null;
  /** for the bench: which preferences this session's evidence shows */
  evidence: { edited: boolean; procedure: boolean };
}

const PRAISE = ['thanks', 'perfect, thanks', 'looks good'];
const HOUR = 3_600_000;

function revisedReply(job: OutcomeJob, s: Subject, fixed: string[]): string {
  return `Updated the ${job.title.toLowerCase().replace(/s$/, '')} for ${s.change}. Applied: ${fixed.join('; ')}.`;
}

/** The agent's first answer and its tool calls, per job. */
function agentWork(job: OutcomeJobKey, s: Subject, cwd: string, r: Rand, k: OutcomeKnobs): { reply: string; tools: ToolCall[]; procedure: boolean } {
  const tools: ToolCall[] = [{ name: 'Bash', input: { command: 'git status --short' }, output: ` M src/${s.file}.ts`, isError: false }];
  let procedure = false;
  switch (job) {
    case 'commit': {
      if (r() < k.procedureRate) {
        procedure = true;
        tools.push({ name: 'Bash', input: { command: 'npm run lint' }, output: 'Exit code 1\n\nOops! Something went wrong! :(\n\nESLint: 9.39.0\n\nError: the lint cache is required in this repository (run eslint with --cache)', isError: true });
      }
      tools.push({ name: 'Bash', input: { command: 'npx eslint --cache .' }, output: '', isError: false });
      const message = agentCommitMessage(s, r() < 0.4);
      return { reply: `Here is the commit message:\n\n\`\`\`\n${message}\n\`\`\``, tools, procedure };
    }
    case 'changelog': {
      const content = agentChangelog(s);
      tools.push({ name: 'Write', input: { file_path: `${cwd}/CHANGELOG.md`, content }, output: `The file ${cwd}/CHANGELOG.md has been updated successfully.`, isError: false });
      return { reply: `Here is the changelog entry:\n\n## Upcoming\n- ${cap(s.change)} 🎉`, tools, procedure };
    }
    case 'tests': {
      const file = `tests/${s.file}.test.ts`;
      tools.push({ name: 'Write', input: { file_path: `${cwd}/${file}`, content: agentTestFile(s) }, output: `File created successfully at: ${cwd}/${file}`, isError: false });
      if (r() < k.procedureRate) {
        procedure = true;
        tools.push({ name: 'Bash', input: { command: 'npm test' }, output: `Exit code 1\n\n> tallybook@1.4.0 test\n> jest\n\nsh: 1: jest: not found`, isError: true });
      }
      tools.push({ name: 'Bash', input: { command: 'pnpm vitest run' }, output: ` RUN  v2.1.9 ${cwd}\n\n ✓ ${file} (2 tests) 4ms\n\n Test Files  1 passed (1)\n      Tests  2 passed (2)`, isError: false });
      return { reply: `Here are tests for \`${s.fn}\`:\n\n\`\`\`ts\n${agentTestFile(s).trimEnd()}\n\`\`\``, tools, procedure };
    }
    case 'release':
      return { reply: agentReleaseNotes(s), tools, procedure };
    case 'pr':
      return { reply: agentPrDescription(s), tools, procedure };
  }
}

/**
 * Sessions of a job per project: a job of one project is that project's daily work, so it comes up
 * twice as often there (assumption; the e2e world uses 1.5×), which also gives its skill enough
 * validation tasks to train (training.minValTasks).
 */
export function sessionsOf(job: OutcomeJob, k: OutcomeKnobs): number {
  return job.projects.length === 1 ? k.perJob * 2 : k.perJob;
}

/**
 * The sessions of one seed, in time order per project: for each job and project it recurs in,
 * `perJob` sessions over 28 days. In each, the agent answers by habit (with its tool calls), the
 * user may correct stated preferences aloud, and afterwards commits what they kept (edited by
 * hand with the silent preferences, `keptEditRate` of the time). Changed minds: before
 * `changedMindAt` of the job's timeline the user says the earlier value (in the first two
 * sessions at least), after it the newer one (in the first two sessions after the change at least).
 * `projectDir` gives each project's checkout (the absolute paths the agent's Write calls carry).
 */
export function outcomeSessions(seed: number, k: OutcomeKnobs, now: number, projectDir: (project: string) => string): OutcomeSession[] {
  const r = mulberry32(seed * 7919 + 41);
  const out: OutcomeSession[] = [];
  const DAYS = 28;
  // every session gets its own hour of the month (no two overlap), spread evenly and shuffled per seed
  const slots: number[] = [];
  for (const job of OUTCOME_JOBS) for (let i = 0; i < job.projects.length * sessionsOf(job, k); i++) slots.push(slots.length);
  const order = slots.map((x) => ({ x, k: r() })).sort((a, b) => a.k - b.k).map((a) => a.x);
  const slotTime = (i: number) => now - DAYS * 24 * HOUR + Math.floor(((i + 0.5) * DAYS * 24) / slots.length) * HOUR;
  let next = 0;
  const plans: Array<{ job: OutcomeJob; project: string; at: number }> = [];
  for (const job of OUTCOME_JOBS) for (const project of job.projects) for (let i = 0; i < sessionsOf(job, k); i++) plans.push({ job, project, at: slotTime(order[next++]) });
  plans.sort((a, b) => a.at - b.at);

  const nthOfJob = new Map<string, number>();
  let oneOffsLeft = k.oneOffs;
  for (const plan of plans) {
    const { job, project, at } = plan;
    const key = `${job.key}|${project}`;
    const n = nthOfJob.get(key) ?? 0;
    nthOfJob.set(key, n + 1);
    const changedAt = Math.floor(sessionsOf(job, k) * k.changedMindAt);
    const newer = n >= changedAt;
    const s = subject(r, false);
    const work = agentWork(job.key, s, projectDir(project), r, k);
    const turns: OutcomeTurn[] = [{ prompt: fill(pick(r, job.asks), s), reply: work.reply, label: { kind: 'ask', job: job.key }, tools: work.tools }];
    const fixed: string[] = [];
    const correct = (prompt: string, label: OutcomeTurn['label'], id: string) => {
      fixed.push(id);
      turns.push({ prompt, reply: revisedReply(job, s, fixed), label });
    };
    // changed minds: forced in the first two sessions of each side of the change, else like any stated preference
    for (const p of job.prefs.filter((x) => x.kind === 'changed-mind')) {
      const forced = n < 2 || (n >= changedAt && n < changedAt + 2);
      if (forced || r() < k.correctionRate / 3) {
        const words = newer ? p.said! : p.earlier!.said;
        correct(pick(r, words), { kind: 'correction', job: job.key, pref: p.id, value: newer ? 'newer' : 'earlier' }, p.id);
      }
    }
    const spoken = job.prefs.filter((p) => p.kind === 'stated' || p.kind === 'instance');
    if (spoken.length && r() < k.correctionRate) {
      const chosen = [...spoken].sort(() => r() - 0.5).slice(0, r() < 0.5 ? 1 : 2);
      for (const p of chosen) correct(pick(r, p.said!), { kind: 'correction', job: job.key, pref: p.id, value: 'current' }, p.id);
    }
    if (job.key === 'release' && oneOffsLeft > 0 && n >= 1) {
      oneOffsLeft--;
      correct(ONE_OFF.said, { kind: 'one-off', job: job.key }, 'one-off');
    }
    if (r() < 0.4) turns.push({ prompt: pick(r, PRAISE), reply: 'Glad it helps.', label: { kind: 'praise' } });

    // what the user commits afterwards
    const edited = r() < k.keptEditRate;
    let commit: SessionCommit | null = null;
    if (job.key === 'commit') {
      commit = { message: keptCommitMessage(s, edited), files: { [`src/${s.file}.ts`]: `// ${s.change}\nexport const touched${at} = true;\n` }, afterMinutes: 25 };
    } else if (job.key === 'changelog') {
      const heading = newer ? '## [Unreleased]' : '## Unreleased';
      commit = { message: `docs(changelog): add the entry for #${s.pr}\n\nRefs: #${s.pr}`, files: { 'CHANGELOG.md': keptChangelog({ change: s.change, pr: s.pr }, heading, edited) }, afterMinutes: 20 };
    } else if (job.key === 'tests') {
      commit = { message: `test(${s.file}): cover ${s.fn}`, files: { [`tests/${s.file}.test.ts`]: keptTestFile(s, edited) }, afterMinutes: 30 };
    }
    out.push({ project, job: job.key, at, subject: s, turns, commit, evidence: { edited, procedure: work.procedure } });
  }
  return out;
}

// ---- hidden test instances ------------------------------------------------------------------

export interface OutcomeHidden {
  job: OutcomeJobKey;
  project: string;
  task: Task;
  /** per preference: its kind and the verifier with this instance's values */
  verifiers: Array<{ pref: string; kind: PrefKind; verifier: Verifier }>;
}

/** `perJob` hidden instances of every job, with strict verifiers carrying the instance's own values. */
export function outcomeHidden(seed: number, perJob: number): OutcomeHidden[] {
  const r = mulberry32(seed * 104_729 + 43);
  const out: OutcomeHidden[] = [];
  for (const job of OUTCOME_JOBS) {
    for (let i = 0; i < perJob; i++) {
      const s = subject(r, true);
      const { intent, context } = job.hidden(s);
      out.push({
        job: job.key,
        project: job.projects[i % job.projects.length],
        task: {
          id: stableId('outcome-hidden', String(seed), job.key, String(i)),
          project: null,
          intent,
          context,
          judge: { checks: [], reference: { kind: 'rule' } },
          split: 'test',
          origin: 'dream',
          skillHint: null,
          occurrences: 1,
          firstSeen: null,
          lastSeen: null,
          status: 'active',
          reviewed: false,
          corrections: [],
          agents: [],
        },
        verifiers: job.prefs.map((p) => ({ pref: p.id, kind: p.kind, verifier: p.strict(s) })),
      });
    }
  }
  return out;
}

// ---- baseline skills ------------------------------------------------------------------------

/** The oracle: every current preference as a careful person writes it, scoped to its job. */
export function outcomeOracleSkill(): string {
  return `# Conventions\n\n${OUTCOME_JOBS.map((j) => `## ${j.title}\n${j.prefs.map((p) => `- ${p.rule}`).join('\n')}`).join('\n\n')}\n`;
}

/** What a note-taking memory tool writes: every correction typed in this project, verbatim, deduplicated, in order. */
export function outcomeVerbatimSkill(sessions: OutcomeSession[], project: string): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const s of sessions) {
    if (s.project !== project) continue;
    for (const t of s.turns) {
      if ((t.label.kind !== 'correction' && t.label.kind !== 'one-off') || seen.has(t.prompt)) continue;
      seen.add(t.prompt);
      lines.push(`- ${t.prompt}`);
    }
  }
  return `# Notes from corrections\n\n${lines.join('\n')}\n`;
}

/** Superseded values and one-off literals a skill still carries (must be none in a shipped skill). */
export function staleContent(skill: string): { superseded: string[]; oneOff: boolean } {
  const superseded = OUTCOME_JOBS.flatMap((j) => j.prefs).filter((p) => p.earlier && p.earlier.inSkill.test(skill)).map((p) => p.id);
  return { superseded, oneOff: skill.includes(ONE_OFF.literal) };
}
