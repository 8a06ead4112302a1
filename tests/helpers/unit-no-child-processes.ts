/**
 * Vitest setup: in tests/unit/ every way to start a child process throws, so a unit test stays a
 * unit test (fast, no real binaries, no processes left behind). Tests that need real processes
 * (the built CLI, agent binaries, several openers of one store, the daemon) belong in
 * tests/integration/ or tests/e2e/. Worker threads are not child processes and stay allowed.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

const BLOCKED = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
const originals = new Map<string, unknown>(BLOCKED.map((name) => [name, childProcess[name]]));
const patchable = childProcess as unknown as Record<string, unknown>;

export const UNIT_CHILD_PROCESS_ERROR = 'unit tests start no child processes';

function isUnitTest(file: string | undefined): boolean {
  return !!file && file.split(path.sep).join('/').includes('/tests/unit/');
}

beforeAll(() => {
  const file = expect.getState().testPath;
  if (!isUnitTest(file)) return;
  for (const name of BLOCKED) {
    patchable[name] = (command: unknown) => {
      throw new Error(`${UNIT_CHILD_PROCESS_ERROR}: child_process.${name}(${JSON.stringify(String(command))}) in ${path.basename(file!)}; move the test to tests/integration/`);
    };
  }
  syncBuiltinESMExports(); // named imports (`import { spawn } from 'node:child_process'`) see the change too
});

afterAll(() => {
  for (const [name, fn] of originals) patchable[name] = fn;
  syncBuiltinESMExports();
});
