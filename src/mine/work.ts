/**
 * What the agent did for an ask, read from its tool calls: the files it wrote and the commands it
 * ran, each reduced to a *work sign* that names the kind of artefact or tool, never the object
 * ("wrote CHANGELOG.md", "wrote a test file (*.test.ts)", "wrote src/*.ts", "ran git commit",
 * "ran tsc"). However an ask is worded, the job behind it shows in the artefact touched, so the
 * cluster review shows these signs beside the asks (cluster-review.ts).
 *
 * Deliberately a reading of paths and command lines, not a vocabulary of jobs: which sign means
 * which job is the reader's knowledge (the model's, or the sim's), not the miner's.
 */
import { isCommandTool } from '../core/tool-kinds.js';

/** Signs kept per ask (a long agentic turn touches many files; the first distinct ones tell the job). */
export const MAX_WORK_SIGNS = 8;

/** Tools that write a file, across agents (Edit, Write, MultiEdit, apply_patch, create, str_replace_editor, …). */
const WRITE_TOOL_RE = /edit|write|create|patch|replace|insert/i;
/** Paths named in an apply_patch body. */
const PATCH_FILE_RE = /\*\*\* (?:Add|Update) File: (\S+)/g;
/** A test file by the naming conventions of the common test runners. */
const TEST_FILE_RE = /(?:\.(?:test|spec)\.[cm]?[jt]sx?$|_test\.(?:go|py|rb)$|^test_[^/]*\.py$|_spec\.rb$|Test\.(?:java|kt)$)/;
const TEST_DIR_RE = /(?:^|\/)(?:__tests__|tests?|spec)\//;
/** Commands that only read (what the agent looked at, not what it did). */
const READ_ONLY = new Set(['cat', 'ls', 'grep', 'rg', 'head', 'tail', 'find', 'pwd', 'echo', 'wc', 'sed', 'awk', 'less', 'tree', 'which', 'cd', 'true']);
const READ_ONLY_GIT = new Set(['status', 'diff', 'log', 'show', 'branch', 'blame', 'rev-parse', 'describe', 'shortlog', 'remote']);
/** Package runners whose next word is the real program (`npx tsc`, `pnpm exec eslint`). */
const RUNNERS = new Set(['npx', 'bunx', 'pnpx']);
const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);

/**
 * The shape of a written path: its kind of file, never its name when the name is an object.
 * A test file is "a test file (*.test.ts)"; a file at the project root keeps its name (CHANGELOG.md,
 * package.json: root files are the project's conventions); a file in a dot directory keeps its
 * first two directories (.github/workflows/*); anything else is its top directory and extension
 * (src/*.ts, migrations/*.sql, docs/*.md).
 */
export function fileSign(rawPath: string, project?: string | null): string | null {
  let p = rawPath.trim().replace(/^['"]|['"]$/g, '').replace(/\\/g, '/');
  if (!p) return null;
  if (project) {
    const root = project.replace(/\\/g, '/').replace(/\/+$/, '') + '/';
    if (p.startsWith(root)) p = p.slice(root.length);
  }
  if (p.startsWith('/') || p.startsWith('~')) {
    // a path outside the project (or no project known): only its last two parts say anything
    p = p.split('/').filter(Boolean).slice(-2).join('/');
  }
  p = p.replace(/^\.\//, '');
  const parts = p.split('/').filter(Boolean);
  const name = parts[parts.length - 1] ?? '';
  if (!name) return null;
  const ext = /\.([\w]+)$/.exec(name)?.[1];
  if (TEST_FILE_RE.test(name) || TEST_DIR_RE.test(p)) return `wrote a test file (*.test.${ext ?? 'ts'})`;
  if (parts.length === 1) return `wrote ${name}`;
  if (parts[0].startsWith('.')) return `wrote ${parts.slice(0, Math.min(2, parts.length - 1)).join('/')}/*`;
  return `wrote ${parts[0]}/*${ext ? `.${ext}` : ''}`;
}

/** The program and subcommand of each command of a command line (`git commit`, `npm run lint`, `tsc`); read-only ones left out. */
export function commandSigns(commandLine: string): string[] {
  const out: string[] = [];
  // `bash -lc "…"` and codex's `["bash","-lc","…"]` (summarised as words) wrap the real command
  const line = commandLine.replace(/^\s*\[?\s*"?(?:ba|z)?sh"?\s*,?\s*"?-l?c"?\s*,?\s*/, '').replace(/["\]]+\s*$/, '');
  for (const segment of line.split(/&&|\|\||[;|\n]/)) {
    const words = segment
      .trim()
      .split(/\s+/)
      .filter((w) => w && !/^\w+=/.test(w)); // env assignments (CI=1 npm test)
    if (!words.length) continue;
    let i = 0;
    if (RUNNERS.has(words[i])) i++;
    else if (words[i] === 'pnpm' && words[i + 1] === 'exec') i += 2;
    const prog = words[i]?.replace(/^.*\//, '');
    if (!prog || READ_ONLY.has(prog) || !/^[\w.:@-]+$/.test(prog)) continue;
    const rest = words.slice(i + 1).filter((w) => !w.startsWith('-'));
    let sub: string | undefined = rest[0];
    if (PACKAGE_MANAGERS.has(prog) && sub === 'run') sub = `run ${rest[1] ?? ''}`.trim();
    // a subcommand is a word; a path, a package spec or a message is an object
    if (sub && !/^[a-z][\w:-]*( [\w:-]+)?$/.test(sub)) sub = undefined;
    if (prog === 'git' && sub && READ_ONLY_GIT.has(sub)) continue;
    // programs run directly on a file take no subcommand (eslint src/x.ts, tsc --noEmit, vitest run)
    const withSub = PACKAGE_MANAGERS.has(prog) || ['git', 'gh', 'glab', 'docker', 'kubectl', 'cargo', 'go', 'knex', 'prisma', 'drizzle-kit', 'changeset', 'vitest', 'jest'].includes(prog);
    out.push(`ran ${withSub && sub ? `${prog} ${sub}` : prog}`);
  }
  return out;
}

/** The work signs of one tool call (empty for reads, searches and anything that writes nothing). */
export function workSignsOfCall(toolName: string, input: string, project?: string | null): string[] {
  const name = toolName.trim();
  if (!input) return [];
  if (isCommandTool(name)) {
    // codex runs apply_patch through its shell too
    if (/\*\*\* (?:Add|Update) File:/.test(input)) return patchFiles(input, project);
    return commandSigns(input);
  }
  if (/apply_patch/i.test(name)) return patchFiles(input, project);
  if (WRITE_TOOL_RE.test(name)) {
    const path = input.split(/\s/, 1)[0];
    const s = fileSign(path, project);
    return s ? [s] : [];
  }
  return [];
}

function patchFiles(input: string, project?: string | null): string[] {
  const out: string[] = [];
  for (const m of input.matchAll(PATCH_FILE_RE)) {
    const s = fileSign(m[1], project);
    if (s) out.push(s);
  }
  return out;
}

/** Adds signs to a list, keeping it distinct and bounded. */
export function addWorkSigns(into: string[], signs: string[]): void {
  for (const s of signs) if (into.length < MAX_WORK_SIGNS && !into.includes(s)) into.push(s);
}
