/**
 * The end-to-end arm's world: a developer who repeats five jobs in Claude Code across two
 * projects and corrects the agent in plain words, the way people do — right after the answer,
 * often without naming the job ("keep it under 300 characters" said of a commit message, "the
 * title line must be `# Release vX.Y.Z`"). Also in the sessions: follow-up asks that are not
 * corrections ("now write the commit message for it too"), praise, and one-off asks.
 *
 * Everything is seeded. Transcript asks come from paraphrase templates with varying objects
 * (changes, PR numbers, versions, functions); the hidden test instances use other wording and
 * other objects, appear in no transcript, and are scored by strict verifiers with the instance's
 * own values (the right PR number, the right version, the right author).
 *
 * Ground truth lives here and nowhere in the pipeline: `E2E_PREFS` (what the user wants, the
 * words they say it with, and its verifier) and the oracle skill built from it.
 */
import type { Check, Task } from '../src/core/records.js';
import { stableId } from '../src/core/ids.js';
import { mulberry32 } from '../src/core/random.js';

export type JobKey = 'changelog' | 'commit' | 'release' | 'pr' | 'tests';

export interface Subject {
  change: string;
  pr: number;
  version: string;
  pkg: string;
  fn: string;
  file: string;
  author: string;
  email: string;
}

type StrictCheck = Omit<Check, 'id' | 'weight' | 'sealed'>;

export interface Preference {
  id: string;
  /** what the user says right after an answer that missed it (several phrasings; some name no job) */
  said: string[];
  /** the rule as a careful person writes it into a skill (the oracle) */
  rule: string;
  /** the hidden-test verifier, with the instance's own values */
  strict: (s: Subject) => StrictCheck;
}

export interface E2eJob {
  key: JobKey;
  /** the skill section the oracle puts the job's rules under */
  title: string;
  /** projects the job recurs in (two projects: a habit, trained into the personal skill) */
  projects: string[];
  /** transcript asks: paraphrase templates ({change} {pr} {ver} {pkg} {fn} {file}) */
  asks: string[];
  /** hidden test instances: other wording, with what the agent sees of the instance */
  hidden: (s: Subject) => { intent: string; context: string };
  /** the agent's first answer in the transcripts (the habits the user then corrects) */
  answer: (s: Subject) => string;
  prefs: Preference[];
}

export const E2E_PROJECTS = ['ledgerline', 'tallybook'];

