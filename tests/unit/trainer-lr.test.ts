import { describe, expect, it } from 'vitest';
import { clampAutonomous, lrSeries, nextLr, pyRound, scheduledLr } from '../../src/trainer/optimizer/lr.js';

describe('pyRound (Python round-half-to-even)', () => {
  it('rounds exact halves to the even neighbour', () => {
    expect([0.5, 1.5, 2.5, 3.5, 4.5, -0.5, -1.5, -2.5].map(pyRound)).toEqual([0, 2, 2, 4, 4, 0, -2, -2]);
  });
  it('rounds non-halves to nearest, including values just below a half', () => {
    expect(pyRound(2.4999999999999996)).toBe(2);
    expect(pyRound(2.5000000000000004)).toBe(3);
    expect(pyRound(3.75)).toBe(4);
    expect(pyRound(3.25)).toBe(3);
  });
});

describe('scheduled learning rate (values printed by the Python upstream)', () => {
  it('linear 4→2 over 8 steps differs from Math.round exactly where Python rounds half to even', () => {
    expect(lrSeries('linear', 8, 4, 2)).toEqual([4, 4, 3, 3, 3, 2, 2, 2]);
  });
  it('cosine 8→2 over 6 steps', () => {
    expect(lrSeries('cosine', 6, 8, 2)).toEqual([8, 6, 5, 4, 2, 2]);
  });
  it('upstream test fixtures: cosine 10→2 and linear 10→2 over 4', () => {
    expect(lrSeries('cosine', 4, 10, 2)).toEqual([9, 6, 3, 2]);
    expect(lrSeries('linear', 4, 10, 2)).toEqual([8, 6, 4, 2]);
  });
  it('cosine 4→2 over 40 steps (SearchQA defaults) gives 4×13, 3×13, 2×14', () => {
    const s = lrSeries('cosine', 40, 4, 2);
    expect(s.filter((x) => x === 4)).toHaveLength(13);
    expect(s.filter((x) => x === 3)).toHaveLength(13);
    expect(s.filter((x) => x === 2)).toHaveLength(14);
  });
  it('more Python-verified series', () => {
    expect(lrSeries('cosine', 8, 4, 1)).toEqual([4, 4, 3, 2, 2, 1, 1, 1]);
    expect(lrSeries('linear', 6, 4, 1)).toEqual([4, 3, 2, 2, 2, 1]);
    expect(lrSeries('cosine', 12, 16, 2)).toEqual([16, 15, 14, 12, 11, 9, 7, 6, 4, 3, 2, 2]);
  });
  it('constant, T ≤ 1, plateau after T, autonomous', () => {
    expect(lrSeries('constant', 3, 5, 1)).toEqual([5, 5, 5]);
    expect(scheduledLr('cosine', 1, 1, 6, 2)).toBe(6);
    expect(scheduledLr('linear', 12, 8, 4, 2)).toBe(2);
    expect(scheduledLr('autonomous', 1, 8, 4, 2)).toBe(999);
  });
  it('explicit state advances once per step, so a resumed schedule equals an uninterrupted one', () => {
    let state = { position: 0 };
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) {
      const r = nextLr(state, 'linear', 8, 4, 2);
      seen.push(r.lr);
      state = JSON.parse(JSON.stringify(r.state)) as { position: number }; // persisted and reloaded
    }
    expect(seen).toEqual(lrSeries('linear', 8, 4, 2));
  });
});

describe('clampAutonomous', () => {
  it('clamps to [min,max] and to what is available; 0 stays 0 when min is 0 (no off-by-one)', () => {
    expect(clampAutonomous(10, 1, 4, 6)).toBe(4);
    expect(clampAutonomous(0, 1, 4, 6)).toBe(1);
    expect(clampAutonomous(0, 0, 4, 6)).toBe(0);
    expect(clampAutonomous(3, 1, 4, 2)).toBe(2);
    expect(clampAutonomous(Number.NaN, 2, 4, 6)).toBe(2);
  });
});
