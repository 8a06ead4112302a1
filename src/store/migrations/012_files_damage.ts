import type { Migration } from './types.js';

/**
 * What a transcript file held that could not be stored: its damaged lines (not JSON, not an object,
 * a record no field of which could be stored...) counted by reason, as JSON (`{"malformed": 2}`),
 * NULL when there were none. Kept on the file row beside its `error` so `status` and `doctor` can
 * say which file lost which lines; counted since the file was last read from its start.
 */
export const m012_files_damage: Migration = {
  version: 12,
  name: 'files-damage',
  sql: `
ALTER TABLE files ADD COLUMN damaged TEXT;
`,
};
