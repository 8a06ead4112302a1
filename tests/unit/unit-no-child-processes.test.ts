/** The unit folder's guard (tests/helpers/unit-no-child-processes.ts) is on: no child process can start here. */
import childProcess, { execFileSync, spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { UNIT_CHILD_PROCESS_ERROR } from '../helpers/unit-no-child-processes.js';

describe('unit tests start no child processes', () => {
  it('every child_process entry point throws, through named imports and the module object alike', () => {
    expect(() => spawnSync(process.execPath, ['--version'])).toThrow(UNIT_CHILD_PROCESS_ERROR);
    expect(() => spawn(process.execPath, ['--version'])).toThrow(/child_process\.spawn\(.*move the test to tests\/integration/);
    expect(() => execFileSync(process.execPath, ['--version'])).toThrow(UNIT_CHILD_PROCESS_ERROR);
    for (const name of ['exec', 'execSync', 'execFile', 'fork'] as const) expect(() => (childProcess[name] as (c: string) => unknown)('node'), name).toThrow(UNIT_CHILD_PROCESS_ERROR);
  });

  it('code under test that reaches for a process fails loudly instead of running it', async () => {
    const { runProcess } = await import('../../src/llm/spawn.js');
    await expect(runProcess(process.execPath, ['--version'], { cwd: process.cwd(), env: process.env })).rejects.toThrow(UNIT_CHILD_PROCESS_ERROR);
  });
});
