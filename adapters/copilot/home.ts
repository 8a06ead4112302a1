/**
 * The Copilot CLI's homes (session logs, skills): config `agents.copilot.cliRoots`, then
 * `COPILOT_HOME` (a comma list is accepted), else ~/.copilot. The one resolver of both the harvest
 * and the skill side. VS Code's user folders are the harvest's alone (./paths.ts).
 */
import path from 'node:path';
import { envList, type HomeContext } from '../agent.js';

export const COPILOT_HOME_ENV = 'COPILOT_HOME';

export function copilotHomes({ env, home, config }: HomeContext): string[] {
  const fromEnv = envList(env[COPILOT_HOME_ENV]);
  const list = [...(config?.agents.copilot.cliRoots ?? []), ...(fromEnv.length ? fromEnv : [path.join(home, '.copilot')])];
  return [...new Set(list.map((d) => path.resolve(d)))];
}
