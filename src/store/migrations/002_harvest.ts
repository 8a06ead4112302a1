import type { Migration } from './index.js';

/** Harvest: the head length behind files.head_hash, and the lookups ingest and `sessions list` make. */
export const m002_harvest: Migration = {
  version: 2,
  name: 'harvest',
  sql: `
ALTER TABLE files ADD COLUMN head_len INTEGER NOT NULL DEFAULT 0;
CREATE INDEX files_session ON files(session_id);
CREATE INDEX sessions_agent_kind ON sessions(agent, kind, started_at);
CREATE INDEX sessions_started ON sessions(started_at);
`,
};
