/**
 * How a failure reaches the user, for every entry point (the CLI and the daemon's own `main`): one
 * line + hint on stderr (or a JSON error object under --json), the stack only with --debug, and the
 * exit code the error carries. Anything that is not a SleepError is reported as an internal error.
 */
import { isSleepError, SleepError } from './errors.js';

export function printError(err: unknown, opts: { json?: boolean; debug?: boolean }): number {
  const e = isSleepError(err)
    ? err
    : new SleepError('INTERNAL', err instanceof Error ? err.message : String(err), {
        hint: 'run again with --debug for the stack trace and report it',
      });
  if (opts.json) {
    // tagged like every --json output (docs/json/error.md)
    process.stdout.write(JSON.stringify({ $schema: 'skillopt-sleep/error@1', ok: false, error: { code: e.code, message: e.message, hint: e.hint ?? null } }, null, 2) + '\n');
  } else {
    process.stderr.write(`error: ${e.message}\n`);
    if (e.hint) process.stderr.write(`hint: ${e.hint}\n`);
  }
  if (opts.debug && err instanceof Error && err.stack) process.stderr.write(err.stack + '\n');
  return e.exitCode;
}
