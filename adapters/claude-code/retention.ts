/**
 * Claude Code deletes transcripts older than `cleanupPeriodDays` (default 30) at startup, from
 * its settings.json. Our store keeps what it harvested; `doctor` and `status` say so, and warn
 * while the setting is at its default (a month of history is all the agent itself keeps).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../src/core/config.js';
import type { TranscriptRetention } from '../agent.js';
import type { RootEnv } from '../types.js';
import { claudeHomes } from './home.js';

export const CLAUDE_CLEANUP_SETTING = 'cleanupPeriodDays';
export const CLAUDE_CLEANUP_DEFAULT_DAYS = 30;

export function claudeRetention(config: Config, { env, homedir }: RootEnv): TranscriptRetention {
  for (const home of claudeHomes({ env, home: homedir, config })) {
    const file = path.join(home, 'settings.json');
    let data: unknown;
    try {
      data = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    const v = data && typeof data === 'object' ? (data as Record<string, unknown>)[CLAUDE_CLEANUP_SETTING] : undefined;
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) {
      return { days: v, isDefault: v === CLAUDE_CLEANUP_DEFAULT_DAYS, setting: CLAUDE_CLEANUP_SETTING, source: file };
    }
  }
  return { days: CLAUDE_CLEANUP_DEFAULT_DAYS, isDefault: true, setting: CLAUDE_CLEANUP_SETTING, source: null };
}
