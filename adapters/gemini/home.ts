/**
 * Gemini CLI's folders: config `agents.gemini.roots`, then `$GEMINI_CLI_HOME/.gemini` (the CLI
 * reads GEMINI_CLI_HOME as its home directory), else ~/.gemini. The one resolver of both the
 * harvest and the skill side.
 */
import path from 'node:path';
import { envList, type HomeContext } from '../agent.js';

export const GEMINI_HOME_ENV = 'GEMINI_CLI_HOME';
export const GEMINI_DIR = '.gemini';

export function geminiHomes({ env, home, config }: HomeContext): string[] {
  const fromEnv = envList(env[GEMINI_HOME_ENV]).map((h) => path.join(h, GEMINI_DIR));
  const list = [...(config?.agents.gemini.roots ?? []), ...(fromEnv.length ? fromEnv : [path.join(home, GEMINI_DIR)])];
  return [...new Set(list.map((p) => path.resolve(p)))];
}
