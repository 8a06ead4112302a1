/**
 * What a member's machine does in team mode (issue 42): join a team's server for one repository,
 * push that repository's mined tasks, show the status, leave (and wipe). The CLI (`team …`) and the
 * daemon (a push after each mining pass) call these; the server side is server.ts, the push push.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import type { Config } from '../core/config.js';
import type { SleepPaths } from '../core/paths.js';
import { SleepError } from '../core/errors.js';
import { sha256 } from '../core/fsutil.js';
import { projectMatcher } from '../core/project-glob.js';
import type { Db } from '../store/db.js';
import { recordEgress } from '../store/repos/ledger.js';
import { describeServer, splitPassword } from '../store/team/client.js';
import * as repo from '../store/team/repo.js';
import { TEAM_SCHEMA_VERSION } from '../store/team/schema.js';
import type { RepoKey } from './contract.js';
import { newMemberId, pushedFile, readTeamPassword, readTeamState, removeTeamFiles, repoKeyOf, writeTeamPassword, writeTeamState, type TeamState } from './membership.js';
import { gatherPushItems, pushErrorLine, pushItems, readPushed as readPushedFile, type PushOutcome, type RetryPolicy } from './push.js';
import { openTeamServer, type TeamServerConnection } from './server.js';

export interface MemberContext {
  paths: SleepPaths;
  config: Config;
  env: NodeJS.ProcessEnv;
  db: Db;
}

const homeOf = (env: NodeJS.ProcessEnv) => env.HOME || os.homedir();

/** Connects as this machine's member (the stored password, else PGPASSWORD / ~/.pgpass). */
export async function connectAsMember(paths: SleepPaths, state: TeamState, opts: { connectTimeoutMs?: number } = {}): Promise<TeamServerConnection> {
  return openTeamServer(state.url, { password: readTeamPassword(paths), connectTimeoutMs: opts.connectTimeoutMs });
}

function refuseExcluded(config: Config, env: NodeJS.ProcessEnv, project: string): void {
  const rule = projectMatcher(config.privacy.excludeProjects, homeOf(env))(project);
  if (rule) {
    throw new SleepError('INVALID_INPUT', `${project} is excluded by privacy.excludeProjects (${rule}): nothing of it is stored, nothing of it is pushed`, {
      hint: 'remove the pattern from privacy.excludeProjects first if you mean to share it',
    });
  }
}

export interface JoinOutcome {
  server: string;
  memberId: string;
  project: string;
  repoKey: RepoKey;
  alreadyJoined: boolean;
  schemaVersion: number;
  /** where the password is kept: the credentials file, or the environment / ~/.pgpass */
  credentials: 'file' | 'environment';
}

/** Opts one repository in: the server accepts the member (migrating its schema if needed), then the state is written. */
export async function joinTeam(ctx: Omit<MemberContext, 'db'>, url: string, project: string): Promise<JoinOutcome> {
  const { url: bareUrl, password } = splitPassword(url);
  refuseExcluded(ctx.config, ctx.env, project);
  const repoKey = repoKeyOf(project);
  const state = readTeamState(ctx.paths);
  if (state && state.url !== bareUrl) {
    throw new SleepError('INVALID_INPUT', `this machine is a member of ${describeServer(state.url)}, not ${describeServer(bareUrl)}`, {
      hint: '`skillopt-sleep team leave` each repository first (`team status` lists them), then join the other server',
    });
  }
  const keptPassword = password ?? (state ? readTeamPassword(ctx.paths) : null);
  const memberId = state?.memberId ?? newMemberId();
  const server = await openTeamServer(bareUrl, { password: keptPassword, migrate: true });
  try {
    await repo.optInRepo(server.pool, memberId, repoKey).catch((err: unknown) => {
      throw server.describeError(err, 'opting the repository in');
    });
  } finally {
    await server.close();
  }
  // only what the server accepted is recorded here; the password only in its own private file
  if (password !== null) writeTeamPassword(ctx.paths, password);
  const repos = state?.repos ?? [];
  const alreadyJoined = repos.some((r) => r.repoKey === repoKey && r.project === project);
  const next: TeamState = {
    version: 1,
    url: bareUrl,
    memberId,
    repos: alreadyJoined ? repos : [...repos.filter((r) => r.project !== project), { project, repoKey, joinedAt: Date.now() }],
  };
  writeTeamState(ctx.paths, next);
  return { server: describeServer(bareUrl), memberId, project, repoKey, alreadyJoined, schemaVersion: TEAM_SCHEMA_VERSION, credentials: keptPassword !== null ? 'file' : 'environment' };
}

