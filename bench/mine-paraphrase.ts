/**
 * A labelled paraphrase corpus for mining: twelve recurring software jobs, each asked in six
 * phrasing templates with varied objects (functions, files, modules, fixes, PR numbers), one-off
 * asks, three projects plus sessions without a project, follow-up asks and the user's corrections
 * (many of them phrased as plain instructions) mixed in. Deterministic per seed.
 *
 * Every job has two disjoint template sets: `dev` (what the mining code may be developed against)
 * and `heldout` (different wording, evaluated only, never tuned against). Objects are shared
 * across jobs on purpose ("fix the memory leak" appears in changelog, commit-message and
 * PR-description asks; "the auth middleware" in tests, docs and migrations), so a miner that
 * clusters by object rather than by job loses precision.
 *
 * Labels: every ask event carries its job (or a unique one-off label); every correction and
 * follow-up event is listed, so a bench can count corrections mined as asks and follow-ups
 * swallowed as corrections.
 */
import { mulberry32 } from '../src/core/random.js';
import type { Corpus, CorpusSession } from './mine-corpus.js';
import { FRESH_ASKS, FRESH_FOLLOW_UPS } from './mine-paraphrase-fresh.js';
import { agentWork } from './mine-agent-work.js';

/** dev: mining may be developed against it; heldout: evaluated (read while diagnosing since); fresh: never read while coding (mine-paraphrase-fresh.ts). */
export type TemplateSet = 'dev' | 'heldout' | 'fresh';

export interface Job {
  name: string;
  dev: string[];
  heldout: string[];
  /** the user's reaction to an answer for this job (corrections, many phrased as plain instructions) */
  corrections: { dev: string[]; heldout: string[] };
}

