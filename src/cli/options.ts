/**
 * Numeric command-line options. Commander hands every value over as text; each command that takes
 * a count or a duration reads it here, so a bad value fails the same way everywhere: a usage error
 * (exit 2) that quotes what was typed, before anything runs.
 */
import { UsageError } from '../core/errors.js';

/** A whole number ≥ `min` (a count of lines, a limit of rows). */
export function wholeNumberOption(flag: string, raw: string, min: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} must be a whole number of at least ${min}, got "${raw}"`);
  return n;
}

/** A number of seconds above zero (fractions allowed). */
export function secondsOption(flag: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} must be a number of seconds above 0, got "${raw}"`);
  return n;
}