export const E2E_JOBS: E2eJob[] = [
  {
    key: 'changelog',
    title: 'Changelog entries',
    projects: ['ledgerline'],
    asks: [
      'add a changelog entry for PR #{pr}: {change}',
      'write the CHANGELOG entry for {change} (#{pr})',
      'we need a changelog line for {change}, PR #{pr}',
      'update CHANGELOG.md for {change} (PR #{pr})',
      'changelog entry please: {change}, that was #{pr}',
      'log {change} (#{pr}) in the changelog',
      'the changelog needs an entry for #{pr}, {change}',
      'can you write up {change} for the CHANGELOG? PR #{pr}',
    ],
    hidden: (s) => ({ intent: `Write the CHANGELOG.md entry for this change: ${s.change} (PR #${s.pr}).`, context: `Package: ${s.pkg}.` }),
    answer: (s) => `Here is the changelog entry:\n\n## Upcoming\n- ${cap(s.change)} 🎉`,
    prefs: [
      {
        id: 'changelog-unreleased',
        said: ['no, new entries go under `## [Unreleased]` at the top', 'put it under the `## [Unreleased]` heading', 'changelog entries belong under an `## [Unreleased]` heading'],
        rule: 'Put new entries under an `## [Unreleased]` heading at the top.',
        strict: () => ({ op: 'regex', value: '^## \\[Unreleased\\]', flags: 'm' }),
      },
      {
        id: 'changelog-pr-ref',
        said: ['reference the PR number in parentheses after the item, like `(#123)`', 'you forgot the PR reference, put it after the item like `(#123)`'],
        rule: 'Reference the pull request number in parentheses after each item, e.g. `(#123)`.',
        strict: (s) => ({ op: 'contains', value: `(#${s.pr})` }),
      },
      {
        id: 'changelog-no-emoji',
        said: ['please no emojis, keep it plain', 'no emojis in the changelog'],
        rule: 'No emojis in changelog entries.',
        strict: () => ({ op: 'not_contains', value: '🎉' }),
      },
    ],
  },
  {
    key: 'commit',
    title: 'Commit messages',
    projects: ['ledgerline', 'tallybook'],
    asks: ['give me a commit message: {change}', 'write the commit message for {change}', 'commit msg for the {change} work please', 'I staged {change}, write a commit for it', 'draft a git commit message for: {change}', 'commit message for this diff please ({change})', 'what should the commit message be for {change}?', 'write a good commit message, the change is: {change}'],
    hidden: (s) => ({ intent: `Write the git commit message for: ${s.change}.`, context: `The staged diff is ready; the repository follows the DCO. Author: ${s.author} <${s.email}>.` }),
    answer: (s) => `Update: ${s.change}\n\nWIP - more cleanup to follow. ${'This touches the module and its callers. '.repeat(6)}`,
    prefs: [
      {
        id: 'commit-prefix',
        said: ['commit messages need a type prefix like `feat:`', 'it should start with a type like `fix:` or `feat:`'],
        rule: 'Start with a Conventional Commits type prefix such as `feat:` or `fix:`.',
        strict: () => ({ op: 'regex', value: '^(feat|fix|docs|refactor|test|chore)(\\([a-z-]+\\))?: \\S' }),
      },
      {
        id: 'commit-brief',
        said: ['keep it under 300 characters', 'too long, commit messages must be at most 300 characters'],
        rule: 'Keep commit messages brief: at most 300 characters.',
        strict: () => ({ op: 'max_chars', value: 300 }),
      },
      {
        id: 'commit-no-wip',
        said: ["don't write WIP in it", 'never put WIP in a commit message'],
        rule: "Never write 'WIP' in commit messages.",
        strict: () => ({ op: 'not_contains', value: 'WIP', caseSensitive: true }),
      },
      {
        id: 'commit-signoff',
        said: ['end it with the DCO trailer `Signed-off-by: Name <email>`', 'you forgot the sign-off, commit messages end with `Signed-off-by: Name <email>`'],
        rule: 'End with a DCO `Signed-off-by: Name <email>` trailer.',
        strict: (s) => ({ op: 'contains', value: `Signed-off-by: ${s.author} <${s.email}>` }),
      },
    ],
  },
  {
    key: 'release',
    title: 'Release notes',
    projects: ['ledgerline'],
    asks: ['draft the release notes for v{ver}', 'write release notes for {pkg} {ver}', 'we are cutting v{ver}, write the release notes', 'release notes for version {ver} please', 'can you put together the v{ver} release notes', 'time to release {pkg} v{ver}, draft the notes', 'write up the changes for the {ver} release', 'prepare the release notes, we ship {ver} today'],
    hidden: (s) => ({ intent: `Draft the release notes for version ${s.version} of the ${s.pkg} package.`, context: `Merged since the last release: ${s.change}; PR #${s.pr}.` }),
    answer: (s) => `${s.pkg} ${s.version} release notes\n\n## What's new\n- ${cap(s.change)}`,
    prefs: [
      {
        id: 'release-title',
        said: ['the title line must be `# Release vX.Y.Z`', 'start the notes with a `# Release vX.Y.Z` title line'],
        rule: 'Start with a `# Release vX.Y.Z` title line.',
        strict: (s) => ({ op: 'starts_with', value: `# Release v${s.version}` }),
      },
      {
        id: 'release-highlights',
        said: ['add a Highlights section for the top features', 'release notes need a `## Highlights` section'],
        rule: 'Add a `## Highlights` section for the top features.',
        strict: () => ({ op: 'section_present', value: 'Highlights' }),
      },
      {
        id: 'release-length',
        said: ['too thin - it should be at least 600 characters', 'release notes must be at least 600 characters, this is too short'],
        rule: 'Make release notes detailed: at least 600 characters.',
        strict: () => ({ op: 'min_chars', value: 600 }),
      },
    ],
  },
  {
    key: 'pr',
    title: 'PR descriptions',
    projects: ['ledgerline', 'tallybook'],
    asks: ['write the PR description for #{pr}: {change}', 'summarize pull request #{pr} for the reviewers', 'fill in the pull request body for {change}', 'I opened PR #{pr} ({change}), write its description', 'PR description for #{pr} please', 'describe the changes in PR #{pr} for review', 'draft the PR body for {change}', 'write a pull request description: {change} (#{pr})'],
    hidden: (s) => ({ intent: `Write the pull request description for PR #${s.pr} (${s.change}).`, context: `The diff touches src/${s.file}.ts and its tests.` }),
    answer: (s) => `This pull request makes the following changes.\n\n- ${cap(s.change)}\n\n${'Reviewers should look at the diff as a whole; the change is self-contained. '.repeat(8)}`,
    prefs: [
      {
        id: 'pr-testing',
        said: ['add a `## Testing` section saying how to verify it locally', 'PR descriptions need a Testing section'],
        rule: 'Add a `## Testing` section saying how to verify locally.',
        strict: () => ({ op: 'section_present', value: 'Testing' }),
      },
      {
        id: 'pr-brief',
        said: ['way too long, keep it under 500 characters', 'keep PR descriptions under 500 characters'],
        rule: 'Keep PR descriptions under 500 characters.',
        strict: () => ({ op: 'max_chars', value: 500 }),
      },
      {
        id: 'pr-risk',
        said: ['state the risk level in a `## Risk` section', 'add a Risk section'],
        rule: 'Add a `## Risk` section stating the risk level.',
        strict: () => ({ op: 'section_present', value: 'Risk' }),
      },
    ],
  },
  {
    key: 'tests',
    title: 'Unit tests',
    projects: ['tallybook'],
    asks: ['write vitest cases for {fn}', 'add a unit test for {fn} in src/{file}.ts', 'we need tests for {fn}', 'cover {fn} with unit tests', '{fn} has no tests yet, add some', 'write a spec for {fn}', 'test {fn} properly, the edge cases matter', 'I need vitest coverage for {fn} in src/{file}.ts'],
    hidden: (s) => ({ intent: `Write unit tests for the \`${s.fn}\` function in src/${s.file}.ts.`, context: `src/${s.file}.ts exports ${s.fn}(input). The project uses ESM and TypeScript.` }),
    answer: (s) => `Here are tests for \`${s.fn}\`:\n\n\`\`\`ts\nimport { ${s.fn} } from '../src/${s.file}';\n\ntest('${s.fn} works', () => {\n  const spy = jest.fn();\n  expect(${s.fn}(spy)).toBeDefined();\n});\n\`\`\``,
    prefs: [
      {
        id: 'tests-no-jest',
        said: ['stop using `jest.fn`, this repo is on vitest', 'no jest APIs here, we use vitest'],
        rule: 'Never use jest APIs such as `jest.fn`.',
        strict: () => ({ op: 'not_contains', value: 'jest.' }),
      },
      {
        id: 'tests-each',
        said: ['use `it.each` for the input variants', 'cover the variants with a table-driven `it.each`'],
        rule: 'Cover input variants with table-driven `it.each` cases.',
        strict: () => ({ op: 'contains', value: 'it.each' }),
      },
      {
        id: 'tests-describe',
        said: ['wrap the cases in a describe block named after the function', 'group them in a `describe` block named after the function'],
        rule: "Wrap the cases in a `describe('<function>')` block named after the function.",
        strict: (s) => ({ op: 'contains', value: `describe('${s.fn}'` }),
      },
    ],
  },
];

