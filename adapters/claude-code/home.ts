/**
 * Claude Code's config folders (transcripts, skills, CLAUDE.md): config `agents.claudeCode.roots`,
 * then every entry of `CLAUDE_CONFIG_DIR` (a comma list), else ~/.claude. The one resolver of
 * both the harvest and the skill side.
 */
import path from 'node:path';
import { envList, type HomeContext } from '../agent.js';

export const CLAUDE_HOME_ENV = 'CLAUDE_CONFIG_DIR';

export function claudeHomes({ env, home, config }: HomeContext): string[] {
  const fromEnv = envList(env[CLAUDE_HOME_ENV]);
  const list = [...(config?.agents.claudeCode.roots ?? []), ...(fromEnv.length ? fromEnv : [path.join(home, '.claude')])];
  return [...new Set(list.map((p) => path.resolve(p)))];
}

/** Where older setups kept transcripts too (the harvest reads them even when CLAUDE_CONFIG_DIR points elsewhere). */
export function claudeLegacyHomes({ env, home }: HomeContext): string[] {
  const xdg = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(home, '.config');
  return [path.join(xdg, 'claude'), path.join(home, '.claude')];
}
