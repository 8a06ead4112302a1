import type { Migration } from './types.js';

/**
 * Harvest: the lookups ingest and `sessions list` make. Indexes only (IF NOT EXISTS), so a store
 * that skipped this version still works, just slower.
 */
export const m002_harvest: Migration = {
  version: 2,
  name: 'harvest',
  sql: `
CREATE INDEX IF NOT EXISTS files_session ON files(session_id);
CREATE INDEX IF NOT EXISTS sessions_agent_kind ON sessions(agent, kind, started_at);
CREATE INDEX IF NOT EXISTS sessions_started ON sessions(started_at);
`,
};
