/**
 * Temporary, marked workspaces for agent CLI runs. The marker file tells our harvester that a
 * transcript recorded with this cwd is our own replay (`self`), never a user task to mine. The
 * workspace is created 0700 under the state dir's workspaces/ and removed after the run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../core/fsutil.js';
import { SleepError } from '../core/errors.js';

export const WORKSPACE_MARKER = '.skillopt-sleep-workspace';

export function createWorkspace(workspacesDir: string, info: Record<string, unknown> = {}): string {
  ensurePrivateDir(workspacesDir);
  const dir = fs.mkdtempSync(path.join(workspacesDir, 'ws-'));
  fs.chmodSync(dir, 0o700);
  fs.writeFileSync(path.join(dir, WORKSPACE_MARKER), JSON.stringify({ createdBy: 'skillopt-sleep', pid: process.pid, createdAt: new Date().toISOString(), ...info }) + '\n', {
    mode: 0o600,
  });
  return dir;
}

/** Writes `content` at `relPath` inside the workspace; refuses any path that escapes it. */
export function installFile(workspace: string, relPath: string, content: string): string {
  const target = path.resolve(workspace, relPath);
  if (!target.startsWith(path.resolve(workspace) + path.sep)) {
    throw new SleepError('PATH_ESCAPE', `refusing to write ${relPath} outside the workspace`);
  }
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  fs.writeFileSync(target, content, { mode: 0o600 });
  return target;
}

export function removeWorkspace(dir: string): void {
  // only ever delete something we marked
  if (fs.existsSync(path.join(dir, WORKSPACE_MARKER))) fs.rmSync(dir, { recursive: true, force: true });
}

export function isMarkedWorkspace(dir: string): boolean {
  return fs.existsSync(path.join(dir, WORKSPACE_MARKER));
}
