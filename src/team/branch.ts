/**
 * The team night's proposal as a git branch: one commit on a NEW local branch of the repository,
 * on top of HEAD, holding the trained skill files. It is made with git's plumbing only —
 *   read-tree HEAD into a temporary index (GIT_INDEX_FILE), hash-object the new contents,
 *   update-index --cacheinfo, write-tree, commit-tree -p HEAD, update-ref with an empty old value —
 * so the working tree, the real index and the current branch are never touched (no checkout, no
 * stash, no hook), and an existing branch is never moved (update-ref refuses when the ref exists).
 * Nothing is pushed unless the caller asks (`push`), and then only this branch, to the remote named.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { SleepError } from '../core/errors.js';

export interface BranchFile {
  /** path inside the repository, with forward slashes */
  rel: string;
  content: string;
}

export interface BranchCommit {
  branch: string;
  commit: string;
  /** the HEAD commit the branch starts from */
  parent: string;
}

/** The identity a commit falls back to when the repository has none configured (CI, a fresh clone). */
const FALLBACK_IDENTITY = { name: 'skillopt-sleep', email: 'skillopt-sleep@localhost' };

function git(repo: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}): string {
  const r = spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: { ...process.env, ...opts.env }, input: opts.input, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new SleepError('INTERNAL', `git ${args[0]} could not run: ${r.error.message}`, { hint: 'install git and make sure it is on PATH' });
  if (r.status !== 0) throw new SleepError('INTERNAL', `git ${args.join(' ').slice(0, 120)} failed: ${r.stderr.trim().split('\n')[0] ?? `exit ${r.status}`}`);
  return r.stdout.trim();
}

function gitOk(repo: string, args: string[]): boolean {
  return spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).status === 0;
}

/** `skillopt/team-2026-12-05-<skill>`: a valid ref name from any skill name. */
export function teamBranchName(skill: string, now: number): string {
  const slug = skill.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'skill';
  return `skillopt/team-${new Date(now).toISOString().slice(0, 10)}-${slug}`;
}

/** The name itself, or with -2, -3… when a branch of that name already exists (an existing branch never moves). */
function freeBranchName(repo: string, wanted: string): string {
  if (!gitOk(repo, ['check-ref-format', '--branch', wanted])) throw new SleepError('INVALID_INPUT', `"${wanted}" is not a valid branch name`);
  for (let k = 1; k < 100; k++) {
    const name = k === 1 ? wanted : `${wanted}-${k}`;
    if (!gitOk(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${name}`])) return name;
  }
  throw new SleepError('INVALID_INPUT', `branches ${wanted} … ${wanted}-99 all exist`, { hint: 'delete the old team proposal branches you merged or rejected (`git branch -D …`)' });
}

/** Committer/author environment: the repository's own identity when it has one, else the fallback. */
function identityEnv(repo: string): NodeJS.ProcessEnv {
  const has = (v: string) => gitOk(repo, ['var', v]);
  if (has('GIT_AUTHOR_IDENT') && has('GIT_COMMITTER_IDENT')) return {};
  return { GIT_AUTHOR_NAME: FALLBACK_IDENTITY.name, GIT_AUTHOR_EMAIL: FALLBACK_IDENTITY.email, GIT_COMMITTER_NAME: FALLBACK_IDENTITY.name, GIT_COMMITTER_EMAIL: FALLBACK_IDENTITY.email };
}

/** The file at HEAD (null when HEAD has no such file): what a team proposal is based on, never the working tree's copy. */
export function readAtHead(repo: string, rel: string): string | null {
  const r = spawnSync('git', ['-C', repo, 'show', `HEAD:${rel}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return r.status === 0 ? r.stdout : null;
}

/** Paths tracked at HEAD (repository-relative, forward slashes). */
export function trackedAtHead(repo: string): Set<string> {
  if (!gitOk(repo, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])) {
    throw new SleepError('INVALID_INPUT', `${repo} is not a git repository with a commit: a team night trains the skills committed there`, { hint: 'run the team night in the repository\'s clone (`git log` must show a commit)' });
  }
  return new Set(git(repo, ['ls-tree', '-r', '--name-only', '-z', 'HEAD']).split('\0').filter(Boolean));
}

/**
 * Commits `files` on a new branch `wanted` (or `wanted-N`) on top of HEAD, with plumbing only.
 * Throws when HEAD is unborn or a file path leaves the repository.
 */
export function commitOnNewBranch(repo: string, input: { wanted: string; files: BranchFile[]; message: string }): BranchCommit {
  if (!input.files.length) throw new SleepError('INVALID_INPUT', 'a proposal branch needs at least one file');
  for (const f of input.files) {
    if (path.isAbsolute(f.rel) || f.rel.split('/').includes('..') || f.rel.includes('\\')) throw new SleepError('PATH_ESCAPE', `refusing to commit ${f.rel}: not a path inside the repository`);
  }
  const parent = git(repo, ['rev-parse', '--verify', 'HEAD^{commit}']);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-team-index-'));
  try {
    // a private index: the user's .git/index is never read or written
    const env = { GIT_INDEX_FILE: path.join(tmp, 'index') };
    git(repo, ['read-tree', parent], { env });
    for (const f of input.files) {
      const listed = git(repo, ['ls-tree', parent, '--', f.rel]);
      const mode = /^(100644|100755) blob /.exec(listed)?.[1] ?? '100644';
      const blob = git(repo, ['hash-object', '-w', '--stdin', `--path=${f.rel}`], { input: f.content });
      git(repo, ['update-index', '--add', '--cacheinfo', `${mode},${blob},${f.rel}`], { env });
    }
    const tree = git(repo, ['write-tree'], { env });
    const commit = git(repo, ['commit-tree', tree, '-p', parent, '-F', '-'], { env: identityEnv(repo), input: input.message });
    const branch = freeBranchName(repo, input.wanted);
    // the empty old value: the ref is created, never moved (a branch made meanwhile makes this fail)
    git(repo, ['update-ref', '-m', 'skillopt-sleep: team proposal', `refs/heads/${branch}`, commit, '']);
    return { branch, commit, parent };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Pushes the one branch to `remote` (only on `--push`); returns git's one-line summary. */
export function pushBranch(repo: string, branch: string, remote = 'origin'): string {
  if (!gitOk(repo, ['remote', 'get-url', remote])) throw new SleepError('INVALID_INPUT', `the repository has no remote "${remote}" to push ${branch} to`, { hint: `push it yourself: git push <remote> ${branch}` });
  git(repo, ['push', '--porcelain', remote, `refs/heads/${branch}:refs/heads/${branch}`]);
  return `pushed ${branch} to ${remote}`;
}
