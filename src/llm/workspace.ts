/**
 * Temporary, marked workspaces for agent CLI runs, seeded from the user's repository so a replay
 * looks like the work it stands for.
 *
 * The marker file tells our harvester that a transcript recorded with this cwd is our own replay
 * (`self`), never a user task to mine. The workspace is created 0700 under the state dir's
 * workspaces/ and removed after the run.
 *
 * Seeding reads the user's repository through its object store only: a private git directory
 * beside the workspace (never inside it, so the agent cannot browse history that happened after
 * the session) borrows the user's objects through `objects/info/alternates` and checks the chosen
 * commit out into the workspace. Nothing is written into the user's repository, their working tree
 * and uncommitted files are never read, and their git config (hooks, fsmonitor, LFS smudge filters
 * that would download) is not loaded. The same private git directory records a baseline after our
 * own files are installed, so what the agent created or changed is a `git diff` away — seeded or not.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../core/fsutil.js';
import { SleepError } from '../core/errors.js';

export const WORKSPACE_MARKER = '.skillopt-sleep-workspace';
/** suffix of the private git directory kept beside a workspace */
const TRACK_SUFFIX = '.track';

export function createWorkspace(workspacesDir: string, info: Record<string, unknown> = {}): string {
  ensurePrivateDir(workspacesDir);
  const dir = fs.mkdtempSync(path.join(workspacesDir, 'ws-'));
  fs.chmodSync(dir, 0o700);
  fs.writeFileSync(path.join(dir, WORKSPACE_MARKER), JSON.stringify({ createdBy: 'skillopt-sleep', pid: process.pid, createdAt: new Date().toISOString(), ...info }) + '\n', {
    mode: 0o600,
  });
  return dir;
}

/** Writes `content` at `relPath` inside the workspace; refuses any path that escapes it. */
export function installFile(workspace: string, relPath: string, content: string): string {
  const target = resolveInside(workspace, relPath);
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  fs.writeFileSync(target, content, { mode: 0o600 });
  return target;
}

/**
 * Installs an instruction file the way the agent would find it: when the seeded repository already
 * has one there (its own CLAUDE.md or AGENTS.md), the skill is appended after it instead of
 * replacing the project's own instructions.
 */
export function installInstructions(workspace: string, relPath: string, content: string): string {
  const target = resolveInside(workspace, relPath);
  const existing = fs.existsSync(target) && fs.statSync(target).isFile() ? fs.readFileSync(target, 'utf8') : '';
  return installFile(workspace, relPath, existing.trim() ? `${existing.replace(/\s+$/, '')}\n\n${content}` : content);
}

export function removeWorkspace(dir: string): void {
  // only ever delete something we marked
  if (!fs.existsSync(path.join(dir, WORKSPACE_MARKER))) return;
  fs.rmSync(dir, { recursive: true, force: true });
  for (const sibling of [dir + TRACK_SUFFIX, dir + HOME_SUFFIX]) {
    if (fs.existsSync(path.join(sibling, WORKSPACE_MARKER))) fs.rmSync(sibling, { recursive: true, force: true });
  }
}

/** suffix of the private agent home kept beside a workspace */
const HOME_SUFFIX = '.home';

/** A private, empty agent config home beside the workspace (removed with it). */
export function createAgentHome(workspace: string): string {
  const dir = workspace + HOME_SUFFIX;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dir, WORKSPACE_MARKER), 'skillopt-sleep private agent home\n', { mode: 0o600 });
  return dir;
}

export function isMarkedWorkspace(dir: string): boolean {
  return fs.existsSync(path.join(dir, WORKSPACE_MARKER));
}

function resolveInside(workspace: string, relPath: string): string {
  const target = path.resolve(workspace, relPath);
  if (!target.startsWith(path.resolve(workspace) + path.sep)) {
    throw new SleepError('PATH_ESCAPE', `refusing to write ${relPath} outside the workspace`);
  }
  return target;
}

// ---- seeding from the user's repository --------------------------------------------------------

/** Which repository state a replay starts from. */
export interface WorkspaceSeed {
  /** the session's cwd (or project root): any folder inside the user's repository */
  repo: string;
  /** the session's branch, when the transcript recorded it */
  branch?: string | null;
  /** epoch ms the session started: the newest commit at or before it is used */
  before?: number | null;
}

