import type { Migration } from './types.js';

/** The core tables every module shares. JSON columns hold zod-validated records (src/core/records.ts). */
export const m001_core: Migration = {
  version: 1,
  name: 'core',
  sql: `
CREATE TABLE files (
  path TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  dev INTEGER NOT NULL DEFAULT 0,
  ino INTEGER NOT NULL DEFAULT 0,
  size INTEGER NOT NULL DEFAULT 0,
  mtime_ms INTEGER NOT NULL DEFAULT 0,
  offset INTEGER NOT NULL DEFAULT 0,
  head_hash TEXT,
  session_id TEXT,
  state TEXT,                       -- adapter parser state (JSON) carried across incremental reads
  error TEXT,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  vendor_id TEXT NOT NULL,
  project TEXT,
  cwd TEXT,
  git_branch TEXT,
  started_at INTEGER,
  ended_at INTEGER,
  kind TEXT NOT NULL CHECK (kind IN ('interactive','headless','subagent','self')),
  parent_id TEXT,
  file TEXT NOT NULL,
  title TEXT,
  prompt_count INTEGER NOT NULL DEFAULT 0,
  tool_error_count INTEGER NOT NULL DEFAULT 0,
  mined_at INTEGER,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_project ON sessions(project);
CREATE INDEX sessions_updated ON sessions(updated_at);

CREATE TABLE events (
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
) STRICT;
CREATE INDEX events_kind ON events(kind, session_id);

CREATE TABLE tasks (
  id TEXT PRIMARY KEY,
  project TEXT,
  intent TEXT NOT NULL,
  split TEXT NOT NULL CHECK (split IN ('train','val','test')),
  origin TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active',
  cluster_id TEXT,
  record TEXT NOT NULL,             -- full Task JSON
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX tasks_project ON tasks(project, split);

CREATE TABLE task_occurrences (
  task_id TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL,
  event_seq INTEGER NOT NULL,
  ts INTEGER,
  prompt TEXT NOT NULL,
  outcome TEXT,                     -- JSON: tools, errors, user reaction
  PRIMARY KEY (task_id, session_id, event_seq)
) STRICT;

CREATE TABLE rollouts (
  cache_key TEXT PRIMARY KEY,       -- hash(skill hash, task id, backend+model, sample)
  task_id TEXT NOT NULL,
  skill_hash TEXT NOT NULL,
  record TEXT NOT NULL,             -- Rollout JSON
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE llm_cache (
  cache_key TEXT PRIMARY KEY,
  response TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE ledger (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ts INTEGER NOT NULL,
  run_id TEXT,
  role TEXT NOT NULL,
  backend TEXT NOT NULL,
  model TEXT,
  destination TEXT NOT NULL,        -- host or binary
  bytes_sent INTEGER NOT NULL,
  redactions INTEGER NOT NULL DEFAULT 0,
  content_hash TEXT NOT NULL,
  tokens_in INTEGER NOT NULL DEFAULT 0,
  tokens_out INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  ok INTEGER NOT NULL DEFAULT 1,
  error TEXT
) STRICT;
CREATE INDEX ledger_ts ON ledger(ts);

CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,               -- train | night
  status TEXT NOT NULL,             -- running | done | failed | aborted
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  dir TEXT,
  record TEXT NOT NULL DEFAULT '{}' -- JSON: config, summary, report
) STRICT;

CREATE TABLE steps (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  epoch INTEGER NOT NULL,
  step INTEGER NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (run_id, epoch, step)
) STRICT;

CREATE TABLE proposals (
  id TEXT PRIMARY KEY,
  run_id TEXT,
  night_id TEXT,
  skill_path TEXT NOT NULL,
  skill_name TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('staged','applied','rejected','reverted','stale')),
  created_at INTEGER NOT NULL,
  decided_at INTEGER,
  record TEXT NOT NULL              -- full Proposal JSON
) STRICT;
CREATE INDEX proposals_status ON proposals(status, created_at);

CREATE TABLE receipts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  proposal_id TEXT NOT NULL,
  action TEXT NOT NULL,             -- apply | revert | reject
  ts INTEGER NOT NULL,
  path TEXT NOT NULL,
  before_hash TEXT,
  after_hash TEXT,
  backup_path TEXT,
  note TEXT
) STRICT;

CREATE TABLE rejected_edits (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  skill_key TEXT NOT NULL,          -- the skill path (or managed skill name) the edit was for
  edit_hash TEXT NOT NULL,
  op TEXT NOT NULL,
  anchor TEXT,
  content TEXT NOT NULL,
  reason TEXT,
  score_drop REAL,
  source TEXT NOT NULL,             -- gate | user
  created_at INTEGER NOT NULL,
  UNIQUE (skill_key, edit_hash, source)
) STRICT;

CREATE TABLE leases (
  name TEXT PRIMARY KEY,            -- daemon | night
  holder TEXT NOT NULL,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  acquired_at INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  info TEXT NOT NULL DEFAULT '{}'
) STRICT;

CREATE TABLE kv (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
`,
};
