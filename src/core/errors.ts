/**
 * Typed errors. Every error the user can see carries a one-line message and a hint that says
 * what to do next; the CLI prints `error: <message>` and `hint: <hint>` and exits with `exitCode`.
 */
export type ErrorCode =
  | 'USAGE'
  | 'CONFIG_INVALID'
  | 'CONFIG_KEY_UNKNOWN'
  | 'DB_CORRUPT'
  | 'DB_TOO_NEW'
  | 'DB_LOCKED'
  | 'NATIVE_BINDING'
  | 'READ_ONLY'
  | 'NO_PERMISSION'
  | 'DISK_FULL'
  | 'NOT_FOUND'
  | 'BACKEND_UNAVAILABLE'
  | 'BACKEND_AUTH'
  | 'BACKEND_TIMEOUT'
  | 'BACKEND_RATE_LIMIT'
  | 'BACKEND_BAD_REPLY'
  | 'BUDGET_EXCEEDED'
  | 'LEASE_HELD'
  | 'STALE'
  | 'PATH_ESCAPE'
  | 'ABORTED'
  | 'INVALID_INPUT'
  | 'INTERNAL';

export class SleepError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly exitCode: number;
  readonly details?: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { hint?: string; exitCode?: number; cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'SleepError';
    this.code = code;
    this.hint = opts.hint;
    this.exitCode = opts.exitCode ?? (code === 'USAGE' ? 2 : 1);
    this.details = opts.details;
  }
}

export class UsageError extends SleepError {
  constructor(message: string, hint?: string) {
    super('USAGE', message, { hint, exitCode: 2 });
  }
}

export function isSleepError(err: unknown): err is SleepError {
  return err instanceof SleepError;
}

/** Throws ABORTED if the signal fired; call between units of long work. */
export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) {
    throw new SleepError('ABORTED', 'operation aborted', { cause: signal.reason });
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
