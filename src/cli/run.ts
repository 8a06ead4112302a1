/**
 * Glue between commander and command bodies: builds the CliContext from global options, turns
 * errors into one line + hint (stack only with --debug), and sets exit codes (0 ok, 1 failure, 2 usage).
 */
import type { Command } from 'commander';
import { CliContext, type GlobalOptions } from './context.js';
import { printError } from '../core/error-output.js';

export type ActionBody<A extends unknown[]> = (ctx: CliContext, ...args: A) => Promise<number | void> | number | void;

/**
 * Wraps a command body. Commander passes (...positionals, options, command); we hand the body
 * the context plus exactly what commander gave, and set process.exitCode from the result.
 */
export function action<A extends unknown[]>(body: ActionBody<A>) {
  return wrap(body, true);
}

/**
 * For a body that reads neither `ctx.config` nor `ctx.db` and must start fast (`hooks nudge` runs at
 * every agent session start): the config schema and the SQLite binding are not loaded.
 */
export function lightAction<A extends unknown[]>(body: ActionBody<A>) {
  return wrap(body, false);
}

function wrap<A extends unknown[]>(body: ActionBody<A>, needsStore: boolean) {
  return async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as Command;
    const globals = cmd.optsWithGlobals() as GlobalOptions;
    const ctx = new CliContext(globals);
    try {
      if (needsStore) await ctx.loadStoreModules();
      const code = await body(ctx, ...(args.slice(0, -1) as A));
      process.exitCode = typeof code === 'number' ? code : 0;
    } catch (err) {
      process.exitCode = printError(err, { ...globals, where: ctx.paths.database });
    } finally {
      ctx.close();
    }
  };
}