const cap = (s: string): string => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** Objects the transcripts use; the hidden instances draw from the disjoint second half. */
const CHANGES = [
  'fix the rounding of half cents',
  'add a --json flag to the export command',
  'handle empty ledgers in the importer',
  'speed up the balance query',
  'drop Node 18 support',
  'support ISO week numbers in reports',
  'fix the memory leak in the scheduler',
  'rename the sync command to pull',
  // hidden only
  'add retry with backoff to the HTTP client',
  'fix the crash when the config file is empty',
  'remove the deprecated --legacy flag',
  'change the default log level to warn',
  'handle Windows paths in the watcher',
  'add OpenTelemetry tracing hooks',
];
const FUNCTIONS = ['parseAmount', 'formatCurrency', 'splitLedger', 'roundHalfEven', 'parseDuration', 'slugify', 'mergeConfig', 'formatBytes', 'chunkArray', 'debounce'];
const FILES = ['amount', 'currency', 'ledger', 'rounding', 'duration', 'slug', 'config', 'bytes', 'array', 'timing'];
const PACKAGES = ['ledgerline', 'tallybook', 'fastcache', 'logpipe'];
const AUTHORS: Array<[string, string]> = [
  ['Dana Kim', 'dana@kim.dev'],
  ['Ravi Patel', 'ravi@patel.io'],
  ['Mia Lopez', 'mia@lopez.dev'],
];

