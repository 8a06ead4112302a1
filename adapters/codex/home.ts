/**
 * Codex's homes (rollouts, skills, AGENTS.md): config `agents.codex.roots`, then `CODEX_HOME` (a
 * comma list is accepted), else ~/.codex. The one resolver of both the harvest and the skill side
 * (they once disagreed: `CODEX_HOME=/a,/b` was two homes to one and a folder named `/a,/b` to the other).
 */
import path from 'node:path';
import { envList, type HomeContext } from '../agent.js';

export const CODEX_HOME_ENV = 'CODEX_HOME';

export function codexHomes({ env, home, config }: HomeContext): string[] {
  const fromEnv = envList(env[CODEX_HOME_ENV]);
  const list = [...(config?.agents.codex.roots ?? []), ...(fromEnv.length ? fromEnv : [path.join(home, '.codex')])];
  return [...new Set(list.map((p) => path.resolve(p)))];
}
