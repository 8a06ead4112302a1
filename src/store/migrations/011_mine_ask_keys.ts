import type { Migration } from './types.js';

/**
 * What re-synthesizing a family needs of each stored ask, kept beside it instead of recomputed on
 * every run: an incremental run re-reads every ask of each family it touches (thousands), and
 * normalising each one again was most of its cost.
 * - ask_key: the normalised key of the ask (incidental detail stripped; src/mine/normalize.ts)
 * - dedupe_key: the near-duplicate key that groups asks into one instance (src/mine/family.ts)
 * Both are derived data, NULL until mining computes them: the first mining run after this
 * migration backfills existing rows (and again whenever the key functions change, see
 * ASK_KEYS_VERSION in src/mine/ask-keys.ts).
 * - an index in the order a family's asks are read (most recent first), so reading a family of
 *   thousands of asks is an index walk instead of a sort.
 * - an index of tasks by family (cluster): reading a family's tasks scanned the whole task table,
 *   once for each family a run touched.
 */
export const m011_mine_ask_keys: Migration = {
  version: 11,
  name: 'mine-ask-keys',
  sql: `
ALTER TABLE cluster_members ADD COLUMN ask_key TEXT;
ALTER TABLE cluster_members ADD COLUMN dedupe_key TEXT;
CREATE INDEX cluster_members_recent ON cluster_members(cluster_id, ts DESC, session_id, event_seq);
CREATE INDEX tasks_cluster ON tasks(cluster_id);
`,
};
