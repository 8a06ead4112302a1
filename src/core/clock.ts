/** Injected clock so tests can run a fake one. */
export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

export function fixedClock(start: number): Clock & { advance(ms: number): void } {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

/** Parses durations such as `72h`, `30m`, `7d`, `90s` into milliseconds. */
export function parseDuration(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$/i.exec(text);
  if (!m) throw new Error(`invalid duration "${text}" (use e.g. 30m, 72h, 7d)`);
  const n = Number(m[1]);
  const unit = m[2].toLowerCase();
  const mult: Record<string, number> = { ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 };
  return Math.round(n * mult[unit]);
}
