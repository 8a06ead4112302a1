/**
 * The range a stored timestamp may take. Transcripts are untrusted input: a `timestamp` of 1e20,
 * -5 or NaN must not reach an INTEGER column (SQLite refuses a REAL that does not fit, and the
 * whole write would fail). What this does NOT do is guess units: whether a number is seconds or
 * milliseconds is the reader's business (`adapters/kit/json.ts toMs`); here a value is either a
 * storable epoch-ms instant or nothing.
 */

/** The latest instant a stored timestamp may name: 9999-12-31T23:59:59.999Z. */
export const MAX_EPOCH_MS = 253_402_300_799_999;

/**
 * `v` as a storable epoch-ms timestamp: a finite number in [0, MAX_EPOCH_MS] (1970 up to the end
 * of year 9999), rounded to a whole millisecond. Anything else (not a number, non-finite,
 * negative, past year 9999) is null: the instant is unknown, which every reader already handles.
 */
export function storableEpochMs(v: unknown): number | null {
  if (typeof v !== 'number' || !Number.isFinite(v)) return null;
  const ms = Math.round(v);
  return ms >= 0 && ms <= MAX_EPOCH_MS ? ms : null;
}
