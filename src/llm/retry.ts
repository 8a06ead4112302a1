/**
 * Retries with exponential backoff and full jitter for transient backend failures (429, 5xx,
 * timeouts, dropped connections). Auth errors and bad requests fail at once: retrying a wrong
 * key only burns the night. A `Retry-After` the server sent wins over our own backoff.
 */
import { SleepError, isSleepError } from '../core/errors.js';

export interface RetryOptions {
  maxRetries: number;
  /** first backoff in ms (doubles each attempt) */
  baseMs?: number;
  /** cap of one backoff in ms */
  maxMs?: number;
  /** cap of a server-requested wait (Retry-After); default 120 s */
  maxRetryAfterMs?: number;
  signal?: AbortSignal;
  /** injected for tests */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  onRetry?: (info: { attempt: number; delayMs: number; error: SleepError }) => void;
}

/** Retryable = the error says so (set by the backends' error mapping). */
export function isRetryable(err: unknown): boolean {
  return isSleepError(err) && err.details?.retryable === true;
}

export function retryAfterMs(err: unknown): number | undefined {
  if (!isSleepError(err)) return undefined;
  const v = err.details?.retryAfterMs;
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** Parses a Retry-After header: delta-seconds or an HTTP date; also `retry-after-ms`. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const raw = headers.get('retry-after');
  if (raw === null || raw.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(raw)) return Math.max(0, Number(raw) * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new SleepError('ABORTED', 'operation aborted', { cause: signal.reason }));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new SleepError('ABORTED', 'operation aborted', { cause: signal?.reason }));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Delay before retry number `attempt` (1-based): full jitter over base·2^(attempt-1), Retry-After wins. */
export function backoffDelay(attempt: number, err: unknown, opts: Pick<RetryOptions, 'baseMs' | 'maxMs' | 'random' | 'maxRetryAfterMs'> = {}): number {
  const base = opts.baseMs ?? 500;
  const max = opts.maxMs ?? 30_000;
  const hinted = retryAfterMs(err);
  // a server that names a wait is obeyed, within reason (a bogus hour-long Retry-After must not stall the night)
  if (hinted !== undefined) return Math.min(hinted, opts.maxRetryAfterMs ?? 120_000);
  const ceiling = Math.min(max, base * 2 ** (attempt - 1));
  const r = (opts.random ?? Math.random)();
  return Math.round(ceiling / 2 + (r * ceiling) / 2);
}

export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const sleep = opts.sleep ?? abortableSleep;
  for (let attempt = 0; ; attempt++) {
    if (opts.signal?.aborted) throw new SleepError('ABORTED', 'operation aborted', { cause: opts.signal.reason });
    try {
      return await fn(attempt);
    } catch (err) {
      if (!isRetryable(err) || attempt >= opts.maxRetries || opts.signal?.aborted) throw err;
      const delayMs = backoffDelay(attempt + 1, err, opts);
      opts.onRetry?.({ attempt: attempt + 1, delayMs, error: err as SleepError });
      await sleep(delayMs, opts.signal);
    }
  }
}
