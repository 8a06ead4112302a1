#!/usr/bin/env node
/**
 * skillopt-sleep: entry point. Builds the commander program from the registry and runs it.
 * Exit codes: 0 ok, 1 failure, 2 usage.
 */
import { loadCommands } from './commands/index.js';
import { packageVersion } from '../core/version.js';
import { readProgramHelp, wantsProgramHelp, writeProgramHelp } from './help-cache.js';
import { buildHelpProgram, buildProgram } from './program.js';

/** The first word that is not an option: the command the user asked for (global options take no value). */
export function commandWord(argv: string[]): string | undefined {
  return argv.slice(2).find((a) => !a.startsWith('-'));
}

export async function main(argv = process.argv): Promise<void> {
  let commander: typeof import('commander') | undefined;
  try {
    // `--version` prints one line, as commander would, without loading it or any command (issue 40)
    if (argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V')) {
      process.stdout.write(`${packageVersion()}\n`);
      return;
    }
    // the program's help lists every command: printed from the copy of its last text while the build is the same (help-cache.ts)
    const wantsHelp = wantsProgramHelp(argv);
    const keptHelp = wantsHelp ? readProgramHelp(process.env, process.stdout) : undefined;
    if (keptHelp !== undefined) {
      process.stdout.write(keptHelp);
      return;
    }
    // a command needs only its own module (commands/index.ts); the program's help none (program.ts)
    commander = await import('commander');
    const program = wantsHelp ? buildHelpProgram(commander.Command) : buildProgram(commander.Command, await loadCommands(commandWord(argv)));
    let helpText = '';
    if (wantsHelp)
      program.configureOutput({
        writeOut: (text) => {
          helpText += text;
          process.stdout.write(text);
        },
      });
    try {
      await program.parseAsync(argv);
    } finally {
      if (wantsHelp && process.exitCode === undefined) writeProgramHelp(process.env, process.stdout, helpText);
    }
  } catch (err) {
    if (commander && err instanceof commander.CommanderError) {
      // help and version exit 0; everything else commander rejects is a usage error
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    const { printError } = await import('../core/error-output.js');
    process.exitCode = printError(err, { debug: argv.includes('--debug'), json: argv.includes('--json') });
  }
}

// `skillopt-sleep sessions list | head` closes stdout early: that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

await main();
