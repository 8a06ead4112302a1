/**
 * What an agent does in a turn, for the mining corpora: realistic tool calls (the files it reads and
 * writes, the commands it runs) for each recurring job, for code changes and for one-off asks, in
 * the tool names and input shapes each agent's transcripts carry (Claude Code: Read/Edit/Write/Bash
 * with a file path or a command; Codex: shell `bash -lc …` and apply_patch bodies; Copilot CLI:
 * view/edit/create/bash). Real transcripts carry this evidence, and it depends on the job, never on
 * how the ask was worded: the same profiles serve every template set (dev, heldout, fresh) and the
 * labelled corpus alike.
 *
 * Noisy on purpose: a step happens with a probability (an agent often answers a commit-message ask
 * in text without running `git commit`, or reads before it writes), verification commands (tests,
 * tsc) run across jobs, and git reads (log, diff) are shared by several text-writing jobs.
 */
import type { CorpusSession } from './mine-corpus.js';

type Rand = () => number;
type Step = { p: number; read?: string; write?: string; run?: string };
interface WorkContext {
  rand: Rand;
  /** a source file the ask is about (relative to the project) */
  src: string;
  ver: string;
  pkg: string;
}

const DIRS = ['utils', 'lib', 'core', 'api', 'cli', 'services'];
const NAMES = ['parse-amount', 'format-date', 'load-config', 'render-user', 'validate-token', 'merge-range', 'resolve-header', 'compute-invoice'];
const PKGS = ['react', 'zod', 'vite', 'eslint', 'typescript', 'prisma', 'express', 'vitest', 'axios', 'pino'];
const TABLES = ['users', 'orders', 'invoices', 'accounts', 'payments'];
const COLS = ['created_at', 'deleted_at', 'status', 'currency', 'tenant_id'];

/** The steps of a job's turn, in order, each taken with its probability. */
function profile(job: string, c: WorkContext): Step[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(c.rand() * xs.length)];
  const test = c.src.replace(/\.ts$/, '.test.ts');
  switch (job) {
    case 'unit-tests':
      return [
        { p: 0.9, read: c.src },
        { p: 0.85, write: test },
        { p: 0.7, run: `npx vitest run ${test}` },
      ];
    case 'type-errors':
      return [
        { p: 0.8, run: 'npx tsc --noEmit' },
        { p: 0.6, read: c.src },
        { p: 0.9, write: c.src },
        { p: 0.3, run: 'npm test' },
      ];
    case 'lint':
      return [
        { p: 0.8, run: pick([`npx eslint ${c.src}`, 'npm run lint']) },
        { p: 0.3, run: `npx eslint --fix ${c.src}` },
        { p: 0.85, write: c.src },
        { p: 0.2, run: `npx prettier --write ${c.src}` },
      ];
    case 'changelog':
      return [
        { p: 0.5, read: 'CHANGELOG.md' },
        { p: 0.4, run: 'git log --oneline -10' },
        { p: 0.85, write: 'CHANGELOG.md' },
      ];
    case 'commit-message':
      return [
        { p: 0.9, run: 'git diff --staged' },
        { p: 0.4, run: `git commit -m "fix: ${pick(['handle empty input', 'retry on 429', 'guard the null case'])}"` },
      ];
    case 'pr-description':
      return [
        { p: 0.7, run: 'git log main..HEAD --oneline' },
        { p: 0.5, run: 'git diff main...HEAD --stat' },
        { p: 0.45, run: pick(['gh pr edit --body-file /tmp/pr-body.md', 'gh pr create --fill-first --body-file /tmp/pr-body.md', 'gh pr view --json body']) },
      ];
    case 'release-notes':
      return [
        { p: 0.8, run: `git log v${c.ver}..HEAD --oneline` },
        { p: 0.35, write: 'RELEASE_NOTES.md' },
        { p: 0.3, run: pick([`gh release create v${c.ver} --notes-file RELEASE_NOTES.md`, `gh release edit v${c.ver} --notes-file /tmp/notes.md`]) },
      ];
    case 'cut-release':
      return [
        { p: 0.3, run: 'npm test' },
        { p: 0.7, run: pick(['npm version patch', 'npm version minor', `npm version ${c.ver}`]) },
        { p: 0.3, run: `git tag v${c.ver}` },
        { p: 0.6, run: 'git push --follow-tags' },
        { p: 0.6, run: 'npm publish' },
      ];
    case 'db-migration': {
      const t = pick(TABLES);
      const col = pick(COLS);
      return pick([
        [
          { p: 0.3, run: `npx knex migrate:make add_${col}_to_${t}` },
          { p: 0.85, write: `migrations/20261${Math.floor(c.rand() * 9)}01_add_${col}_to_${t}.ts` },
          { p: 0.4, run: 'npx knex migrate:latest' },
        ],
        [
          { p: 0.85, write: 'prisma/schema.prisma' },
          { p: 0.7, run: `npx prisma migrate dev --name add_${col}` },
        ],
      ]);
    }
    case 'ci-failure':
      return [
        { p: 0.5, run: 'gh run list --limit 5' },
        { p: 0.7, run: `gh run view ${1000 + Math.floor(c.rand() * 9000)} --log-failed` },
        { p: 0.6, read: '.github/workflows/ci.yml' },
        { p: 0.3, write: pick(['.github/workflows/ci.yml', c.src]) },
      ];
    case 'docs':
    case 'readme':
      return job === 'readme' || c.rand() < 0.6 ? [{ p: 0.5, read: 'README.md' }, { p: 0.9, write: 'README.md' }] : [{ p: 0.5, read: c.src }, { p: 0.9, write: `docs/${pick(NAMES)}.md` }];
    case 'dependency-upgrade':
      return [
        { p: 0.3, run: 'npm outdated' },
        { p: 0.85, run: pick([`npm install ${c.pkg}@latest`, `npm install ${c.pkg}@${c.ver}`, `npm update ${c.pkg}`]) },
        { p: 0.3, write: 'package.json' },
        { p: 0.3, write: c.src },
        { p: 0.6, run: 'npm test' },
      ];
    case 'jsdoc':
      return [
        { p: 0.7, read: c.src },
        { p: 0.9, write: c.src },
        { p: 0.2, run: 'npx tsc --noEmit' },
      ];
    case 'explain-error':
      return [
        { p: 0.9, read: c.src },
        { p: 0.2, run: `node -e "require('./${c.src.replace(/\.ts$/, '.js')}')"` },
      ];
    default:
      return [];
  }
}

