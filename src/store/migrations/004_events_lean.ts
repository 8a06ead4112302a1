import type { Migration } from './types.js';

/**
 * Events are only ever read by session (the primary key prefix), so the `events_kind` index cost a
 * third B-tree insert per row for nothing, and the rowid a second one: the cold harvest spends most
 * of its main-thread time inserting events. WITHOUT ROWID keeps one B-tree keyed by (session, seq).
 */
export const m004_events_lean: Migration = {
  version: 4,
  name: 'events-lean',
  sql: `
DROP INDEX IF EXISTS events_kind;
CREATE TABLE events_new (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  ts INTEGER,
  role TEXT NOT NULL,
  kind TEXT NOT NULL,
  tool_name TEXT,
  is_error INTEGER NOT NULL DEFAULT 0,
  text TEXT NOT NULL,
  cwd TEXT,
  meta TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;
INSERT INTO events_new SELECT session_id, seq, ts, role, kind, tool_name, is_error, text, cwd, meta FROM events;
DROP TABLE events;
ALTER TABLE events_new RENAME TO events;
`,
};
