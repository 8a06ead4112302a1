/**
 * `TeamServer` (contract.ts) on a team's PostgreSQL: the team night's view of the shared server, plus
 * what a member's machine needs besides (opt in, push, leave, status, doctor). Every statement is a
 * repository function of src/store/team; this module holds the rules (fencing, parsing, errors).
 */
import { SleepError } from '../core/errors.js';
import { TaskSchema } from '../core/records.js';
import { describeServer, openPool, serverError, splitPassword, type PgPool } from '../store/team/client.js';
import { migrateTeamSchema, teamSchemaVersion, TEAM_SCHEMA_VERSION } from '../store/team/schema.js';
import * as repo from '../store/team/repo.js';
import type { NightLease, PooledTask, RepoKey, TeamNightSummary, TeamServer } from './contract.js';

export interface OpenTeamServerOptions {
  /** the password when the URL has none (the credentials file); else PGPASSWORD or ~/.pgpass */
  password?: string | null;
  /** apply the schema's missing migrations (join does; a night or a push too: the schema is ours) */
  migrate?: boolean;
  /** connections in the pool */
  max?: number;
  connectTimeoutMs?: number;
}

export interface TeamServerConnection extends TeamServer {
  /** user@host:port/database, never the password */
  readonly where: string;
  readonly pool: PgPool;
  schemaVersion(): Promise<number>;
  /** a driver error as a SleepError naming the server, without the password */
  describeError(err: unknown, doing: string): SleepError;
  close(): Promise<void>;
}

/** Wraps a driver error so its text never holds the password, with a hint of what to do. */
function guard(url: string, password: string | null | undefined) {
  return async <T>(doing: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof SleepError) throw err;
      throw serverError(err, url, password, doing);
    }
  };
}

/**
 * Connects to the team's server, checks (and with `migrate`, brings up to date) its schema. A server
 * whose schema is newer than this version knows is refused: an older client must not write to it.
 */
export async function openTeamServer(url: string, opts: OpenTeamServerOptions = {}): Promise<TeamServerConnection> {
  const pool = openPool(url, { password: opts.password, max: opts.max, connectTimeoutMs: opts.connectTimeoutMs });
  const run = guard(url, opts.password ?? splitPassword(url).password);
  const where = describeServer(url);
  try {
    const version = await run('connecting to the team server', async () => ((opts.migrate ?? true) ? migrateTeamSchema(pool) : teamSchemaVersion(pool)));
    if (version > TEAM_SCHEMA_VERSION) {
      throw new SleepError('DB_TOO_NEW', `the team server ${where} has schema v${version}; this skillopt-sleep knows up to v${TEAM_SCHEMA_VERSION}`, {
        hint: 'update skillopt-sleep on this machine (another member runs a newer version)',
      });
    }
    if (version < TEAM_SCHEMA_VERSION && opts.migrate === false) {
      throw new SleepError('STALE', `the team server ${where} has schema v${version}, not v${TEAM_SCHEMA_VERSION}`, { hint: '`skillopt-sleep team join` (or any push) migrates it' });
    }
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }

  const toLease = (row: repo.LeaseRow): NightLease => ({ repoKey: row.repoKey, holder: row.holder, token: row.token, expiresAt: row.expiresAt });
  return {
    where,
    pool,
    describeError: (err, doing) => (err instanceof SleepError ? err : serverError(err, url, opts.password ?? splitPassword(url).password, doing)),
    schemaVersion: () => run('reading the schema version', () => teamSchemaVersion(pool)),
    async pooledTasks(repoKey: RepoKey): Promise<PooledTask[]> {
      const rows = await run('reading the pooled tasks', () => repo.listPooledTasks(pool, repoKey));
      return rows.map((r) => {
        const parsed = TaskSchema.safeParse(r.task);
        if (!parsed.success) {
          throw new SleepError('DB_CORRUPT', `pooled task ${r.contentHash.slice(0, 12)} on ${where} is not a valid task: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
            hint: 'the member who pushed it runs `skillopt-sleep team push` again after updating',
          });
        }
        return { repoKey: r.repoKey, memberId: r.memberId, sessionKey: r.sessionKey, contentHash: r.contentHash, task: parsed.data };
      });
    },
    async acquireNight(repoKey, holder, ttlMs) {
      const row = await run('taking the night lease', () => repo.acquireLease(pool, repoKey, holder, ttlMs));
      return row ? toLease(row) : null;
    },
    async renewNight(lease, ttlMs) {
      const expires = await run('renewing the night lease', () => repo.renewLease(pool, lease.repoKey, lease.token, ttlMs));
      if (expires === null) return false;
      lease.expiresAt = expires;
      return true;
    },
    async releaseNight(lease) {
      await run('releasing the night lease', () => repo.releaseLease(pool, lease.repoKey, lease.token));
    },
    async saveCheckpoint(lease, state) {
      await run('saving the checkpoint', () => repo.saveCheckpoint(pool, lease.repoKey, lease.token, state));
    },
    async loadCheckpoint(repoKey) {
      return run('loading the checkpoint', () => repo.loadCheckpoint(pool, repoKey));
    },
    async recordNight(lease, summary: TeamNightSummary) {
      if (summary.repoKey !== lease.repoKey) throw new SleepError('INVALID_INPUT', `the summary is for ${summary.repoKey}, the lease for ${lease.repoKey}`);
      await run('recording the night', () => repo.recordNightSummary(pool, lease.repoKey, lease.token, summary.status, summary, summary.finishedAt));
    },
    close: () => pool.end(),
  };
}
