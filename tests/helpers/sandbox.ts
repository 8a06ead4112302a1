/**
 * Test sandboxes: a temporary SKILLOPT_SLEEP_HOME (and fake agent homes) per test, removed after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI_BIN = path.join(REPO_ROOT, 'dist/src/cli/main.js');

export function makeTempDir(prefix = 'sos-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface Sandbox {
  root: string;
  home: string; // SKILLOPT_SLEEP_HOME
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** An env with every agent home pointed inside the sandbox, so tests never read the real ~/. */
export function makeSandbox(extraEnv: NodeJS.ProcessEnv = {}): Sandbox {
  const root = makeTempDir();
  const home = path.join(root, 'sleep-home');
  const fakeHome = path.join(root, 'home');
  fs.mkdirSync(fakeHome, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: fakeHome,
    SKILLOPT_SLEEP_HOME: home,
    CLAUDE_CONFIG_DIR: path.join(root, 'agents/claude'),
    CODEX_HOME: path.join(root, 'agents/codex'),
    COPILOT_HOME: path.join(root, 'agents/copilot'),
    XDG_CONFIG_HOME: path.join(fakeHome, '.config'),
    XDG_STATE_HOME: path.join(fakeHome, '.local/state'),
    NO_COLOR: '1',
    ...extraEnv,
  };
  return {
    root,
    home,
    env,
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

/** Runs the built CLI (dist/) as a real child process. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, opts: { input?: string; timeout?: number; cwd?: string } = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CLI_BIN, ...args], {
    env,
    encoding: 'utf8',
    input: opts.input,
    timeout: opts.timeout ?? 60_000,
    cwd: opts.cwd,
  });
}
