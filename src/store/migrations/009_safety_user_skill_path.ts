import type { Migration } from './types.js';

/**
 * A proposal remembers the `--skill <path>` the user typed when it was trained on that file: the
 * one write target that is allowed without a harvested project (apply honours it for that path
 * only). Mined tasks, task files and proposal records can never set it.
 */
export const m009_safety_user_skill_path: Migration = {
  version: 9,
  name: 'safety-user-skill-path',
  sql: `ALTER TABLE proposals ADD COLUMN user_skill_path TEXT;`,
};