export interface SeedLimits {
  maxFiles: number;
  maxBytes: number;
  timeoutMs: number;
}

export const DEFAULT_SEED_LIMITS: SeedLimits = { maxFiles: 200_000, maxBytes: 512 * 1024 * 1024, timeoutMs: 30_000 };

/** What the workspace started from; said in the night report. */
export interface SeedReport {
  seeded: boolean;
  /** why the workspace is empty (or why the branch was not used), in words */
  reason?: string;
  commit?: string;
  /** the ref the commit was found on */
  ref?: string;
  files?: number;
  bytes?: number;
  /** submodule folders left empty */
  submodules?: string[];
  /** the repository stores some files in Git LFS: those are checked out as pointer files */
  lfsPointers?: boolean;
  /** a workspace of an earlier replay of the same commit, reset to it (no full checkout) */
  reused?: boolean;
  ms: number;
}

/** Git as we run it: no user/system config (hooks, fsmonitor, LFS filters, credential helpers), no prompts. */
function gitEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_LFS_SKIP_SMUDGE: '1',
    LC_ALL: 'C',
  };
}

interface GitOut {
  code: number;
  stdout: string;
  stderr: string;
}

function git(args: string[], opts: { timeoutMs: number; cwd?: string; maxBuffer?: number }): Promise<GitOut> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', ...args],
      { env: gitEnv(), cwd: opts.cwd, timeout: opts.timeoutMs, killSignal: 'SIGKILL', maxBuffer: opts.maxBuffer ?? 256 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        const e = err as (NodeJS.ErrnoException & { code?: unknown; killed?: boolean }) | null;
        const code = !e ? 0 : e.killed ? -2 : typeof e.code === 'number' ? e.code : e.code === 'ENOENT' ? -127 : -1;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) + (e?.killed ? ' (timed out)' : '') });
      },
    );
  });
}

/**
 * The repository's shared git directory for a folder inside it, found by reading `.git` entries
 * (no git command runs in the user's tree). Linked worktrees point at their main repository.
 */
