import type { Migration } from './types.js';

/**
 * Proposals gain the status `superseded`: a newer night's proposal for the same file replaces a
 * staged one without banning its edits. SQLite cannot alter a CHECK constraint, so the table is
 * rebuilt with the wider list (same columns, same index).
 */
export const m008_proposals_superseded: Migration = {
  version: 8,
  name: 'proposals-superseded',
  sql: `
CREATE TABLE proposals_new (
  id TEXT PRIMARY KEY,
  run_id TEXT,
  night_id TEXT,
  skill_path TEXT NOT NULL,
  skill_name TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('staged','applied','rejected','reverted','stale','superseded')),
  created_at INTEGER NOT NULL,
  decided_at INTEGER,
  record TEXT NOT NULL
) STRICT;
INSERT INTO proposals_new SELECT id, run_id, night_id, skill_path, skill_name, status, created_at, decided_at, record FROM proposals;
DROP TABLE proposals;
ALTER TABLE proposals_new RENAME TO proposals;
CREATE INDEX proposals_status ON proposals(status, created_at);
`,
};