type Rand = () => number;
const pick = <T>(r: Rand, xs: T[]): T => xs[Math.floor(r() * xs.length)];
const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

function subject(r: Rand, hidden: boolean): Subject {
  const half = (xs: string[]) => (hidden ? xs.slice(Math.floor(xs.length / 2) + 1) : xs.slice(0, Math.floor(xs.length / 2) + 1));
  const [author, email] = pick(r, AUTHORS);
  const fi = int(r, 0, half(FUNCTIONS).length - 1);
  return {
    change: pick(r, hidden ? CHANGES.slice(8) : CHANGES.slice(0, 8)),
    pr: hidden ? int(r, 500, 999) : int(r, 100, 499),
    version: `${int(r, 1, 4)}.${int(r, 0, 12)}.${int(r, 0, 9)}`,
    pkg: pick(r, PACKAGES),
    fn: half(FUNCTIONS)[fi],
    file: half(FILES)[fi],
    author,
    email,
  };
}

function fill(template: string, s: Subject): string {
  return template
    .replace(/\{change\}/g, s.change)
    .replace(/\{pr\}/g, String(s.pr))
    .replace(/\{ver\}/g, s.version)
    .replace(/\{pkg\}/g, s.pkg)
    .replace(/\{fn\}/g, s.fn)
    .replace(/\{file\}/g, s.file);
}

// ---- sessions -------------------------------------------------------------------------------

export interface E2eTurn {
  prompt: string;
  reply: string;
  /** labels for the bench: what the prompt is */
  label: { kind: 'ask'; job: JobKey | 'one-off' } | { kind: 'correction'; job: JobKey; pref: string } | { kind: 'praise' } | { kind: 'follow-up'; job: JobKey | 'one-off' };
  tools?: Array<{ name: string; input: string; output: string }>;
}

export interface E2eSession {
  project: string;
  /** days before "now" */
  day: number;
  turns: E2eTurn[];
}

const ONE_OFFS = [
  'explain how the retry logic in src/{file}.ts works',
  'bump typescript to 5.9 and fix whatever breaks',
  'why is the CI job so slow lately?',
  'rename {fn} to {fn}Safe across the codebase',
  'set up a GitHub Actions workflow that runs npm test on pull requests',
  'what does the --strict flag of the importer do?',
  'add a .editorconfig with two-space indentation',
  'profile the startup time of the CLI',
];

const PRAISE = ['thanks', 'perfect, thanks', 'looks good', 'great, that works'];

function revisedReply(job: E2eJob, s: Subject, fixed: string[]): string {
  return `Updated the ${job.title.toLowerCase().replace(/s$/, '')} for ${s.change}. Applied: ${fixed.join('; ')}.`;
}

/**
 * The sessions of one seed: for each job and project it recurs in, `perProject` sessions asking
 * it (one or two preferences corrected each time, or praise), with follow-up asks, praise and
 * one-offs mixed in.
 */