/** Slots: {fn} {fn2} {file} {module} {fix} {pr} {ver} {pkg} {table} {col}. */
export const JOBS: Job[] = [
  {
    name: 'unit-tests',
    dev: [
      'write vitest cases for {fn}',
      'add a unit test for {fn}: negative numbers, thousands separators',
      'we need tests for {fn} in {file}',
      'cover {module} with unit tests',
      'please write a spec for {fn}, the edge cases matter',
      '{fn} has no tests yet, add some',
    ],
    heldout: [
      'can you test {fn}? the empty string case especially',
      'add jest-style test cases for {module}',
      "I'd like better test coverage on {file}",
      'write a test file for {fn}',
      'unit-test {fn} please',
      "there's zero coverage for {module}, write tests",
    ],
    corrections: {
      dev: ['use it.each for the cases', 'use vitest, not jest', 'tests go next to the source file as *.test.ts'],
      heldout: ['the describe block should be named after the function', 'no mocks please', 'each case needs its own it() block'],
    },
  },
  {
    name: 'type-errors',
    dev: [
      'tsc fails on {file}',
      'fix the typescript errors in {file}',
      'npm run typecheck is red',
      'TS2345 in {file}, can you sort it out',
      'the type check fails after my change to {module}',
      'resolve the type errors in {module}',
    ],
    heldout: [
      'typescript complains about {file}, please fix it',
      'get tsc --noEmit passing again',
      "there's a TS2322 error in {file}",
      'make the types compile in {module}',
      'types are broken in {file}',
      'npx tsc shows errors in {module}, fix them',
    ],
    corrections: {
      dev: ["don't use `as any`", 'no ts-ignore comments', 'still failing'],
      heldout: ['never silence errors with @ts-expect-error', 'the fix must not widen the types to unknown'],
    },
  },
  {
    name: 'lint',
    dev: [
      'make npm run lint pass',
      'fix the eslint errors',
      'eslint complains about {file}',
      'clean up the lint warnings in {module}',
      'prettier and eslint are failing on {file}',
      'run the linter on {file} and fix what it reports',
    ],
    heldout: [
      'lint is red on {file}',
      'fix the eslint warnings in {module}',
      'npm run lint shows problems in {file}, fix them',
      'get the linter clean for {module}',
      'format {file} so prettier stops complaining',
      'there are no-unused-vars errors in {file}',
    ],
    corrections: {
      dev: ["don't disable the rule, fix the code", 'still red', 'eslint-disable comments are not allowed'],
      heldout: ['fix the code rather than the config', 'no, you changed .eslintrc - revert that'],
    },
  },
  {
    name: 'changelog',
    dev: [
      'add a changelog entry for PR #{pr}: {fix}',
      'write the CHANGELOG.md entry for {fix}',
      'update the changelog for {module}',
      'changelog line for #{pr} please',
      'we merged {fix}, note it in the changelog',
      'add {fix} to CHANGELOG under Unreleased',
    ],
    heldout: [
      'record {fix} in CHANGELOG.md',
      'the changelog needs an entry for PR #{pr}',
      'document {fix} in the change log',
      'write a changelog item about {module}',
      'can you put #{pr} in the changelog',
      'changelog: {fix}',
    ],
    corrections: {
      dev: ['use Keep a Changelog format', 'link the PR', 'no, put it under Unreleased', 'entries must start with a verb in past tense'],
      heldout: ['every entry needs the PR link', 'wrong section, it belongs under Fixed', 'keep each line under 100 characters'],
    },
  },
  {
    name: 'commit-message',
    dev: [
      'give me a commit message: {fix}',
      'write a commit message for the staged changes',
      'commit msg for {fix}',
      'draft the git commit message for my {module} changes',
      'what should the commit message be for this diff',
      'suggest a commit message, I touched {file}',
    ],
    heldout: [
      'compose a commit message describing {fix}',
      'I need a good commit message for {module}',
      'commit message for the {file} changes please',
      'write the commit text for {fix}',
      'summarize the staged diff as a git commit message',
      'how should I word the commit for {fix}?',
    ],
    corrections: {
      dev: ['keep commit messages at most 500 characters', 'commit messages need a type prefix like feat:', 'no, use the imperative mood', 'too long'],
      heldout: ['the subject line should stay under 72 characters', 'always start with feat: or fix:', 'wrong - conventional commits please'],
    },
  },
  {
    name: 'pr-description',
    dev: [
      'write the PR description for this branch',
      'draft a pull request body for {fix}',
      'fill in the PR template for {module}',
      'PR description for #{pr} please',
      'describe this branch for the pull request',
      "we're opening a PR for {fix}, write the description",
    ],
    heldout: [
      'write up the pull request description for {module}',
      'I need the PR body for {fix}',
      'compose the description of PR #{pr}',
      'fill out the pull request template for this branch',
      'summarize {fix} as a PR description',
      'the PR for {module} needs a description',
    ],
    corrections: {
      dev: ['add a Testing section', 'the summary should be three bullet points at most', 'link the issue it closes'],
      heldout: ["every PR description needs a 'How to test' section", 'mention the breaking change at the top'],
    },
  },
  {
    name: 'release-notes',
    dev: [
      'write release notes for v{ver}',
      'draft the release notes for {ver}, user-facing',
      'release notes for the {ver} release',
      'prepare the GitHub release text for v{ver}',
      "what's new in {ver}? write it up as release notes",
      'summarize the changes since the last tag as release notes',
    ],
    heldout: [
      'compose the v{ver} release notes',
      'I need release notes covering {ver}',
      'write the release announcement for v{ver}',
      'release notes please, version {ver}',
      'put together the notes for the {ver} release',
      'draft the GitHub release description for {ver}',
    ],
    corrections: {
      dev: [
        'the title line must be `# Release vX.Y.Z`',
        'too thin - it should be at least 600 characters',
        'add a Highlights section for the top features',
        'group the changes by feature',
      ],
      heldout: ['the heading has to be `# Release v{ver}`', 'it needs more detail, at least 600 characters', 'put a Highlights section first', 'breaking changes need their own section'],
    },
  },
  {
    name: 'cut-release',
    dev: [
      'cut a patch release',
      'bump the version to {ver} and tag it',
      'publish {ver} to npm',
      'do a minor release of the package',
      'tag v{ver} and push the release',
      'prepare the {ver} release: version bump, tag',
    ],
    heldout: [
      'ship a new patch version',
      'release {ver} to the registry',
      'npm version patch and publish',
      'make a release: bump to {ver}',
      'we need to release {ver} today, do the version bump and tag',
      'roll a new minor version and tag it',
    ],
    corrections: {
      dev: ['the tag must be prefixed with v', 'no, run the tests before publishing'],
      heldout: ['you forgot to push the tag', 'release commits are named `chore: release vX.Y.Z`'],
    },
  },
  {
    name: 'db-migration',
    dev: [
      'write a migration to add {col} to {table}',
      'create a db migration adding a {col} column on {table}',
      'we need a schema migration for {table}.{col}',
      'add a migration that drops {col} from {table}',
      'new knex migration: index {table} on {col}',
      'migration for {module}: rename {col}',
    ],
    heldout: [
      'generate a database migration so {table} gets {col}',
      'alter {table} to add {col}, as a migration',
      'write the up and down migration for {col} on {table}',
      'the {table} table needs a {col} column, write the migration',
      'schema change: {table}.{col} becomes nullable, migration please',
      'prisma migration adding {col} to {table}',
    ],
    corrections: {
      dev: ['make it reversible', 'the down migration is missing', 'column names must be snake_case'],
      heldout: ['migrations need a down step', 'never drop columns in the same migration'],
    },
  },
  {
    name: 'ci-failure',
    dev: [
      'CI is red on main, find out why',
      'the GitHub Actions build fails on {module}',
      'why is the pipeline failing for PR #{pr}',
      'investigate the failing CI job',
      'the workflow fails at the test step since {fix}',
      'look at the CI logs and tell me what broke',
    ],
    heldout: [
      'our CI build broke, what happened',
      'figure out why the actions workflow is failing',
      'the CI check on #{pr} is failing, diagnose it',
      'github actions went red after {fix}',
      'debug the broken build pipeline',
      "what's making CI fail on the main branch",
    ],
    corrections: {
      dev: ["that's not the cause, look at the caller", 'check the node version in the workflow first'],
      heldout: ['the logs say the cache step failed, not the tests', "wrong job - it's the e2e one"],
    },
  },
  {
    name: 'docs',
    dev: [
      'update the README for {module}',
      'document {module} in docs/',
      'add a usage section to the README about {module}',
      'write docs for {fn}',
      'the README should explain {module}',
      'docs for the {module} config options',
    ],
    heldout: [
      'write documentation for {module}',
      'README.md is out of date about {module}, update it',
      'explain {module} in the docs',
      'add a docs page for {fn}',
      'document how to configure {module}',
      "the docs don't mention {module}, add it",
    ],
    corrections: {
      dev: ['add a Usage section', 'shorter please', 'examples must be runnable'],
      heldout: ['each option needs its default value listed', 'write it in second person'],
    },
  },
  {
    name: 'dependency-upgrade',
    dev: [
      'bump {pkg} to the latest version',
      'upgrade {pkg} and fix what breaks',
      'update the {pkg} dependency',
      '{pkg} is outdated, upgrade it',
      'move us to {pkg} {ver}',
      'renovate wants {pkg} {ver}, do the upgrade',
    ],
    heldout: [
      'update {pkg} to its newest release',
      'can we get on the latest {pkg}',
      'upgrade our {pkg} version and fix the breakage',
      '{pkg} needs a version bump',
      'migrate to {pkg} {ver}',
      'npm update {pkg} and make it work',
    ],
    corrections: {
      dev: ['use pnpm', 'also update the lockfile'],
      heldout: ['pin the exact version', "don't touch other dependencies"],
    },
  },
];