/** A code change asked as a follow-up (null handling, a rename, moving a function): edit source, run the tests. */
function codeChange(c: WorkContext): Step[] {
  return [
    { p: 0.7, read: c.src },
    { p: 0.9, write: c.src },
    { p: 0.3, write: `src/${DIRS[Math.floor(c.rand() * DIRS.length)]}/${NAMES[Math.floor(c.rand() * NAMES.length)]}.ts` },
    { p: 0.5, run: 'npm test' },
  ];
}

/** A one-off (explain, compare, prototype…): mostly reading, sometimes a scratch file or a probe command. */
function oneOff(c: WorkContext): Step[] {
  return [
    { p: 0.8, read: c.src },
    { p: 0.4, read: `src/${DIRS[Math.floor(c.rand() * DIRS.length)]}/index.ts` },
    { p: 0.25, write: `scratch/${NAMES[Math.floor(c.rand() * NAMES.length)]}-notes.md` },
    { p: 0.15, run: ['node scripts/probe.mjs', 'curl -s localhost:3000/health', 'docker compose ps'][Math.floor(c.rand() * 3)] },
  ];
}

const KNOWN = new Set(['unit-tests', 'type-errors', 'lint', 'changelog', 'commit-message', 'pr-description', 'release-notes', 'cut-release', 'db-migration', 'ci-failure', 'docs', 'readme', 'dependency-upgrade', 'jsdoc', 'explain-error']);

export type ToolEvent = Pick<CorpusSession['events'][number], 'role' | 'kind' | 'toolName' | 'isError' | 'text'>;

/**
 * The tool calls (and their results) of one agent turn for a job (a recurring job's name, a code
 * change's label, or null for a one-off), in the agent's own tool names. `redo`: a turn answering
 * a correction (the agent redoes part of the work, so fewer steps).
 */
export function agentWork(agent: string, project: string | null, job: string | null, rand: Rand, redo = false): ToolEvent[] {
  const c: WorkContext = {
    rand,
    src: `src/${DIRS[Math.floor(rand() * DIRS.length)]}/${NAMES[Math.floor(rand() * NAMES.length)]}.ts`,
    ver: `${1 + Math.floor(rand() * 4)}.${Math.floor(rand() * 12)}.${Math.floor(rand() * 9)}`,
    pkg: PKGS[Math.floor(rand() * PKGS.length)],
  };
  const steps = job === null || job.startsWith('one-off') || job.startsWith('noise') ? oneOff(c) : KNOWN.has(job) ? profile(job, c) : codeChange(c);
  const root = project ?? '/home/dana/scratch';
  const out: ToolEvent[] = [];
  for (const s of steps) {
    if (rand() >= (redo ? s.p * 0.5 : s.p)) continue;
    out.push(...call(agent, root, s, rand));
  }
  return out;
}

function call(agent: string, root: string, s: Step, rand: Rand): ToolEvent[] {
  const err = rand() < 0.06;
  const result = (toolName: string): ToolEvent => ({ role: 'tool', kind: 'tool_result', toolName, isError: err, text: err ? 'Error: Exit code 1' : 'ok' });
  const at = (p: string) => `${root}/${p}`;
  if (agent === 'codex') {
    if (s.run) return [{ role: 'assistant', kind: 'tool_call', toolName: 'shell', text: `bash -lc ${s.run}` }, result('shell')];
    if (s.read) return [{ role: 'assistant', kind: 'tool_call', toolName: 'shell', text: `bash -lc sed -n 1,200p ${s.read}` }, result('shell')];
    return [{ role: 'assistant', kind: 'tool_call', toolName: 'apply_patch', text: `*** Begin Patch\n*** Update File: ${s.write}\n@@\n+…\n*** End Patch` }, result('apply_patch')];
  }
  const [read, edit, shell] = agent === 'copilot' ? ['view', 'edit', 'bash'] : ['Read', 'Edit', 'Bash'];
  if (s.run) return [{ role: 'assistant', kind: 'tool_call', toolName: shell, text: s.run }, result(shell)];
  if (s.read) return [{ role: 'assistant', kind: 'tool_call', toolName: read, text: at(s.read) }, result(read)];
  return [{ role: 'assistant', kind: 'tool_call', toolName: edit, text: at(s.write!) }, result(edit)];
}
