/**
 * `night --team`: this member's machine runs the team night of one opted-in repository (issue 42).
 * Any member (or a CI job with the credentials) may start it; the server's lease lets exactly one
 * run per repository, and a night that dies resumes from its checkpoint on the next start.
 */
import type { Config } from '../core/config.js';
import type { SleepPaths } from '../core/paths.js';
import type { Progress } from '../core/progress.js';
import { SleepError } from '../core/errors.js';
import type { Db } from '../store/db.js';
import { connectAsMember } from './member.js';
import { readTeamState } from './membership.js';
import { runTeamNight, type TeamNightResult } from './night.js';

export interface MemberNightContext {
  db: Db;
  paths: SleepPaths;
  config: Config;
  env: NodeJS.ProcessEnv;
}

/** Runs the team night of `project` (a repository root this machine opted in) and returns its result. */
export async function runTeamNightAsMember(
  ctx: MemberNightContext,
  project: string,
  opts: { pushRemote?: string; signal?: AbortSignal; progress?: Progress } = {},
): Promise<TeamNightResult & { server: string }> {
  const state = readTeamState(ctx.paths);
  const joined = state?.repos.find((r) => r.project === project);
  if (!state || !joined) {
    throw new SleepError('INVALID_INPUT', `${project} is not opted in to a team`, {
      hint: 'opt it in first: `skillopt-sleep team join <postgres-url> --project <repo>` (`team status` lists what is)',
    });
  }
  const server = await connectAsMember(ctx.paths, state);
  try {
    const result = await runTeamNight(server, { path: project, key: joined.repoKey }, ctx.config, {
      db: ctx.db,
      paths: ctx.paths,
      env: ctx.env,
      memberId: state.memberId,
      pushRemote: opts.pushRemote,
      signal: opts.signal,
      progress: opts.progress,
    });
    return { ...result, server: server.where };
  } finally {
    await server.close();
  }
}