export function findGitDir(start: string): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    try {
      const st = fs.statSync(dotGit);
      if (st.isDirectory()) return dotGit;
      if (st.isFile()) {
        const m = /^gitdir:\s*(.+)\s*$/m.exec(fs.readFileSync(dotGit, 'utf8'));
        if (!m) return undefined;
        const gitdir = path.resolve(dir, m[1].trim());
        const common = path.join(gitdir, 'commondir');
        return fs.existsSync(common) ? path.resolve(gitdir, fs.readFileSync(common, 'utf8').trim()) : gitdir;
      }
    } catch {
      /* no .git here: look further up */
    }
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** The newest commit at or before `before` on the branch (local, then any remote's), else on HEAD. */
async function resolveCommit(gitDir: string, seed: WorkspaceSeed, timeoutMs: number): Promise<{ commit: string; ref: string; note?: string } | { error: string }> {
  const refs: string[] = [];
  if (seed.branch && seed.branch !== 'HEAD') {
    refs.push(`refs/heads/${seed.branch}`);
    const remotes = await git(['--git-dir', gitDir, 'for-each-ref', '--format=%(refname)', `refs/remotes/*/${seed.branch}`], { timeoutMs });
    refs.push(...remotes.stdout.split('\n').filter(Boolean));
  }
  refs.push('HEAD');
  const beforeArg = seed.before ? [`--before=${Math.floor(seed.before / 1000)}`] : [];
  for (const ref of refs) {
    const r = await git(['--git-dir', gitDir, 'rev-list', '-1', ...beforeArg, ref, '--'], { timeoutMs });
    const commit = r.stdout.trim();
    if (r.code === 0 && /^[0-9a-f]{40,64}$/.test(commit)) {
      const note = seed.branch && ref === 'HEAD' && seed.branch !== 'HEAD' ? `branch ${seed.branch} is gone; used HEAD` : undefined;
      return { commit, ref, note };
    }
  }
  const when = seed.before ? ` at or before ${new Date(seed.before).toISOString()}` : '';
  return { error: `no commit${when} on ${seed.branch ?? 'HEAD'}` };
}

/** A seed resolved to one commit of one repository, with what checking it out would write. */
export interface ResolvedSeed {
  gitDir: string;
  objects: string;
  commit: string;
  ref: string;
  /** said in the report (e.g. the branch is gone and HEAD was used) */
  note?: string;
  files: number;
  bytes: number;
  submodules: string[];
  hasAttributes: boolean;
}

/**
 * Finds the commit a session started from and what it holds, within the limits. Reads the
 * repository's object store only. On a problem, the reason the workspace will be empty.
 */
export async function resolveSeed(seed: WorkspaceSeed, limits: SeedLimits = DEFAULT_SEED_LIMITS): Promise<ResolvedSeed | { error: string }> {
  const gitDir = findGitDir(seed.repo);
  if (!gitDir) return { error: `${seed.repo} is not inside a git repository` };
  const objects = path.join(gitDir, 'objects');
  if (!fs.existsSync(objects)) return { error: `${gitDir} has no object store` };
  const found = await resolveCommit(gitDir, seed, limits.timeoutMs);
  if ('error' in found) return found;
  const stats = await treeStats(gitDir, found.commit, limits.timeoutMs);
  if ('error' in stats) return stats;
  const { files, bytes } = stats;
  if (files > limits.maxFiles) return { error: `commit ${found.commit.slice(0, 12)} has ${files} files, over the limit of ${limits.maxFiles}` };
  if (bytes > limits.maxBytes) return { error: `commit ${found.commit.slice(0, 12)} holds ${Math.round(bytes / 1e6)} MB, over the limit of ${Math.round(limits.maxBytes / 1e6)} MB` };
  return { gitDir, objects, commit: found.commit, ref: found.ref, note: found.note, ...stats };
}

type TreeStats = Pick<ResolvedSeed, 'files' | 'bytes' | 'submodules' | 'hasAttributes'>;
// a commit's tree never changes: its listing (50k files: a 0.2 s `ls-tree`) is read once per process
const TREE_STATS = new Map<string, TreeStats>();

async function treeStats(gitDir: string, commit: string, timeoutMs: number): Promise<TreeStats | { error: string }> {
  const known = TREE_STATS.get(commit);
  if (known) return known;
  const listing = await git(['--git-dir', gitDir, 'ls-tree', '-r', '-l', '-z', '--full-tree', commit], { timeoutMs });
  if (listing.code !== 0) return { error: `cannot list commit ${commit.slice(0, 12)}: ${listing.stderr.trim().slice(0, 200)}` };
  const stats: TreeStats = { files: 0, bytes: 0, submodules: [], hasAttributes: false };
  for (const entry of listing.stdout.split('\0')) {
    if (!entry) continue;
    // "<mode> <type> <object> <size>\t<path>"
    const tab = entry.indexOf('\t');
    const [, type, , size] = entry.slice(0, tab).split(/\s+/);
    const file = entry.slice(tab + 1);
    if (type === 'commit') stats.submodules.push(file);
    else {
      stats.files++;
      stats.bytes += Number(size) || 0;
      if (file === '.gitattributes' || file.endsWith('/.gitattributes')) stats.hasAttributes = true;
    }
  }
  if (TREE_STATS.size >= 64) TREE_STATS.delete(TREE_STATS.keys().next().value as string);
  TREE_STATS.set(commit, stats);
  return stats;
}

/**
 * Checks the repository state a session started from out into `workspace`. Never throws: on any
 * problem the workspace stays empty and the report says why.
 */
export async function seedWorkspace(workspace: string, seed: WorkspaceSeed, limits: SeedLimits = DEFAULT_SEED_LIMITS): Promise<SeedReport> {
  const started = Date.now();
  const resolved = await resolveSeed(seed, limits);
  if ('error' in resolved) return { seeded: false, reason: resolved.error, ms: Date.now() - started };
  return checkoutSeed(workspace, resolved, limits, started);
}

/** Writes a resolved commit into an empty marked workspace (through the private tracking git dir). */
export async function checkoutSeed(workspace: string, resolved: ResolvedSeed, limits: SeedLimits = DEFAULT_SEED_LIMITS, started = Date.now()): Promise<SeedReport> {
  const empty = (reason: string): SeedReport => ({ seeded: false, reason, ms: Date.now() - started });
  const track = await initTracking(workspace, [resolved.objects]);
  if (!track.ok) return empty(track.reason);
  // parallel checkout (one worker per core): writing tens of thousands of files is the slow part
  const checkout = await git(['-c', 'checkout.workers=0', '--git-dir', track.gitDir, '--work-tree', workspace, 'read-tree', '--reset', '-u', resolved.commit], { timeoutMs: limits.timeoutMs });
  if (checkout.code !== 0) {
    clearCheckout(workspace);
    await initTracking(workspace, []);
    return empty(`checkout of ${resolved.commit.slice(0, 12)} failed: ${checkout.stderr.trim().slice(0, 200)}`);
  }
  return seededReport(resolved, await hasLfsPointers(resolved, limits.timeoutMs), started, false);
}

const LFS_BY_COMMIT = new Map<string, boolean>();

async function hasLfsPointers(resolved: ResolvedSeed, timeoutMs: number): Promise<boolean> {
  if (!resolved.hasAttributes) return false;
  const known = LFS_BY_COMMIT.get(resolved.commit);
  if (known !== undefined) return known;
  const attrs = await git(['--git-dir', resolved.gitDir, 'grep', '-l', 'filter=lfs', resolved.commit, '--', '.gitattributes', '**/.gitattributes'], { timeoutMs });
  const lfs = attrs.code === 0 && attrs.stdout.trim() !== '';
  LFS_BY_COMMIT.set(resolved.commit, lfs);
  return lfs;
}

function seededReport(resolved: ResolvedSeed, lfsPointers: boolean, started: number, reused: boolean): SeedReport {
  return {
    seeded: true,
    reason: resolved.note,
    commit: resolved.commit,
    ref: resolved.ref,
    files: resolved.files,
    bytes: resolved.bytes,
    submodules: resolved.submodules.length ? [...resolved.submodules] : undefined,
    lfsPointers: lfsPointers || undefined,
    ...(reused ? { reused: true } : {}),
    ms: Date.now() - started,
  };
}

/**
 * Puts a workspace that was seeded from `resolved` (and then used by an agent) back to exactly that
 * commit: tracked files rewritten where they differ, everything else (new files, ignored files,
 * nested repositories) removed. Only the files that changed are written, so this costs a stat of
 * the tree instead of a full checkout. Returns the report, or undefined when the workspace cannot
 * be proven clean (then it is not reused).
 */
export async function resetSeededWorkspace(workspace: string, resolved: ResolvedSeed, limits: SeedLimits = DEFAULT_SEED_LIMITS): Promise<SeedReport | undefined> {
  const started = Date.now();
  const gitDir = workspace + TRACK_SUFFIX;
  if (!isMarkedWorkspace(workspace) || !fs.existsSync(path.join(gitDir, WORKSPACE_MARKER))) return undefined;
  const base = ['--git-dir', gitDir, '--work-tree', workspace];
  const reset = await git([...base, 'read-tree', '--reset', '-u', resolved.commit], { timeoutMs: limits.timeoutMs, cwd: workspace });
  if (reset.code !== 0) return undefined;
  const clean = await git([...base, 'clean', '-ffdxq', '-e', `/${WORKSPACE_MARKER}`], { timeoutMs: limits.timeoutMs, cwd: workspace });
  if (clean.code !== 0) return undefined;
  // git never sees a folder named .git (a repository the agent made with `git init`): a tree
  // cannot hold one, so any found is the agent's and goes
  if (!removeGitDirs(workspace)) return undefined;
  // proof that nothing is there beside the commit's files (read-tree has just compared each of
  // those with the index and rewritten the ones that differ)
  const others = await git([...base, 'ls-files', '-z', '--others', '--directory', `--exclude=/${WORKSPACE_MARKER}`], { timeoutMs: limits.timeoutMs, cwd: workspace });
  if (others.code !== 0 || others.stdout !== '') return undefined;
  return seededReport(resolved, await hasLfsPointers(resolved, limits.timeoutMs), started, true);
}

function removeGitDirs(dir: string): boolean {
  try {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      if (e.name === '.git') fs.rmSync(abs, { recursive: true, force: true });
      else if (e.isDirectory() && !removeGitDirs(abs)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Folders of the workspace that are ours, not the agent's work (an agent home the CLI must find
 * inside its cwd): left out of what the agent is said to have changed.
 */
export function excludeFromChanges(workspace: string, relDirs: string[]): void {
  const file = path.join(workspace + TRACK_SUFFIX, 'info', 'exclude');
  if (!fs.existsSync(file)) return;
  const have = new Set(fs.readFileSync(file, 'utf8').split('\n'));
  const add = relDirs.map((d) => `/${d.replace(/^\/+|\/+$/g, '')}/`).filter((l) => l !== '//' && !have.has(l));
  if (add.length) fs.appendFileSync(file, add.join('\n') + '\n');
}

/** Rewrites a workspace's marker for its next run (a reused workspace keeps its path). */
export function remarkWorkspace(dir: string, info: Record<string, unknown> = {}): void {
  fs.writeFileSync(path.join(dir, WORKSPACE_MARKER), JSON.stringify({ createdBy: 'skillopt-sleep', pid: process.pid, createdAt: new Date().toISOString(), ...info }) + '\n', { mode: 0o600 });
}

/** Removes the private agent home beside a workspace (a reused workspace gets a fresh one). */
export function removeAgentHome(workspace: string): void {
  const dir = workspace + HOME_SUFFIX;
  if (fs.existsSync(path.join(dir, WORKSPACE_MARKER))) fs.rmSync(dir, { recursive: true, force: true });
}

/** Removes everything a failed checkout may have left, keeping our marker. */
function clearCheckout(workspace: string): void {
  for (const name of fs.readdirSync(workspace)) {
    if (name !== WORKSPACE_MARKER) fs.rmSync(path.join(workspace, name), { recursive: true, force: true });
  }
}

/** The private git directory beside a workspace, borrowing `alternates` object stores read-only. */
async function initTracking(workspace: string, alternates: string[]): Promise<{ ok: true; gitDir: string } | { ok: false; reason: string }> {
  const gitDir = workspace + TRACK_SUFFIX;
  fs.rmSync(gitDir, { recursive: true, force: true });
  const init = await git(['init', '-q', '--bare', '--template=', gitDir], { timeoutMs: 10_000 });
  if (init.code !== 0) return { ok: false, reason: init.code === -127 ? 'git is not installed' : `git init failed: ${init.stderr.trim().slice(0, 200)}` };
  fs.writeFileSync(path.join(gitDir, WORKSPACE_MARKER), 'skillopt-sleep tracking dir\n', { mode: 0o600 });
  fs.mkdirSync(path.join(gitDir, 'objects', 'info'), { recursive: true });
  if (alternates.length) fs.writeFileSync(path.join(gitDir, 'objects', 'info', 'alternates'), alternates.join('\n') + '\n');
  fs.mkdirSync(path.join(gitDir, 'info'), { recursive: true });
  fs.writeFileSync(path.join(gitDir, 'info', 'exclude'), `/${WORKSPACE_MARKER}\n`);
  return { ok: true, gitDir };
}

// ---- what the agent changed --------------------------------------------------------------------

export interface ChangedFile {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  /** the file's content after the run (capped; absent for deleted or binary files) */
  content?: string;
  binary?: boolean;
  truncated?: boolean;
}

export interface WorkspaceChanges {
  files: ChangedFile[];
  /** unified diff of every change (capped) */
  diff: string;
  truncated: boolean;
}

export interface ChangeCaps {
  /** characters of one file's content kept */
  fileChars: number;
  /** characters of the whole diff kept */
  diffChars: number;
  /** changed files listed */
  maxFiles: number;
}

export const DEFAULT_CHANGE_CAPS: ChangeCaps = { fileChars: 16_000, diffChars: 24_000, maxFiles: 50 };

/** The state the agent starts from: the seeded tree plus the files we installed (the skill). */
export interface Baseline {
  gitDir: string;
  tree: string;
}

/**
 * Records the workspace as it is now, so `workspaceChanges` can say what the agent did after it.
 * `installed`: the workspace was just seeded (its index matches the files) and only these paths
 * were written since: they alone are added, instead of a stat of every file of the tree.
 */
export async function recordBaseline(workspace: string, installed?: string[]): Promise<Baseline | undefined> {
  let gitDir = workspace + TRACK_SUFFIX;
  if (!fs.existsSync(path.join(gitDir, WORKSPACE_MARKER))) {
    const made = await initTracking(workspace, []);
    if (!made.ok) return undefined;
    gitDir = made.gitDir;
  }
  if (installed && fs.existsSync(path.join(gitDir, 'index'))) {
    const base = ['--git-dir', gitDir, '--work-tree', workspace];
    // `add` (not update-index) so a path the repository ignores fails here and the full snapshot,
    // which ignores it too, decides: baseline and after-run snapshot must agree on what they see
    const add = installed.length ? await git([...base, 'add', '--', ...installed], { timeoutMs: 60_000, cwd: workspace }) : { code: 0 };
    const tree = add.code === 0 ? await git([...base, 'write-tree'], { timeoutMs: 60_000, cwd: workspace }) : undefined;
    if (tree?.code === 0) return { gitDir, tree: tree.stdout.trim() };
  }
  const tree = await snapshotTree(gitDir, workspace);
  return tree ? { gitDir, tree } : undefined;
}

async function snapshotTree(gitDir: string, workspace: string): Promise<string | undefined> {
  const base = ['--git-dir', gitDir, '--work-tree', workspace];
  const add = await git([...base, 'add', '-A', '--', '.'], { timeoutMs: 60_000, cwd: workspace });
  if (add.code !== 0) return undefined;
  const tree = await git([...base, 'write-tree'], { timeoutMs: 60_000, cwd: workspace });
  return tree.code === 0 ? tree.stdout.trim() : undefined;
}

/** What the agent created, changed or deleted since the baseline: file list, contents and a diff, capped. */
export async function workspaceChanges(workspace: string, baseline: Baseline, caps: ChangeCaps = DEFAULT_CHANGE_CAPS): Promise<WorkspaceChanges> {
  const after = await snapshotTree(baseline.gitDir, workspace);
  if (!after) return { files: [], diff: '', truncated: false };
  const d = ['--git-dir', baseline.gitDir];
  const names = await git([...d, 'diff-tree', '-r', '-z', '--no-renames', '--name-status', baseline.tree, after], { timeoutMs: 30_000 });
  const parts = names.stdout.split('\0').filter((p) => p !== '');
  const files: ChangedFile[] = [];
  let truncated = false;
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const code = parts[i];
    const rel = parts[i + 1];
    if (files.length >= caps.maxFiles) {
      truncated = true;
      break;
    }
    const status: ChangedFile['status'] = code === 'A' ? 'added' : code === 'D' ? 'deleted' : 'modified';
    const file: ChangedFile = { path: rel, status };
    if (status !== 'deleted') {
      const abs = path.join(workspace, rel);
      try {
        const buf = fs.readFileSync(abs);
        if (buf.subarray(0, 8000).includes(0)) file.binary = true;
        else {
          const text = buf.toString('utf8');
          file.content = text.slice(0, caps.fileChars);
          if (text.length > caps.fileChars) file.truncated = truncated = true;
        }
      } catch {
        /* a symlink to nowhere or a file removed meanwhile: listed without content */
      }
    }
    files.push(file);
  }
  const patch = await git([...d, 'diff', '--no-color', '--no-ext-diff', '--no-renames', baseline.tree, after], { timeoutMs: 30_000 });
  let diff = patch.stdout;
  if (diff.length > caps.diffChars) {
    diff = diff.slice(0, caps.diffChars) + '\n[diff cut]\n';
    truncated = true;
  }
  return { files, diff, truncated };
}

// ---- a repository's identity ---------------------------------------------------------------------

/**
 * The root (first) commit of the repository a folder belongs to: what stays the same when the
 * repository is moved or cloned elsewhere. The oldest root when history has several. Read from
 * the object store only; undefined when the folder is not in a repository or it has no commit.
 */
export async function repoRootCommit(dir: string, timeoutMs = 20_000): Promise<string | undefined> {
  const gitDir = findGitDir(dir);
  if (!gitDir) return undefined;
  const r = await git(['--git-dir', gitDir, 'rev-list', '--max-parents=0', 'HEAD', '--'], { timeoutMs });
  if (r.code !== 0) return undefined;
  const roots = r.stdout.split('\n').filter((l) => /^[0-9a-f]{40,64}$/.test(l));
  return roots[roots.length - 1];
}
