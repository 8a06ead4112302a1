/**
 * A simulated user persona: a TypeScript developer who keeps asking for the same kinds of work
 * (changelog entries, vitest tests, lint fixes, release notes, commit messages) and has several
 * distinct rules for each. A skill must learn several rules per family to pass; the empty skill
 * scores low. Used by the trainer experiment, the demo and tests, always with the `sim` backend.
 *
 * `PERSONA_RULES` is the ground truth: a hand-written skill built from it is the "ideal" skill.
 */
import type { Check, Task, Split } from '../../core/records.js';
import { stableId } from '../../core/ids.js';
import { DEFAULT_COMMAND_TOOL } from '../../core/tool-kinds.js';
import { Rng } from './rng.js';

type RuleCheck = Omit<Check, 'weight' | 'sealed'> & { sealed?: boolean; description: string };

interface Family {
  key: string;
  intent: (s: Subject) => string;
  context: (s: Subject) => string;
  checks: RuleCheck[];
  /** what the user said when the agent got it wrong (preference evidence for sealed rules) */
  corrections: string[];
}

interface Subject {
  change: string;
  fn: string;
  file: string;
  pkg: string;
  version: string;
  pr: number;
}

const FAMILIES: Family[] = [
  {
    key: 'changelog',
    intent: (s) => `Write the CHANGELOG.md entry for this change: ${s.change} (PR #${s.pr}).`,
    context: (s) => `The repository keeps a CHANGELOG.md at the root. Package: ${s.pkg}.`,
    checks: [
      { id: 'changelog-unreleased', op: 'section_present', value: 'Unreleased', description: 'Put new entries under an Unreleased heading at the top' },
      {
        id: 'changelog-category',
        op: 'regex',
        value: '^### (Added|Changed|Fixed|Removed)',
        flags: 'm',
        description: 'Group each entry under a Keep a Changelog category subheading such as Added or Fixed',
      },
      { id: 'changelog-pr-ref', op: 'regex', value: '\\(#\\d+\\)', description: 'Reference the pull request number in parentheses after each item' },
      { id: 'changelog-no-emoji', op: 'not_contains', value: '🎉', sealed: true, description: 'No emojis in changelog entries' },
    ],
    corrections: ['please no emojis in the changelog, keep it plain'],
  },
  {
    key: 'vitest',
    intent: (s) => `Write unit tests with vitest for the \`${s.fn}\` function in src/${s.file}.ts.`,
    context: (s) => `src/${s.file}.ts exports ${s.fn}(input). The project uses ESM and TypeScript.`,
    checks: [
      { id: 'vitest-import', op: 'contains', value: "from 'vitest'", description: 'Import describe, it and expect explicitly from vitest' },
      { id: 'vitest-each', op: 'contains', value: 'it.each', description: 'Cover input variants with table-driven it.each cases' },
      { id: 'vitest-no-jest', op: 'not_contains', value: 'jest.', description: 'Never use jest APIs such as jest.fn; use vi instead' },
      { id: 'vitest-describe', op: 'regex', value: "describe\\(['\"]", description: 'Wrap the cases in a describe block named after the function' },
    ],
    corrections: [],
  },
  {
    key: 'lint',
    intent: (s) => `Fix the ESLint errors reported in src/${s.file}.ts.`,
    context: (s) => `npx eslint src/${s.file}.ts reports no-unused-vars and prefer-const errors.`,
    checks: [
      { id: 'lint-root-cause', op: 'section_present', value: 'Root cause', description: 'Explain the root cause under a Root cause heading' },
      { id: 'lint-no-disable', op: 'not_contains', value: 'eslint-disable', description: 'Never silence rules with eslint-disable comments' },
      { id: 'lint-run', op: 'tool_called', value: DEFAULT_COMMAND_TOOL, description: 'Run the linter in the shell afterwards to verify the fix' },
      { id: 'lint-concise', op: 'max_chars', value: 900, description: 'Keep the reply concise: at most 900 characters' },
    ],
    corrections: [],
  },
  {
    key: 'release',
    intent: (s) => `Draft the release notes for version ${s.version} of the ${s.pkg} package.`,
    context: (s) => `Merged since the last release: ${s.change}; PR #${s.pr}.`,
    checks: [
      { id: 'release-title', op: 'starts_with', value: '# Release v', description: "Start with a '# Release vX.Y.Z' title line" },
      {
        id: 'release-breaking',
        op: 'section_contains',
        value: 'Breaking changes',
        needle: 'Migration',
        description: 'List breaking changes with migration steps in a Breaking changes section',
      },
      { id: 'release-highlights', op: 'section_present', value: 'Highlights', description: 'Add a Highlights section for the top features' },
      { id: 'release-json', op: 'json_valid', description: 'Attach a fenced JSON block for the release bot' },
    ],
    corrections: [],
  },
  {
    key: 'commit',
    intent: (s) => `Write the git commit message for: ${s.change}.`,
    context: () => 'The staged diff is ready; the repository follows the DCO.',
    checks: [
      {
        id: 'commit-conventional',
        op: 'regex',
        value: '^(feat|fix|docs|refactor|test|chore)(\\([a-z-]+\\))?: \\S',
        description: 'Use a Conventional Commits type prefix such as feat: or fix:',
      },
      { id: 'commit-signoff', op: 'regex', value: 'Signed-off-by: \\S+ <\\S+@\\S+>', description: 'End with a DCO Signed-off-by trailer' },
      { id: 'commit-brief', op: 'max_chars', value: 500, description: 'Keep commit messages brief: at most 500 characters' },
      { id: 'commit-no-wip', op: 'not_contains', value: 'WIP', sealed: true, description: 'Never mark commits as WIP' },
    ],
    corrections: ['do not write WIP in commit messages'],
  },
];

