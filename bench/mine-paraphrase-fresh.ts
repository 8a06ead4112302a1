/**
 * A third template set for the paraphrase corpus, `fresh`: new wordings of the same twelve jobs,
 * their corrections and follow-ups, written in one go before the mining code was changed against
 * the held-out set's errors (the held-out set has since been read while diagnosing, so it is no
 * longer blind). Nothing in src/ may be adjusted to a line of this file: it is the honest measure
 * of how mining generalises to wording it has never seen. Add new sets rather than edit this one.
 */
import type { FollowUp } from './mine-paraphrase.js';

export const FRESH_ASKS: Record<string, { asks: string[]; corrections: string[] }> = {
  'unit-tests': {
    asks: [
      'write some tests around {fn}',
      '{file} needs test coverage',
      'add vitest specs covering {module}',
      'please add test cases for {fn} including the error path',
      'I want {fn} tested: null input, huge input',
      'create a test suite for {module}',
    ],
    corrections: ['assert on the thrown message too', "don't snapshot, assert the values", 'one expect per case'],
  },
  'type-errors': {
    asks: [
      'the build fails with type errors in {file}',
      'fix TS7006 in {module}',
      'tsc reports errors after my refactor of {module}',
      'can you make {file} typecheck',
      'clear up the typescript errors in {module}',
      'typecheck is failing on {file}, take a look',
    ],
    corrections: ['no non-null assertions', 'keep the public types as they are', 'still one error left in the test file'],
  },
  lint: {
    asks: [
      'eslint reports errors in {module}, clean them up',
      'make {file} pass the linter',
      'the lint step fails on {file}',
      'fix all the prettier issues in {module}',
      'lint errors again in {file}, please fix',
      'run eslint --fix on {module} and fix the rest by hand',
    ],
    corrections: ['keep the import order rule', "don't reformat unrelated files", 'no eslint-disable-next-line'],
  },
  changelog: {
    asks: [
      'changelog entry for {fix} please',
      'note PR #{pr} in the CHANGELOG',
      'add the {module} change to the changelog',
      'put a line about {fix} in CHANGELOG.md under Fixed',
      'update CHANGELOG.md with #{pr}',
      'the changelog is missing {fix}, add it',
    ],
    corrections: ['the entry should reference the issue number', 'past tense, not present', 'that goes under Changed, not Added'],
  },
  'commit-message': {
    asks: [
      'commit message please: {fix}',
      'write a conventional commit for {fix}',
      'what would be a good commit message for the {module} work',
      'draft a commit for these changes to {file}',
      'I need to commit {fix}, write the message',
      'come up with a commit message for the staged diff',
    ],
    corrections: ['the body should explain why, not what', 'wrap the body at 72 columns', 'use fix: instead of feat:'],
  },
  'pr-description': {
    asks: [
      'PR body for {fix} please',
      'write a pull request description covering {module}',
      'describe PR #{pr} for reviewers',
      'the pull request for {fix} needs a summary and a test plan',
      'draft the PR text for this branch',
      'fill the pull request template in for #{pr}',
    ],
    corrections: ['include placeholders for screenshots', 'the test plan needs concrete steps', 'mention which issue it fixes'],
  },
  'release-notes': {
    asks: [
      'release notes for v{ver} please',
      'write the notes for the v{ver} release, for users',
      'summarize what changed in {ver} as release notes',
      'draft user-facing notes for version {ver}',
      'the {ver} GitHub release needs notes',
      'write up the release notes since v{ver}',
    ],
    corrections: ['the title must read `# Release v{ver}`', 'needs to be longer, 600 characters at least', 'highlights go at the top', 'no internal refactors in user-facing notes'],
  },
  'cut-release': {
    asks: [
      'time to cut {ver}: bump, tag, publish',
      'publish a patch release to npm',
      'do the release for {ver}',
      'bump to {ver}, tag it and push',
      'release a new minor version of the package',
      'tag and publish v{ver}',
    ],
    corrections: ['the tag needs the v prefix', 'run the build before npm publish'],
  },
  'db-migration': {
    asks: [
      'add {col} to {table} with a migration',
      'write a knex migration creating an index on {table}.{col}',
      'migration: drop {col} from {table}',
      'I need a migration that renames {col} in {table}',
      'database migration for the new {col} column on {table}',
      'make {table}.{col} not null, write the migration',
    ],
    corrections: ['the migration must be reversible', 'wrap it in a transaction', 'never rename in place, add and backfill'],
  },
  'ci-failure': {
    asks: [
      'CI failed on #{pr}, what went wrong',
      'why did the build pipeline break on main',
      'the github actions run for {module} is red, investigate',
      'check why CI keeps failing since {fix}',
      'the nightly workflow failed, find the cause',
      'CI is broken again, dig into the logs',
    ],
    corrections: ["it's the lint job, not the tests", 'the runner image changed, look there'],
  },
  docs: {
    asks: [
      'write a README section on {module}',
      'docs are missing for {fn}, add them',
      'update the documentation for {module}',
      'add {module} to the docs with an example',
      'explain how {module} works in README.md',
      'document the {module} options',
    ],
    corrections: ['every example should be copy-pasteable', 'use a table for the options'],
  },
  'dependency-upgrade': {
    asks: [
      'upgrade {pkg} to {ver}',
      'bump {pkg} please',
      'get {pkg} up to date',
      'we are several versions behind on {pkg}, update it',
      'dependabot opened a PR for {pkg} {ver}, apply the upgrade',
      'update {pkg} and fix the breaking changes',
    ],
    corrections: ['pin it with an exact version', 'also regenerate the lockfile'],
  },
};

export const FRESH_FOLLOW_UPS: FollowUp[] = [
  { text: 'fix the error handling in {file} as well', job: 'error-handling' },
  { text: 'now tests for {fn2}', job: 'unit-tests' },
  { text: 'also a changelog entry please', job: 'changelog' },
  { text: 'next, write the commit message', job: 'commit-message' },
  { text: 'and upgrade {pkg} too', job: 'dependency-upgrade' },
  { text: 'then move {fn2} into {file}', job: 'move-function' },
];
