/**
 * Driving an Ink app in tests without fixed sleeps: under load, a fixed 25 ms pause after a key is
 * sometimes shorter than React's passive effects or a service promise, and a frame read too early
 * fails a test that is right. `press` waits for the app to go quiet after each key; `see` waits
 * (up to a generous limit) for a frame to show what the test expects before asserting it.
 */
import { expect } from 'vitest';
import type { render } from 'ink-testing-library';

type Rendered = ReturnType<typeof render>;

export const KEYS: Record<string, string> = { enter: '\r', esc: '\u001B', tab: '\t', down: '\u001B[B', up: '\u001B[A', space: ' ' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const frame = (r: Rendered): string => r.lastFrame() ?? '';

/** Returns once no new frame was drawn for `quietMs` (or after `maxMs`). */
export async function settle(r: Rendered, quietMs = 40, maxMs = 3000): Promise<void> {
  const t0 = Date.now();
  let count = r.frames.length;
  let changed = Date.now();
  while (Date.now() - t0 < maxMs) {
    await sleep(5);
    if (r.frames.length !== count) {
      count = r.frames.length;
      changed = Date.now();
    } else if (Date.now() - changed >= quietMs) return;
  }
}

export async function press(r: Rendered, ...keys: string[]): Promise<void> {
  for (const k of keys) {
    r.stdin.write(KEYS[k] ?? k);
    await settle(r);
  }
}

/** Waits until the last frame contains `want` (a string or a pattern), then asserts it. */
export async function see(r: Rendered, want: string | RegExp, maxMs = 5000): Promise<void> {
  const t0 = Date.now();
  const ok = () => (typeof want === 'string' ? frame(r).includes(want) : want.test(frame(r)));
  while (!ok() && Date.now() - t0 < maxMs) await sleep(10);
  if (typeof want === 'string') expect(frame(r)).toContain(want);
  else expect(frame(r)).toMatch(want);
}

/** Waits until `check` holds (a recorder filled by a service promise), then lets it assert. */
export async function eventually(check: () => void, maxMs = 5000): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    try {
      check();
      return;
    } catch (err) {
      if (Date.now() - t0 > maxMs) throw err;
      await sleep(10);
    }
  }
}
