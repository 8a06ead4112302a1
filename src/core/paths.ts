import os from 'node:os';
import path from 'node:path';

/**
 * Where skillopt-sleep keeps its files. Pure: takes env/platform/home so tests can vary them.
 *
 * - `SKILLOPT_SLEEP_HOME` overrides everything: config and state live under it (tests, sandboxes).
 * - Linux/BSD: XDG (`$XDG_CONFIG_HOME` or ~/.config; `$XDG_STATE_HOME` or ~/.local/state).
 * - macOS: ~/Library/Application Support/skillopt-sleep (config) and ~/Library/Application Support/skillopt-sleep/state.
 *   XDG variables, when set explicitly, still win (many macOS developers set them on purpose).
 * - Windows: %APPDATA%\skillopt-sleep (config), %LOCALAPPDATA%\skillopt-sleep (state).
 */
export interface SleepPaths {
  configDir: string;
  configFile: string;
  stateDir: string;
  database: string;
  logsDir: string;
  proposalsDir: string;
  backupsDir: string;
  runsDir: string;
  workspacesDir: string;
  pidFile: string;
}

export interface PathEnv {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  homedir: string;
}

export const APP_NAME = 'skillopt-sleep';

export function resolvePaths(input: Partial<PathEnv> = {}): SleepPaths {
  const env = input.env ?? process.env;
  const platform = input.platform ?? process.platform;
  const home = input.homedir ?? os.homedir();
  const p = platform === 'win32' ? path.win32 : path.posix;

  let configDir: string;
  let stateDir: string;
  const override = env.SKILLOPT_SLEEP_HOME;
  if (override && override.trim() !== '') {
    const root = p.resolve(override);
    configDir = root;
    stateDir = p.join(root, 'state');
  } else if (platform === 'win32') {
    configDir = p.join(env.APPDATA || p.join(home, 'AppData', 'Roaming'), APP_NAME);
    stateDir = p.join(env.LOCALAPPDATA || p.join(home, 'AppData', 'Local'), APP_NAME);
  } else if (platform === 'darwin' && !env.XDG_CONFIG_HOME && !env.XDG_STATE_HOME) {
    configDir = p.join(home, 'Library', 'Application Support', APP_NAME);
    stateDir = p.join(configDir, 'state');
  } else {
    const xdgConfig = env.XDG_CONFIG_HOME && p.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : p.join(home, '.config');
    const xdgState = env.XDG_STATE_HOME && p.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : p.join(home, '.local', 'state');
    configDir = p.join(xdgConfig, APP_NAME);
    stateDir = p.join(xdgState, APP_NAME);
  }

  return {
    configDir,
    configFile: p.join(configDir, 'config.json'),
    stateDir,
    database: p.join(stateDir, 'sleep.db'),
    logsDir: p.join(stateDir, 'logs'),
    proposalsDir: p.join(stateDir, 'proposals'),
    backupsDir: p.join(stateDir, 'backups'),
    runsDir: p.join(stateDir, 'runs'),
    workspacesDir: p.join(stateDir, 'workspaces'),
    pidFile: p.join(stateDir, 'daemon.pid'),
  };
}