export interface LeaveOutcome {
  server: string;
  project: string;
  repoKey: RepoKey;
  wiped: boolean;
  /** rows deleted on the server (tasks only with --wipe) */
  deleted: repo.WipeCounts;
  /** no repository is opted in any more: the membership and credentials files are gone */
  leftTeam: boolean;
}

/**
 * Opts one repository out. With `wipe`, the member's rows of it go from the server first, and a
 * server that cannot be reached fails the leave (nothing local changes, so it can be run again).
 */
export async function leaveTeam(ctx: Omit<MemberContext, 'db'>, project: string, opts: { wipe: boolean }): Promise<LeaveOutcome> {
  const state = readTeamState(ctx.paths);
  const entry = state?.repos.find((r) => r.project === project);
  if (!state || !entry) {
    const list = state?.repos.map((r) => `  ${r.project}`).join('\n') || '  (none)';
    throw new SleepError('NOT_FOUND', `${project} is not opted in to team mode. Opted in:\n${list}`, { hint: '`skillopt-sleep team status` lists them; pass --project' });
  }
  const lastRepo = state.repos.length === 1;
  let deleted: repo.WipeCounts = { tasks: 0, repos: 0, member: 0 };
  try {
    const server = await connectAsMember(ctx.paths, state);
    try {
      deleted = await repo.leaveRepo(server.pool, state.memberId, entry.repoKey, { wipe: opts.wipe, lastRepo }).catch((err: unknown) => {
        throw server.describeError(err, 'leaving the repository');
      });
    } finally {
      await server.close();
    }
  } catch (err) {
    // without --wipe leaving is local (nothing more is pushed); with it, the rows must really go
    if (opts.wipe) throw err;
  }
  const rest = state.repos.filter((r) => r !== entry);
  fs.rmSync(pushedFile(ctx.paths, entry.repoKey), { force: true });
  if (rest.length) writeTeamState(ctx.paths, { ...state, repos: rest });
  else removeTeamFiles(ctx.paths);
  return { server: describeServer(state.url), project, repoKey: entry.repoKey, wiped: opts.wipe, deleted, leftTeam: rest.length === 0 };
}

export interface PushReport {
  project: string;
  repoKey: RepoKey;
  ok: boolean;
  /** why nothing was sent (excluded since joining), or the failure */
  error?: string;
  redactions: number;
  outcome?: PushOutcome;
}

/**
 * Pushes every opted-in repository (or one), each written to the egress ledger: the bytes on the
 * wire, the redactions, a hash of what was sent, the server (never its password), ok or the error.
 */
