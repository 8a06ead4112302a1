/**
 * Pi's agent folder: config `agents.pi.roots`, then `$PI_CODING_AGENT_DIR` (Pi reads it as its
 * whole agent folder, `~` expanded), else ~/.pi/agent (pi-mono packages/coding-agent/src/config.ts
 * `getAgentDir`). The one resolver of both the harvest and the skill side.
 */
import path from 'node:path';
import { envList, type HomeContext } from '../agent.js';

export const PI_HOME_ENV = 'PI_CODING_AGENT_DIR';

function expandTilde(p: string, home: string): string {
  if (p === '~') return home;
  return p.startsWith('~/') ? path.join(home, p.slice(2)) : p;
}

export function piHomes({ env, home, config }: HomeContext): string[] {
  const fromEnv = envList(env[PI_HOME_ENV]).map((h) => expandTilde(h, home));
  const list = [...(config?.agents.pi.roots ?? []), ...(fromEnv.length ? fromEnv : [path.join(home, '.pi', 'agent')])];
  return [...new Set(list.map((p) => path.resolve(p)))];
}
