/**
 * Cursor Agent's folder: config `agents.cursor.roots`, then `$CURSOR_CONFIG_DIR` (Cursor documents
 * it as the CLI's configuration-location override; whether the CLI also writes `projects/` there is
 * unknown, so it is honoured as a place to look, never assumed), else ~/.cursor.
 */
import path from 'node:path';
import { envList, type HomeContext } from '../agent.js';

export const CURSOR_HOME_ENV = 'CURSOR_CONFIG_DIR';
export const CURSOR_DIR = '.cursor';

export function cursorHomes({ env, home, config }: HomeContext): string[] {
  const fromEnv = envList(env[CURSOR_HOME_ENV]);
  const list = [...(config?.agents.cursor.roots ?? []), ...(fromEnv.length ? fromEnv : [path.join(home, CURSOR_DIR)])];
  return [...new Set(list.map((p) => path.resolve(p)))];
}
