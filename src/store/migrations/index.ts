/**
 * Versioned migrations, applied in order on open. Never edit a migration that has shipped:
 * add a new file with the next version (its type from ./types.js) and append it here.
 */
import { m001_core } from './001_core.js';
import { m002_harvest } from './002_harvest.js';
import { m003_mine } from './003_mine.js';
import { m004_events_lean } from './004_events_lean.js';
import { m005_files_stamp } from './005_files_stamp.js';
import { m006_events_sid } from './006_events_sid.js';
import { m007_ledger_cache } from './007_ledger_cache.js';
import { m008_proposals_superseded } from './008_proposals_superseded.js';
import { m009_safety_user_skill_path } from './009_safety_user_skill_path.js';
import { m010_replay_project_identity } from './010_replay_project_identity.js';
import { m011_mine_ask_keys } from './011_mine_ask_keys.js';
import { m012_files_damage } from './012_files_damage.js';

import type { Migration } from './types.js';

export type { Migration } from './types.js';

export const MIGRATIONS: Migration[] = [m001_core, m002_harvest, m003_mine, m004_events_lean, m005_files_stamp, m006_events_sid, m007_ledger_cache, m008_proposals_superseded, m009_safety_user_skill_path, m010_replay_project_identity, m011_mine_ask_keys, m012_files_damage];

export const LATEST_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));
