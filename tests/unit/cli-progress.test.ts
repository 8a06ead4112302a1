/** CLI progress off a TTY: silent for quick work, a line per ~10% once work has run a while. */
import { describe, expect, it } from 'vitest';
import { createCliProgress, QUIET_MS } from '../../src/cli/progress.js';

function fakeStream(isTTY: boolean): { stream: NodeJS.WriteStream; out: string[] } {
  const out: string[] = [];
  const stream = { isTTY, columns: 80, write: (s: string) => (out.push(s), true) } as unknown as NodeJS.WriteStream;
  return { stream, out };
}

describe('createCliProgress (not a TTY)', () => {
  it('prints nothing for work that finishes quickly, but still prints log lines and the summary', () => {
    let t = 0;
    const { stream, out } = fakeStream(false);
    const p = createCliProgress(stream, () => t);
    p.start('harvest', 24);
    for (let i = 0; i < 24; i++) {
      t += 10;
      p.tick();
    }
    p.log('a step line');
    p.done('24 files');
    expect(out).toEqual(['a step line\n', '24 files\n']);
  });

  it('prints a line per 10% once the work has run longer than the quiet period', () => {
    let t = 0;
    const { stream, out } = fakeStream(false);
    const p = createCliProgress(stream, () => t);
    p.start('mining sessions', 100);
    for (let i = 0; i < 100; i++) {
      t += (QUIET_MS * 2) / 100;
      p.tick();
    }
    expect(out[0]).toBe('mining sessions: 50/100 (50%)\n');
    expect(out.at(-1)).toBe('mining sessions: 100/100 (100%)\n');
    expect(out).toHaveLength(6);
  });

  it('draws a bar on a TTY from the start', () => {
    let t = 0;
    const { stream, out } = fakeStream(true);
    const p = createCliProgress(stream, () => t);
    p.start('train', 4);
    t += 100;
    p.tick();
    expect(out.join('')).toMatch(/train \[█+░+\] 1\/4/);
  });
});
