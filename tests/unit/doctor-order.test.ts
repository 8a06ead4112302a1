/**
 * `doctor` prints its lines in one fixed order (node, config, database, then the modules' checks
 * in the order of DOCTOR_SECTIONS: transcripts → backends → daemon), whatever order the commands
 * are registered in. Runs the doctor command in this process, against a sandboxed env.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Command } from 'commander';
import { loadCommands } from '../../src/cli/commands/index.js';
import { DOCTOR_SECTIONS } from '../../src/cli/commands/doctor.js';
import { formatDoctorChecks, runDoctorSections, type DoctorCheck } from '../../src/core/doctor.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';

type Check = { name: string; status: string };

const COMMANDS = await loadCommands();

async function doctorNames(commands: typeof COMMANDS): Promise<string[]> {
  const program = new Command().option('--json').exitOverride();
  for (const c of commands) c.register(program);
  const chunks: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    await program.parseAsync(['node', 'skillopt-sleep', 'doctor', '--json']);
  } finally {
    write.mockRestore();
  }
  return (JSON.parse(chunks.join('')) as { checks: Check[] }).checks.map((c) => c.name);
}

/** The group a check line belongs to, so the order can be stated without machine-specific lines. */
const group = (name: string) =>
  name.startsWith('transcripts:') || name.startsWith('store:') || name.startsWith('retention:') || name === 'transcript files' ? 'transcripts' : name.startsWith('backend ') || name.startsWith('role ') || name.startsWith('model ') || name.startsWith('replay ') ? 'backends' : name.startsWith('daemon') ? 'daemon' : name;

describe('doctor order', () => {
  let sb: Sandbox;
  let savedEnv: NodeJS.ProcessEnv;
  let savedExit: typeof process.exitCode;
  beforeEach(() => {
    sb = makeSandbox();
    savedEnv = process.env;
    savedExit = process.exitCode;
    process.env = { ...sb.env };
  });
  afterEach(() => {
    process.env = savedEnv;
    process.exitCode = savedExit;
    sb.cleanup();
  });

  it('is node, config, database, transcripts, backends, daemon — in any command registration order', async () => {
    const forward = await doctorNames(COMMANDS);
    const backward = await doctorNames([...COMMANDS].reverse());
    expect(backward).toEqual(forward);
    const groups = forward.map(group).filter((g, i, all) => g !== all[i - 1]);
    expect(groups).toEqual(['node', 'config', 'database', 'transcripts', 'backends', 'daemon']);
    expect(forward.filter((n) => n.startsWith('role '))).toEqual(['role target', 'role optimizer', 'role judge', 'role miner']);
    expect(DOCTOR_SECTIONS.map((s) => s.name)).toEqual(['transcripts', 'backends', 'daemon', 'team']);
  });

  it('a section that throws becomes one warning in its place; the sections after it still run', async () => {
    const ok = (name: string): DoctorCheck[] => [{ name, status: 'ok', detail: 'fine' }];
    const checks = await runDoctorSections(
      [
        { name: 'first', checks: () => ok('a') },
        {
          name: 'broken',
          checks: () => {
            throw new Error('disk on fire');
          },
        },
        { name: 'last', checks: async () => ok('z') },
      ],
      {},
    );
    expect(checks.map((c) => [c.name, c.status])).toEqual([
      ['a', 'ok'],
      ['broken', 'warn'],
      ['z', 'ok'],
    ]);
    expect(checks[1].detail).toContain('disk on fire');
    const lines = formatDoctorChecks([{ name: 'x', status: 'fail', detail: 'bad', fix: 'do this' }]);
    expect(lines).toEqual([`FAIL  ${'x'.padEnd(16)} bad\n      ${''.padEnd(16)} → do this`]);
  });
});