/**
 * Follow-up asks: a new request in the same session, right after an answer. Each is an ask of
 * the job named (a template asked in many sessions is a recurring job, even when it is a small
 * one such as renaming a function), never a correction of the answer before.
 */
export interface FollowUp {
  text: string;
  job: string | null;
}

export const FOLLOW_UPS: Record<TemplateSet, FollowUp[]> = {
  dev: [
    { text: 'fix the null handling in {file} too', job: 'null-handling' },
    { text: 'now add tests for {fn2} as well', job: 'unit-tests' },
    { text: 'also write the changelog entry for it', job: 'changelog' },
    { text: 'and then a commit message for all of it', job: 'commit-message' },
    { text: 'can you also bump {pkg}', job: 'dependency-upgrade' },
    { text: 'next: rename {fn2} to something clearer across {file}', job: 'rename' },
  ],
  heldout: [
    { text: 'handle the timeout case in {file} as well', job: 'timeout-handling' },
    { text: 'write tests for {fn2} too', job: 'unit-tests' },
    { text: 'then add it to the changelog', job: 'changelog' },
    { text: 'ok now the commit message', job: 'commit-message' },
    { text: 'while you are at it, upgrade {pkg}', job: 'dependency-upgrade' },
    { text: 'split {fn2} out of {file} into its own module', job: 'split-module' },
  ],
  fresh: FRESH_FOLLOW_UPS,
};

/** A job's ask templates and corrections in one template set. */
function templatesOf(job: Job, set: TemplateSet): { asks: string[]; corrections: string[] } {
  if (set !== 'fresh') return { asks: job[set], corrections: job.corrections[set] };
  const fresh = FRESH_ASKS[job.name];
  if (!fresh) throw new Error(`paraphrase corpus: no fresh templates for ${job.name}`);
  return fresh;
}

