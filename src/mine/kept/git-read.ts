/**
 * Reading a user's repository history for outcome evidence (issue 41), READ-ONLY: only `git log`
 * and `git cat-file` against the repository's git directory (`--git-dir`, so the work tree and its
 * index are never opened), with optional locks off, no hooks, no fsmonitor, no system or global
 * config. Nothing is ever written into the repository; tests/integration/mine-kept-git.test.ts proves it
 * (status, fsck and every mtime unchanged).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { findGitDir } from '../../llm/workspace.js';

export interface CommitInfo {
  sha: string;
  /** commit time, ms */
  at: number;
  message: string;
}

/** Time limit of one git call (assumption: a log over a week of commits, or one blob, takes well under this). */
const GIT_TIMEOUT_MS = 10_000;
/** The largest output read from one call (a blob above it is not a file anyone hand-edits). */
const MAX_BUFFER = 8 * 1024 * 1024;

function gitEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/nonexistent',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_LFS_SKIP_SMUDGE: '1',
    LC_ALL: 'C',
  };
}

/** The work tree root that holds `dir`: the nearest folder with a `.git` entry (read, never run). */
export function workTreeRoot(dir: string): string | undefined {
  let d = path.resolve(dir);
  for (;;) {
    if (fs.existsSync(path.join(d, '.git'))) return d;
    const up = path.dirname(d);
    if (up === d) return undefined;
    d = up;
  }
}

/** How much earlier than the first ask the history is read, so later asks rarely need a second read. Assumption. */
const LOG_SLACK_MS = 30 * 24 * 3600 * 1000;

interface LoggedCommit extends CommitInfo {
  files: string[];
}

export class GitHistory {
  /** every commit (any branch) since `loadedSince`, oldest first, with the files each touched: one `git log` per repository and run */
  private log: LoggedCommit[] | null = null;
  private loadedSince = Infinity;

  private constructor(
    readonly gitDir: string,
    readonly root: string,
  ) {}

  /** The history of the repository `dir` lies in, or null when it is no git work tree. */
  static open(dir: string): GitHistory | null {
    if (!dir || !fs.existsSync(dir)) return null;
    const root = workTreeRoot(dir);
    const gitDir = root ? findGitDir(root) : undefined;
    if (!root || !gitDir) return null;
    return new GitHistory(gitDir, root);
  }

  private run(args: string[]): string | null {
    const r = spawnSync('git', ['--no-optional-locks', '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '--git-dir', this.gitDir, ...args], {
      env: gitEnv(),
      encoding: 'utf8',
      timeout: GIT_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      maxBuffer: MAX_BUFFER,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return r.status === 0 ? r.stdout : null;
  }

  private logSince(sinceMs: number): LoggedCommit[] {
    if (this.log && sinceMs >= this.loadedSince) return this.log;
    const since = sinceMs - LOG_SLACK_MS;
    const out = this.run(['log', '--all', '--no-renames', '--format=%x1e%H%x1f%ct%x1f%B%x1f', '--name-only', `--since=@${Math.floor(since / 1000)}`]);
    const list: LoggedCommit[] = [];
    for (const rec of (out ?? '').split('\x1e')) {
      const [sha, ct, message, names] = rec.split('\x1f');
      if (!sha || !/^[0-9a-f]{7,64}$/.test(sha.trim()) || names === undefined) continue;
      const at = Number(ct) * 1000;
      if (!Number.isFinite(at)) continue;
      list.push({ sha: sha.trim(), at, message: message.trim(), files: names.split('\n').map((f) => f.trim()).filter(Boolean) });
    }
    list.sort((a, b) => a.at - b.at || a.sha.localeCompare(b.sha));
    this.log = list;
    this.loadedSince = since;
    return list;
  }

  /** Commits on any branch with a commit time in [sinceMs, untilMs), oldest first; `file` limits them to commits touching it. */
  commits(sinceMs: number, untilMs: number, file?: string): CommitInfo[] {
    return this.logSince(sinceMs)
      .filter((c) => c.at >= sinceMs && c.at < untilMs && (file === undefined || c.files.includes(file)))
      .map(({ sha, at, message }) => ({ sha, at, message }));
  }

  /** A file's content at a commit (null when absent there, or binary). */
  fileAt(sha: string, file: string): string | null {
    const out = this.run(['cat-file', 'blob', `${sha}:${file}`]);
    if (out === null || out.includes('\u0000')) return null;
    return out;
  }

  /**
   * A path the agent wrote, relative to the work tree root (absolute, or relative to the session's
   * cwd); null when it lies outside the repository.
   */
  relativePath(written: string, cwd: string): string | null {
    const abs = path.resolve(cwd, written);
    const rel = path.relative(this.root, abs);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
    return rel.split(path.sep).join('/');
  }
}
