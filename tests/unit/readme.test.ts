import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listLeafKeys } from '../../src/core/config.js';
import { REPO_ROOT } from '../helpers/sandbox.js';

// The README is the contract with a newcomer: every config key and command must be documented there.
const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

describe('README', () => {
  it('documents every config key', () => {
    const missing = listLeafKeys().filter((k) => !readme.includes('`' + k.path + '`'));
    expect(missing.map((k) => k.path)).toEqual([]);
  });

  it('lists every registered command', async () => {
    const COMMANDS = await (await import('../../src/cli/commands/index.js')).loadCommands();
    const { Command } = await import('commander');
    const program = new Command();
    for (const c of COMMANDS) c.register(program);
    const names = program.commands.map((c) => c.name());
    expect(names.length).toBeGreaterThan(15);
    const missing = names.filter((n) => !new RegExp('\\| `' + n + '[ `\\]]').test(readme));
    expect(missing).toEqual([]);
  });

  it('has the two newcomer commands', () => {
    expect(readme).toContain('npm ci && npm link && skillopt-sleep start');
    expect(readme).toContain('npm ci && npm test');
  });

  it('tells the user to type `skillopt-sleep`, the command `npm link` installs, never `npx skillopt-sleep`', () => {
    expect(readme).not.toMatch(/npx skillopt-sleep/);
  });
});

describe('README and --help agree', () => {
  it('documents every option of every command and subcommand', async () => {
    const COMMANDS = await (await import('../../src/cli/commands/index.js')).loadCommands();
    const { Command } = await import('commander');
    const program = new Command();
    for (const c of COMMANDS) c.register(program);
    const missing: string[] = [];
    const visit = (cmd: InstanceType<typeof Command>, where: string) => {
      for (const o of cmd.options) {
        const flag = o.long;
        if (!flag || flag === '--help') continue;
        if (!readme.includes(flag)) missing.push(`${where} ${flag}`);
      }
      for (const sub of cmd.commands) visit(sub, `${where} ${sub.name()}`.trim());
    };
    visit(program, '');
    expect(missing).toEqual([]);
  });
});