/** Opt-in family judged by a rubric through the `judge` role (exercises judge_rubric). */
const RUBRIC_FAMILY: Family & { rubric: string } = {
  key: 'pr-summary',
  intent: (s) => `Summarize pull request #${s.pr} (${s.change}) for the reviewers.`,
  context: (s) => `The diff touches src/${s.file}.ts and its tests.`,
  checks: [{ id: 'pr-summary-length', op: 'max_chars', value: 1200, description: 'Keep PR summaries brief: at most 1200 characters' }],
  corrections: [],
  rubric: '- States the risk level of the change.\n- Names the files touched.\n- Explains how reviewers can verify it locally.',
};

/** Ground-truth rules per family, as a user would write them in a skill. */
export const PERSONA_RULES: Record<string, string[]> = {
  changelog: [
    'Put new entries under an `## [Unreleased]` heading at the top.',
    'Group entries under Keep a Changelog category subheadings: `### Added`, `### Fixed`, `### Changed`, `### Removed`.',
    'Reference the pull request number in parentheses after each item, e.g. `(#123)`.',
    'No emojis in changelog entries.',
  ],
  vitest: [
    "Import describe, it and expect explicitly: `import { describe, it, expect } from 'vitest'`.",
    'Cover input variants with table-driven `it.each` cases.',
    'Never use jest APIs such as `jest.fn`; use `vi` instead.',
    "Wrap the cases in a `describe('<function>')` block named after the function.",
  ],
  lint: [
    'Explain the root cause under a `## Root cause` heading.',
    'Never silence rules with eslint-disable comments.',
    'Run the linter in the shell (Bash) afterwards to verify the fix.',
    'Keep the reply concise: at most 900 characters.',
  ],
  release: [
    "Start with a '# Release vX.Y.Z' title line.",
    'List breaking changes with migration steps in a `## Breaking changes` section.',
    'Add a `## Highlights` section for the top features.',
    'Attach a fenced JSON block for the release bot.',
  ],
  commit: [
    'Use a Conventional Commits type prefix such as `feat:` or `fix:`.',
    'End with a DCO `Signed-off-by: Name <email>` trailer.',
    'Keep commit messages brief: at most 500 characters.',
    'Never mark commits as WIP.',
  ],
  'pr-summary': [
    'Keep PR summaries brief: at most 1200 characters.',
    'State the risk level, name the files touched, and explain how reviewers can verify it locally.',
  ],
};

/** The ideal hand-written skill for the persona (what training should approach). */
export function personaIdealSkill(opts: { includeRubric?: boolean } = {}): string {
  const sections = Object.entries(PERSONA_RULES)
    .filter(([k]) => opts.includeRubric || k !== RUBRIC_FAMILY.key)
    .map(([k, rules]) => `## ${k}\n${rules.map((r) => `- ${r}`).join('\n')}`);
  return `# Team conventions\n\n${sections.join('\n\n')}\n`;
}

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

/** Split by round, so every family appears in train, val and test. */
const SPLIT_PATTERN: Split[] = ['train', 'val', 'test', 'train', 'val', 'test', 'train', 'train', 'val', 'test'];

export interface PersonaOptions {
  /** restrict to some families (default: the five rule-judged ones) */
  families?: string[];
  /** add the rubric-judged `pr-summary` family (needs a judge backend) */
  includeRubric?: boolean;
}

/** `n` persona tasks (deterministic per seed), cycling through the families. */
export function simPersonaTasks(seed: number, n: number, opts: PersonaOptions = {}): Task[] {
  const pool = opts.includeRubric || opts.families?.includes(RUBRIC_FAMILY.key) ? [...FAMILIES, RUBRIC_FAMILY] : FAMILIES;
  const families = opts.families ? pool.filter((f) => opts.families?.includes(f.key)) : pool;
  if (families.length === 0) throw new Error(`no persona family among ${opts.families?.join(', ')}`);
  const rng = new Rng(seed, 'persona');
  const tasks: Task[] = [];
  for (let i = 0; i < n; i++) {
    const family = families[i % families.length];
    const round = Math.floor(i / families.length);
    const subject: Subject = {
      change: CHANGES[(i * 5 + rng.int(0, CHANGES.length - 1)) % CHANGES.length],
      fn: FUNCTIONS[(i + rng.int(0, FUNCTIONS.length - 1)) % FUNCTIONS.length],
      file: FILES[(i * 3 + rng.int(0, FILES.length - 1)) % FILES.length],
      pkg: PACKAGES[rng.int(0, PACKAGES.length - 1)],
      version: `${rng.int(1, 4)}.${rng.int(0, 12)}.${rng.int(0, 9)}`,
      pr: rng.int(100, 999),
    };
    tasks.push({
      id: stableId('sim', String(seed), String(i), family.key),
      project: '/sim/persona',
      intent: family.intent(subject),
      context: family.context(subject),
      judge: {
        checks: family.checks.map((c) => ({ ...c, weight: 1, sealed: c.sealed ?? false })),
        reference: 'rubric' in family ? { kind: 'rubric', rubric: String(family.rubric), passThreshold: 0.7 } : { kind: 'rule' },
      },
      split: SPLIT_PATTERN[round % SPLIT_PATTERN.length],
      origin: 'dream',
      skillHint: 'team-conventions',
      occurrences: 1 + rng.int(0, 4),
      firstSeen: null,
      lastSeen: null,
      status: 'active',
      reviewed: false,
      corrections: family.corrections,
      agents: [],
    });
  }
  return tasks;
}

export const PERSONA_FAMILIES = FAMILIES.map((f) => f.key);