// objects shared across jobs, so clustering by object is penalised
const FN_A = ['parse', 'format', 'compute', 'load', 'render', 'validate', 'merge', 'resolve'];
const FN_B = ['Amount', 'Date', 'Invoice', 'Config', 'User', 'Range', 'Token', 'Header'];
const DIRS = ['utils', 'lib', 'core', 'api', 'cli'];
const MODULES = ['the auth middleware', 'the billing service', 'the CSV exporter', 'the rate limiter', 'the search index', 'the webhook handler', 'the session store', 'the upload queue'];
const FIXES = [
  'fix the memory leak',
  'handle empty carts',
  'retry on 429',
  'the timezone bug in reports',
  'faster startup',
  'drop the legacy API',
  'validate webhook signatures',
  'paginate the audit log',
];
const PKGS = ['react', 'zod', 'vite', 'eslint', 'typescript', 'prisma', 'express', 'vitest', 'axios', 'pino'];
const TABLES = ['users', 'orders', 'invoices', 'accounts', 'payments'];
const COLS = ['created_at', 'deleted_at', 'status', 'currency', 'tenant_id'];
export const PARAPHRASE_PROJECTS = ['/home/dana/src/ledgerline', '/home/dana/src/atlas-web', '/home/dana/src/payments-api'];

// one-offs: a request nobody makes twice. Only the verb (a weak word to the miner) and function
// words are shared between two of them; every content word is drawn from a large pool, so no
// one-off template recurs (a repeated frame such as "estimate how long porting X to Y would take"
// would be a recurring job, not a one-off)
const ONE_OFF_VERBS = ['explain', 'sketch', 'compare', 'brainstorm', 'estimate', 'outline', 'critique', 'prototype', 'evaluate', 'summarize'];
const ONE_OFF_FRAMES = ['{v} {a} {b} for {c}', 'can you {v} {a} with {b} and {c}', '{v} the {a} {b} around {c}', 'how would you {v} {a} {b} given {c}?'];
const ONE_OFF_WORDS = (
  'websocket kubernetes graphql terraform redis postgres oauth nginx kafka grpc webpack tailwind elasticsearch prometheus grafana ' +
  'openapi sqlite bloom-filter circuit-breaker feature-flags canary dns cors csp goroutines actors sagas outbox idempotency sharding ' +
  'crdt debounce virtualization hydration monorepo semver sbom sigstore wasm webrtc geohash mqtt reconnection heuristic ingress ' +
  'annotation subscription batching drift eviction vacuum rotation multipart keepalive rebalance deadline precache purge audience ' +
  'overlap analyzer synonyms histogram buckets alerting codegen checkpoint stampede thresholds rollout cutover preflight nonce collation ' +
  'contention mailbox backpressure compensation polling conflict throttling anchoring mismatch suspense waterfall hoisting pinning ' +
  'compliance provenance attestation tracing sampling quotas tenancy failover replicas snapshots'
).split(' ');
const SYLLABLES = ['ka', 'zo', 'mi', 'ra', 'tu', 'ven', 'lor', 'qui', 'dex', 'nal', 'bo', 'sep', 'tra', 'ghu', 'fin', 'wel'];

export interface ParaphraseCorpus extends Corpus {
  /** correction prompts (`sid#seq`) with the job they correct */
  corrections: Map<string, string>;
  /** follow-up asks (`sid#seq`): must be mined as asks */
  followUps: Set<string>;
  /** session id → project (null: a session without a project) */
  projects: Map<string, string | null>;
}

export interface ParaphraseOptions {
  sessions?: number;
  seed?: number;
  templates: TemplateSet;
  idPrefix?: string;
  startTs?: number;
}

