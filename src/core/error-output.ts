/**
 * How a failure reaches the user, for every entry point (the CLI and the daemon's own `main`): one
 * line + hint on stderr (or a JSON error object under --json), the stack only with --debug, and the
 * exit code the error carries. A system or SQLite error is named with what to do (error-diagnosis.ts);
 * anything else that is not a SleepError is reported as an internal error.
 */
import { isSleepError, SleepError } from './errors.js';
import { diagnoseError } from './error-diagnosis.js';

/** `opts.where`: the file an SQLite error is about (the store), named in the message when the error names none. */
export function printError(err: unknown, opts: { json?: boolean; debug?: boolean; where?: string }): number {
  const e = isSleepError(err)
    ? err
    : (diagnoseError(err, opts.where) ??
      new SleepError('INTERNAL', err instanceof Error ? err.message : String(err), {
        hint: 'run again with --debug for the stack trace and report it',
      }));
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
