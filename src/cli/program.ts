/**
 * The commander program: the real one (every registered command, or just the one asked for) and the
 * program's own help built from the registry alone. `skillopt-sleep --help` lists every command; the
 * real program would load every command module and their imports to print it (~0.4 s of CPU, issue
 * 40), so the help program registers a bare command per registry entry (its name and description)
 * and shows the term the registry keeps for it (`apply [options] <id>`). Commander still lays the
 * text out (terminal width, colours), so it is the real program's help byte for byte; a test holds
 * the registry's terms and descriptions to what the modules register.
 */
import type { Command } from 'commander';
import { COMMAND_LOADERS, type CommandModule } from './commands/index.js';
import { packageVersion } from '../core/version.js';

/** `CommandClass`: commander's, loaded by the caller only when a command is to be parsed. */
export function buildProgram(CommandClass: typeof Command, commands: CommandModule[]): Command {
  const program = new CommandClass();
  program
    .name('skillopt-sleep')
    .description('A nightly sleep cycle for your coding agents: learns the tasks you repeat and trains your skills, safely.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--json', 'machine-readable output')
    .option('--debug', 'print stack traces on errors')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const c of commands) c.register(program);
  // subcommands inherit exitOverride so usage errors reach our handler
  const inherit = (cmd: Command) => {
    for (const sub of cmd.commands) {
      sub.exitOverride();
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}

/** The program as far as its own `--help` shows it, without loading a command module. */
export function buildHelpProgram(CommandClass: typeof Command): Command {
  const terms = new Map(COMMAND_LOADERS.map((c) => [c.name, c.term]));
  const bare: CommandModule[] = COMMAND_LOADERS.map((c) => ({
    register: (program) => {
      program.command(c.name).description(c.summary);
    },
  }));
  const program = buildProgram(CommandClass, bare);
  // (commander's own `help [command]` keeps its term)
  const plain = program.createHelp();
  return program.configureHelp({ ...program.configureHelp(), subcommandTerm: (cmd) => terms.get(cmd.name()) ?? plain.subcommandTerm(cmd) });
}
