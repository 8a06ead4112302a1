/**
 * `doctor`, team mode (issue 42): when this machine has joined a team, can it reach the server, is
 * the server's schema the version this build knows, and who holds each opted-in repository's night
 * lease. Not joined: no line (team mode is opt-in). The server module loads only when joined.
 */
import type { DoctorCheck, DoctorContext } from '../core/doctor.js';
import { errorMessage, isSleepError } from '../core/errors.js';
import { readTeamState } from './membership.js';

export async function doctorChecks(ctx: DoctorContext): Promise<DoctorCheck[]> {
  const state = readTeamState(ctx.paths);
  if (!state || !state.repos.length) return [];
  const [{ openTeamServer }, { readTeamPassword }, { TEAM_SCHEMA_VERSION }, repo, { describeServer }] = await Promise.all([
    import('./server.js'),
    import('./membership.js'),
    import('../store/team/schema.js'),
    import('../store/team/repo.js'),
    import('../store/team/client.js'),
  ]);
  const where = describeServer(state.url);
  let server;
  try {
    server = await openTeamServer(state.url, { password: readTeamPassword(ctx.paths), migrate: false, connectTimeoutMs: 5_000 });
  } catch (err) {
    const stale = isSleepError(err) && (err.code === 'STALE' || err.code === 'DB_TOO_NEW');
    return [
      {
        name: 'team server',
        status: 'fail',
        detail: stale ? errorMessage(err) : `${where}: ${errorMessage(err)}`,
        fix: (isSleepError(err) && err.hint) || 'check the server and the credentials (PGPASSWORD, ~/.pgpass or `skillopt-sleep team join` again); docs/TEAM.md',
      },
    ];
  }
  try {
    const version = await server.schemaVersion();
    const checks: DoctorCheck[] = [{ name: 'team server', status: 'ok', detail: `${where} (schema v${version} of v${TEAM_SCHEMA_VERSION}; ${state.repos.length} repositor${state.repos.length === 1 ? 'y' : 'ies'} opted in)` }];
    for (const r of state.repos) {
      const lease = await repo.readLease(server.pool, r.repoKey);
      const live = lease && lease.expiresAt > lease.serverNow;
      checks.push({
        name: 'team lease',
        status: 'ok',
        detail: `${r.project}: ${live ? `night running, held by ${lease.holder} for ${Math.round((lease.expiresAt - lease.serverNow) / 1000)}s more` : lease ? 'free (the last holder released it or it expired)' : 'free (no team night yet)'}`,
      });
    }
    return checks;
  } catch (err) {
    return [{ name: 'team server', status: 'fail', detail: `${where}: ${errorMessage(server.describeError(err, 'reading the schema and lease'))}`, fix: '`skillopt-sleep team status` says more' }];
  } finally {
    await server.close();
  }
}
