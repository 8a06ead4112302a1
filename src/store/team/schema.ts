/**
 * The team server's schema, versioned like the local store's (src/store/migrations): each migration
 * runs once, in order, inside one transaction that holds an advisory lock, so two members joining at
 * the same moment never apply one twice. `schema_version` says which ran (doctor reports it).
 *
 * Never edit a migration that has shipped: append the next version.
 *
 * Nothing here names a project: a repository is its `repo_key` (a hash of its root commits) and a
 * member is an opaque id. Tasks hold the mined, redacted task record, never a transcript.
 */
import type { PgPool } from './client.js';
import { inTransaction } from './client.js';

interface TeamMigration {
  version: number;
  name: string;
  sql: string;
}

export const TEAM_MIGRATIONS: TeamMigration[] = [
  {
    version: 1,
    name: 'team-core',
    sql: `
CREATE TABLE IF NOT EXISTS members (
  member_id TEXT PRIMARY KEY,
  -- shown only when the team config allows names; NULL by default
  display_name TEXT,
  joined_at BIGINT NOT NULL,
  last_push_at BIGINT
);
CREATE TABLE IF NOT EXISTS member_repos (
  repo_key TEXT NOT NULL,
  member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
  joined_at BIGINT NOT NULL,
  PRIMARY KEY (repo_key, member_id)
);
CREATE TABLE IF NOT EXISTS pooled_tasks (
  repo_key TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  member_id TEXT NOT NULL REFERENCES members(member_id) ON DELETE CASCADE,
  -- the member's task, hashed (a re-mined task replaces its older content: one row per task_ref)
  task_ref TEXT NOT NULL,
  session_key TEXT NOT NULL,
  task JSONB NOT NULL,
  pushed_at BIGINT NOT NULL,
  PRIMARY KEY (repo_key, content_hash)
);
CREATE INDEX IF NOT EXISTS pooled_tasks_member ON pooled_tasks (repo_key, member_id, task_ref);
CREATE SEQUENCE IF NOT EXISTS lease_tokens;
CREATE TABLE IF NOT EXISTS night_leases (
  repo_key TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  -- the fencing token: a fresh one from lease_tokens at every acquisition
  token BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  acquired_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS night_checkpoints (
  repo_key TEXT PRIMARY KEY,
  token BIGINT NOT NULL,
  state JSONB NOT NULL,
  saved_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS night_summaries (
  id BIGSERIAL PRIMARY KEY,
  repo_key TEXT NOT NULL,
  token BIGINT NOT NULL,
  status TEXT NOT NULL,
  summary JSONB NOT NULL,
  finished_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS night_summaries_repo ON night_summaries (repo_key, finished_at);
`,
  },
];

export const TEAM_SCHEMA_VERSION = Math.max(...TEAM_MIGRATIONS.map((m) => m.version));

/** One number for every skillopt-sleep server: the migrations of one database never run twice at once. */
const MIGRATION_LOCK = 4_242_042;

/** Applies the migrations the database lacks; returns the version it is at. Refuses a newer schema. */
export async function migrateTeamSchema(pool: PgPool): Promise<number> {
  // up to date (every join and push after the first): no DDL at all, so a member's role needs no CREATE
  const now = await teamSchemaVersion(pool);
  if (now >= TEAM_SCHEMA_VERSION) return now;
  return inTransaction(pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await c.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    const have = Number((await c.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_version')).rows[0]?.v ?? 0);
    if (have > TEAM_SCHEMA_VERSION) return have;
    for (const m of TEAM_MIGRATIONS) {
      if (m.version <= have) continue;
      await c.query(m.sql);
      await c.query('INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, Date.now()]);
    }
    return TEAM_SCHEMA_VERSION;
  });
}

/** The version the server is at (0: never joined; the tables are not there). */
export async function teamSchemaVersion(pool: PgPool): Promise<number> {
  const exists = await pool.query<{ t: string | null }>("SELECT to_regclass('schema_version')::text AS t");
  if (!exists.rows[0]?.t) return 0;
  return Number((await pool.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_version')).rows[0]?.v ?? 0);
}
