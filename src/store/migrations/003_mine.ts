import type { Migration } from './types.js';

/**
 * Mining state, so new sessions join existing clusters without re-clustering history:
 * - clusters: one row per intent cluster (singletons included, so a later paraphrase can make
 *   them recurring); `centroid` holds summed raw term counts (IDF is applied at compare time,
 *   because document frequencies keep moving as sessions arrive).
 * - cluster_keys: the few most distinctive terms of each cluster, the inverted index used to find
 *   candidate clusters for a new prompt without loading every centroid.
 * - cluster_members: every intent prompt mined, with its cleaned text and inferred outcome.
 * - mine_df: document frequency of every feature (for IDF); the number of documents is in kv.
 */
export const m003_mine: Migration = {
  version: 3,
  name: 'mine',
  sql: `
CREATE TABLE clusters (
  id TEXT PRIMARY KEY,
  centroid TEXT NOT NULL,           -- JSON {term: count}, truncated to the strongest terms
  size INTEGER NOT NULL,            -- member prompts
  session_count INTEGER NOT NULL,   -- distinct sessions among members
  task_id TEXT,
  miner TEXT NOT NULL DEFAULT 'heuristic', -- who wrote the task definition: heuristic | llm
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX clusters_sessions ON clusters(session_count);

CREATE TABLE cluster_keys (
  term TEXT NOT NULL,
  big INTEGER NOT NULL,             -- 1 when the cluster has 2+ members (probed with every word of an ask)
  cluster_id TEXT NOT NULL REFERENCES clusters(id) ON DELETE CASCADE,
  PRIMARY KEY (term, big, cluster_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX cluster_keys_cluster ON cluster_keys(cluster_id);

CREATE TABLE cluster_members (
  session_id TEXT NOT NULL,
  event_seq INTEGER NOT NULL,
  cluster_id TEXT NOT NULL REFERENCES clusters(id) ON DELETE CASCADE,
  project TEXT,
  agent TEXT NOT NULL,
  ts INTEGER,
  similarity REAL NOT NULL,
  prompt TEXT NOT NULL,             -- cleaned prompt (envelopes stripped), already redacted
  outcome TEXT NOT NULL DEFAULT '{}', -- JSON Outcome: tools, errors, reactions, corrections
  PRIMARY KEY (session_id, event_seq)
) STRICT;
CREATE INDEX cluster_members_cluster ON cluster_members(cluster_id, session_id);

CREATE TABLE mine_df (
  term TEXT PRIMARY KEY,
  df INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE INDEX task_occurrences_session ON task_occurrences(session_id, event_seq);
CREATE INDEX sessions_mined ON sessions(kind, mined_at);
`,
};
