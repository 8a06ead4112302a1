/**
 * Maps errors of the official SDKs (Anthropic, OpenAI — both expose `status` and `headers` on
 * their APIError) to typed SleepErrors that say whether a retry can help. The SDKs' own retries
 * are switched off: retry.ts owns retrying so Retry-After, budgets and the ledger see every attempt.
 */
import { SleepError, isSleepError } from '../core/errors.js';
import { parseRetryAfter } from './retry.js';

interface HttpishError {
  status?: number;
  headers?: { get(name: string): string | null };
  message?: string;
  name?: string;
}

export function mapApiError(err: unknown, backend: string, opts: { keyEnv?: string; destination?: string } = {}): SleepError {
  if (isSleepError(err)) return err;
  const e = (err ?? {}) as HttpishError;
  const name = e.name ?? (err as object | undefined)?.constructor?.name ?? '';
  const msg = e.message ?? String(err);
  const where = opts.destination ? ` (${opts.destination})` : '';
  if (name === 'APIUserAbortError' || name === 'AbortError') {
    return new SleepError('ABORTED', `${backend} call aborted`, { cause: err });
  }
  if (name === 'APIConnectionTimeoutError') {
    return new SleepError('BACKEND_TIMEOUT', `${backend}${where} timed out`, { cause: err, details: { retryable: true } });
  }
  const status = typeof e.status === 'number' ? e.status : undefined;
  if (status === undefined) {
    if (name === 'APIConnectionError') {
      return new SleepError('BACKEND_UNAVAILABLE', `${backend}${where}: cannot connect: ${msg}`, {
        cause: err,
        hint: 'check the network and the base URL in config (backends.*.baseURL)',
        details: { retryable: true },
      });
    }
    // the SDK could not make sense of the reply (e.g. a 200 with a non-JSON body from a proxy)
    return new SleepError('BACKEND_BAD_REPLY', `${backend}${where} sent an unreadable reply: ${msg}`, { cause: err, details: { retryable: true } });
  }
  const retryAfterMs = parseRetryAfter(e.headers);
  if (status === 401 || status === 403) {
    return new SleepError('BACKEND_AUTH', `${backend}${where} refused the credentials (HTTP ${status}): ${msg}`, {
      cause: err,
      hint: opts.keyEnv ? `check ${opts.keyEnv} (set it to a valid key) or pick another backend in config roles.*.backend` : 'check the backend credentials',
      details: { status, retryable: false },
    });
  }
  if (status === 429) {
    return new SleepError('BACKEND_RATE_LIMIT', `${backend}${where} rate-limited the call (HTTP 429)`, {
      cause: err,
      hint: 'lower backends.concurrency or run the night later',
      details: { status, retryable: true, retryAfterMs },
    });
  }
  if (status === 408 || status === 409 || status >= 500) {
    return new SleepError('BACKEND_UNAVAILABLE', `${backend}${where} failed (HTTP ${status}): ${msg}`, {
      cause: err,
      details: { status, retryable: true, retryAfterMs },
    });
  }
  return new SleepError('BACKEND_BAD_REPLY', `${backend}${where} rejected the request (HTTP ${status}): ${msg}`, {
    cause: err,
    hint: 'check the model name in config (roles.*.model / backends.*.model)',
    details: { status, retryable: false },
  });
}

/** host[:port] of a base URL, for the ledger's destination column. */
export function hostOf(baseURL: string | undefined, fallback: string): string {
  if (!baseURL) return fallback;
  try {
    return new URL(baseURL).host || fallback;
  } catch {
    return fallback;
  }
}

export function isLocalHost(host: string): boolean {
  const h = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || h.startsWith('127.') || h.endsWith('.localhost');
}
