import type { Migration } from './types.js';

/**
 * Prompt tokens a provider served from its cache are billed at a fraction of fresh ones; the ledger
 * keeps them apart (they stay counted in tokens_in) so a night's cost can be read honestly.
 */
export const m007_ledger_cache: Migration = {
  version: 7,
  name: 'ledger-cache-read',
  sql: `
ALTER TABLE ledger ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
`,
};