export async function pushTeam(
  ctx: MemberContext,
  opts: { project?: string; batchSize?: number; retry?: RetryPolicy; onBatch?: (project: string, sent: number, total: number) => void } = {},
): Promise<{ server: string; reports: PushReport[] }> {
  const state = readTeamState(ctx.paths);
  if (!state || !state.repos.length) throw new SleepError('NOT_FOUND', 'this machine has joined no team', { hint: '`skillopt-sleep team join <postgres-url> --project <repo>` first' });
  const repos = opts.project ? state.repos.filter((r) => r.project === opts.project) : state.repos;
  if (!repos.length) throw new SleepError('NOT_FOUND', `${opts.project} is not opted in to team mode`, { hint: '`skillopt-sleep team status` lists the opted-in repositories' });
  const where = describeServer(state.url);
  const reports: PushReport[] = [];
  let server: TeamServerConnection | undefined;
  try {
    for (const r of repos) {
      const ts = Date.now();
      let redactions = 0;
      try {
        refuseExcluded(ctx.config, ctx.env, r.project);
        const gathered = gatherPushItems(ctx.db, { project: r.project, memberId: state.memberId, home: homeOf(ctx.env) });
        redactions = gathered.redactions;
        server ??= await connectAsMember(ctx.paths, state);
        const outcome = await pushItems(server, {
          memberId: state.memberId,
          repoKey: r.repoKey,
          items: gathered.items,
          pushedFile: pushedFile(ctx.paths, r.repoKey),
          batchSize: opts.batchSize,
          retry: opts.retry,
          onBatch: (sent, total) => opts.onBatch?.(r.project, sent, total),
        });
        recordEgress(ctx.db, ledgerRow(ts, where, outcome.bytes, redactions, gathered.items.map((i) => i.taskRef).join(','), null));
        reports.push({ project: r.project, repoKey: r.repoKey, ok: true, redactions, outcome });
      } catch (err) {
        const line = pushErrorLine(err);
        recordEgress(ctx.db, ledgerRow(ts, where, 0, redactions, r.repoKey, line));
        reports.push({ project: r.project, repoKey: r.repoKey, ok: false, error: line, redactions });
      }
    }
  } finally {
    await server?.close();
  }
  return { server: where, reports };
}

function ledgerRow(ts: number, where: string, bytes: number, redactions: number, hashOf: string, error: string | null) {
  return {
    ts,
    runId: null,
    role: 'team',
    backend: 'postgres',
    model: null,
    destination: where,
    bytesSent: bytes,
    redactions,
    contentHash: sha256(hashOf).slice(0, 16),
    tokensIn: 0,
    tokensOut: 0,
    costUsd: 0,
    ok: error === null,
    error,
  };
}

export interface RepoStatus {
  project: string;
  repoKey: RepoKey;
  joinedAt: number;
  /** tasks this machine's record says the server holds */
  pushed: number;
  server: repo.RepoCounts | null;
  lease: { holder: string; expiresAt: number; live: boolean } | null;
  lastNight: unknown | null;
}

export interface TeamStatus {
  joined: boolean;
  server: string | null;
  memberId: string | null;
  reachable: boolean | null;
  schemaVersion: number | null;
  error: string | null;
  repos: RepoStatus[];
}

/** The membership, and what the server says of each opted-in repository (its lease, its last night). */
export async function teamStatus(ctx: Omit<MemberContext, 'db'>, opts: { connectTimeoutMs?: number } = {}): Promise<TeamStatus> {
  const state = readTeamState(ctx.paths);
  if (!state) return { joined: false, server: null, memberId: null, reachable: null, schemaVersion: null, error: null, repos: [] };
  const base = state.repos.map((r) => ({ project: r.project, repoKey: r.repoKey, joinedAt: r.joinedAt, pushed: readPushedFile(pushedFile(ctx.paths, r.repoKey)).size, server: null, lease: null, lastNight: null }));
  let server: TeamServerConnection | undefined;
  try {
    server = await openTeamServer(state.url, { password: readTeamPassword(ctx.paths), migrate: false, connectTimeoutMs: opts.connectTimeoutMs ?? 5_000 });
    const s = server;
    const repos: RepoStatus[] = [];
    for (const r of base) {
      const [counts, lease, lastNight] = await Promise.all([repo.repoCounts(s.pool, r.repoKey, state.memberId), repo.readLease(s.pool, r.repoKey), repo.lastNightSummary(s.pool, r.repoKey)]);
      repos.push({ ...r, server: counts, lease: lease ? { holder: lease.holder, expiresAt: lease.expiresAt, live: lease.expiresAt > lease.serverNow } : null, lastNight });
    }
    return { joined: true, server: describeServer(state.url), memberId: state.memberId, reachable: true, schemaVersion: await s.schemaVersion(), error: null, repos };
  } catch (err) {
    const e = err instanceof SleepError ? err : (server?.describeError(err, 'reading the status') ?? new SleepError('INTERNAL', String(err)));
    return { joined: true, server: describeServer(state.url), memberId: state.memberId, reachable: false, schemaVersion: null, error: e.message, repos: base };
  } finally {
    await server?.close();
  }
}
