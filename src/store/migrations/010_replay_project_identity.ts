import type { Migration } from './types.js';

/**
 * A project's identity beyond its path: the root (first) commit of its git repository, recorded
 * while the folder exists, so that when the repository moves (same first commit, new path) its
 * sessions and tasks can follow it.
 */
export const m010_replay_project_identity: Migration = {
  version: 10,
  name: 'project-identity',
  sql: `
CREATE TABLE project_identity (
  path TEXT PRIMARY KEY,
  root_commit TEXT NOT NULL,
  checked_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX project_identity_root ON project_identity(root_commit);
`,
};
