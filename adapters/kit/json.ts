/**
 * Defensive readers for untyped transcript JSON: every field may be missing or of another type,
 * so parsers read through these instead of casting.
 */
import { storableEpochMs } from '../../src/core/timestamps.js';

export type Json = Record<string, unknown>;

export function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
export function obj(v: unknown): Json | undefined {
  return isObj(v) ? v : undefined;
}
export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/**
 * ISO string, epoch ms or epoch seconds → epoch ms (null when unusable). A value outside what may
 * be stored (negative, past year 9999, non-finite: `core/timestamps.ts`) is unusable too.
 */
export function toMs(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return storableEpochMs(v < 1e11 ? v * 1000 : v);
  if (typeof v === 'string' && v) return storableEpochMs(Date.parse(v));
  return null;
}
