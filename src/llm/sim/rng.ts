/**
 * Deterministic randomness for the sim backend: every draw is derived from a seed and a list of
 * parts (operation, payload hash, task, check, sample…), so the same call always behaves the same.
 */
import crypto from 'node:crypto';
import { mulberry32 } from '../../core/random.js';

/** A uniform number in [0, 1) fixed by its parts. */
export function hashUnit(...parts: Array<string | number>): number {
  const h = crypto.createHash('sha256').update(parts.map(String).join('\u0000')).digest();
  return h.readUInt32BE(0) / 0x1_0000_0000;
}

export function hashHex(...parts: Array<string | number>): string {
  return crypto.createHash('sha256').update(parts.map(String).join('\u0000')).digest('hex');
}

/** Small seeded generator (mulberry32) for sequences of draws within one call. */
export class Rng {
  private readonly draw: () => number;

  constructor(...parts: Array<string | number>) {
    this.draw = mulberry32(Math.floor(hashUnit(...parts) * 0x1_0000_0000) >>> 0);
  }

  next(): number {
    return this.draw();
  }

  int(minInclusive: number, maxInclusive: number): number {
    return minInclusive + Math.floor(this.next() * (maxInclusive - minInclusive + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** Stable JSON (sorted keys) so a payload hash does not depend on key order. */
export function stableStringify(value: unknown, omitKeys?: ReadonlySet<string>): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => stableStringify(v, omitKeys)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([k, v]) => v !== undefined && !omitKeys?.has(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v, omitKeys)}`).join(',')}}`;
}
