/**
 * This machine's membership of a team (issue 42): which server, which opaque member id, and which
 * repositories are opted in. Team mode is opt-in PER REPOSITORY; nothing of a repository not listed
 * here is ever sent.
 *
 * Two files in the state folder, both private (0600):
 * - `team.json`: the server URL WITHOUT its password, the member id, the opted-in repositories;
 * - `team-credentials.json`: the password, only when the join URL carried one. It is where the
 *   credential belongs; nothing else (logs, ledger, --json) ever holds it. Without it, node-postgres
 *   reads PGPASSWORD or ~/.pgpass like psql does.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { z } from 'zod';
import type { SleepPaths } from '../core/paths.js';
import { SleepError } from '../core/errors.js';
import { sha256, writeFileAtomic } from '../core/fsutil.js';
import type { RepoKey } from './contract.js';

const TeamStateSchema = z.object({
  version: z.literal(1),
  /** the server, password removed */
  url: z.string(),
  /** opaque: a random id made at the first join, never derived from a name or an address */
  memberId: z.string(),
  repos: z.array(z.object({ project: z.string(), repoKey: z.string(), joinedAt: z.number() })),
});
export type TeamState = z.infer<typeof TeamStateSchema>;

export const teamStateFile = (paths: SleepPaths) => path.join(paths.stateDir, 'team.json');
export const teamCredentialsFile = (paths: SleepPaths) => path.join(paths.stateDir, 'team-credentials.json');
/** The local record of what was pushed (task → content hash), one file per repository. */
export const pushedFile = (paths: SleepPaths, repoKey: RepoKey) => path.join(paths.stateDir, 'team', `pushed-${repoKey.slice(0, 32)}.json`);

export function readTeamState(paths: SleepPaths): TeamState | null {
  const file = teamStateFile(paths);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = undefined;
  }
  const parsed = TeamStateSchema.safeParse(raw);
  if (!parsed.success) {
    throw new SleepError('CONFIG_INVALID', `${file} is not a valid team membership file`, { hint: `\`skillopt-sleep team join\` again to rewrite it (or remove ${file} to leave team mode)` });
  }
  return parsed.data;
}

export function writeTeamState(paths: SleepPaths, state: TeamState): void {
  writeFileAtomic(teamStateFile(paths), JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
}

export function readTeamPassword(paths: SleepPaths): string | null {
  try {
    const v = JSON.parse(fs.readFileSync(teamCredentialsFile(paths), 'utf8')) as { password?: unknown };
    return typeof v.password === 'string' ? v.password : null;
  } catch {
    return null;
  }
}

/** Stores the password (0600, atomic), or removes the file when there is none to keep. */
export function writeTeamPassword(paths: SleepPaths, password: string | null): void {
  const file = teamCredentialsFile(paths);
  if (password === null) {
    fs.rmSync(file, { force: true });
    return;
  }
  writeFileAtomic(file, JSON.stringify({ password }) + '\n', { mode: 0o600 });
  // writeFileAtomic keeps an existing file's mode: make sure it is private whatever it was
  fs.chmodSync(file, 0o600);
}

/** Removes every team file of this machine (the last `team leave`). */
export function removeTeamFiles(paths: SleepPaths): void {
  fs.rmSync(teamStateFile(paths), { force: true });
  fs.rmSync(teamCredentialsFile(paths), { force: true });
  fs.rmSync(path.join(paths.stateDir, 'team'), { recursive: true, force: true });
}

export function newMemberId(): string {
  return crypto.randomBytes(16).toString('hex');
}

/**
 * A repository's identity across clones: the hash of its root commit(s), sorted (a repository can
 * have several roots). Two members' clones agree without sharing a path or a remote URL.
 */
export function repoKeyOf(dir: string): RepoKey {
  let out: string;
  try {
    out = execFileSync('git', ['rev-list', '--max-parents=0', 'HEAD'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
  } catch {
    throw new SleepError('INVALID_INPUT', `${dir} is not a git repository with a commit`, {
      hint: 'team mode identifies a repository by its first commit: commit once, or pass --project with the repository folder',
    });
  }
  const roots = out.split(/\s+/).filter(Boolean).sort();
  if (!roots.length) throw new SleepError('INVALID_INPUT', `${dir} has no commit yet`, { hint: 'commit once, then join' });
  return sha256(`skillopt-sleep-repo:${roots.join(',')}`);
}
