/** Where the agents' homes are looked for: the env and the user's home folder (Windows: USERPROFILE). */
import os from 'node:os';
import type { RootEnv } from './types.js';

export function rootEnvFrom(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): RootEnv {
  return { env, platform, homedir: env.HOME && platform !== 'win32' ? env.HOME : (env.USERPROFILE ?? os.homedir()) };
}