export function e2eSessions(seed: number, perProject = 7, jobs: readonly E2eJob[] = E2E_JOBS): E2eSession[] {
  const r = mulberry32(seed * 7919 + 17);
  const sessions: E2eSession[] = [];
  for (const job of jobs) {
    for (const project of job.projects) {
      // a job of one project is that project's daily work: it comes up half as often again there
      const n = job.projects.length === 1 ? Math.round(perProject * 1.5) : perProject;
      for (let k = 0; k < n; k++) {
        const s = subject(r, false);
        const turns: E2eTurn[] = [];
        turns.push({ prompt: fill(pick(r, job.asks), s), reply: job.answer(s), label: { kind: 'ask', job: job.key }, tools: [{ name: 'Bash', input: 'git status --short', output: ' M src/index.ts' }] });
        // the user corrects one or two things they care about (85% of the time), else accepts
        if (r() < 0.85) {
          const prefs = [...job.prefs].sort(() => r() - 0.5).slice(0, r() < 0.5 ? 1 : 2);
          const fixed: string[] = [];
          for (const p of prefs) {
            fixed.push(p.id);
            turns.push({ prompt: pick(r, p.said), reply: revisedReply(job, s, fixed), label: { kind: 'correction', job: job.key, pref: p.id } });
          }
          if (r() < 0.4) turns.push({ prompt: pick(r, PRAISE), reply: 'Glad it helps.', label: { kind: 'praise' } });
        } else {
          turns.push({ prompt: pick(r, PRAISE), reply: 'Glad it helps.', label: { kind: 'praise' } });
        }
        // a follow-up ask in the same session is a new ask, not a correction
        const f = r();
        if (f < 0.2 && job.key !== 'commit') {
          turns.push({ prompt: 'now write the commit message for it too', reply: `Update: ${s.change}`, label: { kind: 'follow-up', job: 'commit' } });
        } else if (f < 0.35) {
          turns.push({ prompt: fill('also fix the null handling in src/{file}.ts', s), reply: 'Added a null guard before the lookup.', label: { kind: 'follow-up', job: 'one-off' } });
        }
        sessions.push({ project, day: int(r, 0, 20), turns });
      }
    }
  }
  // one-off sessions in both projects
  for (let k = 0; k < 6; k++) {
    const s = subject(r, false);
    sessions.push({ project: pick(r, E2E_PROJECTS), day: int(r, 0, 20), turns: [{ prompt: fill(ONE_OFFS[(k + seed) % ONE_OFFS.length], s), reply: 'Done; see the diff.', label: { kind: 'ask', job: 'one-off' } }] });
  }
  // shuffle (a stable order by day, then by draw)
  return sessions.map((x) => ({ x, k: r() })).sort((a, b) => a.k - b.k).map((a) => a.x);
}

// ---- hidden test instances ------------------------------------------------------------------

export interface HiddenInstance {
  job: JobKey;
  project: string;
  task: Task;
}

/** `perJob` hidden instances of every job (other wording, other objects), strict verifiers with their own values. */
export function e2eHiddenInstances(seed: number, perJob = 8, jobs: readonly E2eJob[] = E2E_JOBS): HiddenInstance[] {
  const r = mulberry32(seed * 104_729 + 3);
  const out: HiddenInstance[] = [];
  for (const job of jobs) {
    for (let k = 0; k < perJob; k++) {
      const s = subject(r, true);
      const { intent, context } = job.hidden(s);
      const project = job.projects[k % job.projects.length];
      const checks: Check[] = job.prefs.map((p) => ({ id: p.id, ...p.strict(s), weight: 1, sealed: true, description: p.rule }) as Check);
      out.push({
        job: job.key,
        project,
        task: {
          id: stableId('e2e-hidden', String(seed), job.key, String(k)),
          project: null,
          intent,
          context,
          judge: { checks, reference: { kind: 'rule' } },
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
      });
    }
  }
  return out;
}

// ---- baseline skills ------------------------------------------------------------------------

/** The oracle: every preference as a careful person writes it, scoped to its job. */
export function e2eOracleSkill(): string {
  const sections = E2E_JOBS.map((j) => `## ${j.title}\n${j.prefs.map((p) => `- ${p.rule}`).join('\n')}`);
  return `# Conventions\n\n${sections.join('\n\n')}\n`;
}

/**
 * What a note-taking memory tool writes: every correction the user typed in this project's
 * sessions, verbatim, one bullet each (deduplicated), in the order they were said.
 */
export function e2eCorrectionsVerbatimSkill(sessions: E2eSession[], project: string): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const s of sessions) {
    if (s.project !== project) continue;
    for (const t of s.turns) {
      if (t.label.kind !== 'correction' || seen.has(t.prompt)) continue;
      seen.add(t.prompt);
      lines.push(`- ${t.prompt}`);
    }
  }
  return `# Notes from corrections\n\n${lines.join('\n')}\n`;
}