export function generateParaphraseCorpus(opts: ParaphraseOptions): ParaphraseCorpus {
  const rand = mulberry32(opts.seed ?? 21);
  // what the agent does in each turn (bench/mine-agent-work.ts) draws from its own stream, so the
  // asks, objects and reactions of a seed stay those the corpus had before it carried tool calls
  const workRand = mulberry32(((opts.seed ?? 21) * 7919 + 13) >>> 0);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const ver = () => `${1 + Math.floor(rand() * 4)}.${Math.floor(rand() * 12)}.${Math.floor(rand() * 9)}`;
  const fn = () => pick(FN_A) + pick(FN_B);
  const fill = (s: string) =>
    s
      .replace(/\{fn2?\}/g, fn)
      .replace(/\{file\}/g, () => `src/${pick(DIRS)}/${pick(FN_A)}-${pick(FN_B).toLowerCase()}.ts`)
      .replace(/\{module\}/g, () => pick(MODULES))
      .replace(/\{fix\}/g, () => pick(FIXES))
      .replace(/\{pr\}/g, () => String(100 + Math.floor(rand() * 900)))
      .replace(/\{ver\}/g, ver)
      .replace(/\{pkg\}/g, () => pick(PKGS))
      .replace(/\{table\}/g, () => pick(TABLES))
      .replace(/\{col\}/g, () => pick(COLS));
  const set = opts.templates;
  const prefix = opts.idPrefix ?? `p${set[0]}`; // pd, ph, pf
  const n = opts.sessions ?? 300;
  let ts = opts.startTs ?? Date.UTC(2026, 9, 1);
  const sessions: CorpusSession[] = [];
  const labels = new Map<string, string>();
  const corrections = new Map<string, string>();
  const followUps = new Set<string>();
  const projects = new Map<string, string | null>();
  let oneOff = 0;
  // a project-specific made-up name (a service, a code name) and two domain words nobody else uses together
  const jargon = () => Array.from({ length: 3 + Math.floor(rand() * 2) }, () => pick(SYLLABLES)).join('');
  const oneOffAsk = () => {
    const words = ONE_OFF_WORDS.slice();
    const take = () => words.splice(Math.floor(rand() * words.length), 1)[0];
    return pick(ONE_OFF_FRAMES).replace('{v}', pick(ONE_OFF_VERBS)).replace('{a}', take()).replace('{b}', jargon()).replace('{c}', take());
  };
  for (let i = 0; i < n; i++) {
    const r = rand();
    // a legacy Copilot CLI session carries no cwd, so no project
    const agent = r < 0.05 ? 'copilot' : pick(['claude-code', 'codex', 'copilot']);
    const project = r < 0.05 ? null : pick(PARAPHRASE_PROJECTS);
    const id = `${agent}:${prefix}${i.toString(36).padStart(4, '0')}`;
    const s: CorpusSession = { id, agent, project: project as string, kind: 'interactive', startedAt: ts, events: [] };
    projects.set(id, project);
    let seq = 0;
    const push = (e: Omit<CorpusSession['events'][number], 'seq' | 'ts' | 'meta'> & { meta?: Record<string, unknown> }): string => {
      ts += 1000 + Math.floor(rand() * 20_000);
      s.events.push({ seq: seq++, ts, meta: {}, ...e });
      return `${id}#${seq - 1}`;
    };
    const answer = (text: string, job: string | null, redo = false) => {
      // (two draws of the main stream: the placeholder tool call this turn carried before)
      rand();
      rand();
      for (const e of agentWork(agent, project, job, workRand, redo)) {
        ts += 1000 + Math.floor(workRand() * 20_000);
        s.events.push({ seq: seq++, ts, meta: {}, ...e });
      }
      push({ role: 'assistant', kind: 'text', text: `Here is what I did for "${text.slice(0, 50)}".`, meta: { final: true } });
    };
    const asks = 1 + Math.floor(rand() * 3);
    for (let k = 0; k < asks; k++) {
      const job = rand() < 0.8 ? pick(JOBS) : null;
      const text = job ? fill(pick(templatesOf(job, set).asks)) : oneOffAsk();
      labels.set(push({ role: 'user', kind: 'prompt', text }), job ? job.name : `one-off:${oneOff++}`);
      answer(text, job ? job.name : null);
      const react = rand();
      if (job && react < 0.35) {
        corrections.set(push({ role: 'user', kind: 'prompt', text: fill(pick(templatesOf(job, set).corrections)) }), job.name);
        answer('the correction', job.name, true);
      } else if (react < 0.5) {
        const f = pick(FOLLOW_UPS[set]);
        const key = push({ role: 'user', kind: 'prompt', text: fill(f.text) });
        labels.set(key, f.job ?? `one-off:${oneOff++}`);
        followUps.add(key);
        answer(f.text, f.job);
      } else if (react < 0.6) {
        push({ role: 'user', kind: 'prompt', text: pick(['thanks!', 'perfect', 'lgtm']) });
      }
    }
    ts += 60_000;
    sessions.push(s);
  }
  return { sessions, labels, excluded: new Set(), corrections, followUps, projects };
}
