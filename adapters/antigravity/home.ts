/**
 * Antigravity CLI's folder: config `agents.antigravity.roots`, else `~/.gemini/antigravity-cli`
 * (its data root: tenequm/pond issue #201, steipete/CodexBar issue #1178). No environment variable is
 * documented to move it (pond #201: "No documented root override"; the two names third parties read,
 * ANTIGRAVITY_CLI_HOME and ANTIGRAVITY_HOME, are not verified against the binary), so none is read.
 * The one resolver of the harvest, the skill side and `doctor`.
 */
import path from 'node:path';
import type { HomeContext } from '../agent.js';

/** `~/.gemini`, which Antigravity shares with Gemini CLI (Gemini CLI's guide "Migrating to Antigravity CLI", cited in docs/transcript-formats.md). */
export const SHARED_GEMINI_DIR = '.gemini';
export const ANTIGRAVITY_CLI_DIR = 'antigravity-cli';
/** The Antigravity editor's own folder beside it (devboy-core docs, agents/antigravity): not harvested. */
export const ANTIGRAVITY_EDITOR_DIR = 'antigravity';

export function antigravityHomes({ home, config }: HomeContext): string[] {
  const list = [...(config?.agents.antigravity.roots ?? []), path.join(home, SHARED_GEMINI_DIR, ANTIGRAVITY_CLI_DIR)];
  return [...new Set(list.map((p) => path.resolve(p)))];
}
