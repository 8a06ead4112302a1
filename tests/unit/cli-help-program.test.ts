/**
 * `skillopt-sleep --help` is built from the command registry alone (cli/program.ts buildHelpProgram)
 * so it loads no command module: its text must be the real program's, byte for byte, at every
 * terminal width and with colours, and the registry's term and description of each command must be
 * what its module registers (a command added or reworded without its registry line fails here).
 */
import { describe, expect, it } from 'vitest';
import { Command, Help } from 'commander';
import { COMMAND_LOADERS, loadCommands } from '../../src/cli/commands/index.js';
import { buildHelpProgram, buildProgram } from '../../src/cli/program.js';

const helpAt = (program: Command, width: number, colours: boolean) => {
  program.configureOutput({ getOutHelpWidth: () => width, getOutHasColors: () => colours });
  return program.helpInformation();
};

describe("the program's help from the registry", () => {
  it('lists each command with the term and description its module registers', async () => {
    const real = buildProgram(Command, await loadCommands());
    const help = new Help();
    expect(COMMAND_LOADERS.map((c) => ({ name: c.name, term: c.term, summary: c.summary }))).toEqual(
      real.commands.map((c) => ({ name: c.name(), term: help.subcommandTerm(c), summary: help.subcommandDescription(c) })),
    );
  });

  it("is the real program's help byte for byte, at any width, with or without colours", async () => {
    const real = buildProgram(Command, await loadCommands());
    const light = buildHelpProgram(Command);
    const texts = new Set<string>();
    for (const width of [40, 80, 132]) {
      for (const colours of [false, true]) {
        const text = helpAt(light, width, colours);
        expect(text).toBe(helpAt(real, width, colours));
        texts.add(text);
      }
    }
    expect(texts.size, 'the layout follows the width').toBeGreaterThan(2);
    expect(helpAt(light, 80, false)).toMatch(/^ {2}apply \[options\] <id> +write a proposal/m);
  });
});
