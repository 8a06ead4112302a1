import { describe, expect, it } from 'vitest';
import { gateDecision, metricScore, type SplitScores } from '../../src/trainer/gate/gate.js';

const scores = (per: Array<[string, number, number]>): SplitScores => ({
  hard: per.reduce((a, [, h]) => a + h, 0) / per.length,
  soft: per.reduce((a, [, , s]) => a + s, 0) / per.length,
  perTask: per.map(([taskId, hard, soft]) => ({ taskId, hard, soft })),
});

describe('gateDecision', () => {
  const current = scores([
    ['a', 1, 1],
    ['b', 0, 0.5],
    ['c', 0, 0.2],
  ]);
  it('accepts a strict improvement and marks a new best', () => {
    const cand = scores([
      ['a', 1, 1],
      ['b', 1, 1],
      ['c', 0, 0.2],
    ]);
    const d = gateDecision({ metric: 'hard', current, candidate: cand, bestScore: 1 / 3 });
    expect(d.action).toBe('accept_new_best');
    expect(d.accepted).toBe(true);
  });
  it('rejects ties, including float-noise ties', () => {
    expect(gateDecision({ metric: 'soft', current, candidate: current, bestScore: current.soft }).action).toBe('reject');
    const a = { hard: 0.3, soft: 0.3, perTask: [] };
    const b = { hard: 0.1 + 0.2, soft: 0.1 + 0.2, perTask: [] }; // 0.30000000000000004
    const d = gateDecision({ metric: 'hard', current: a, candidate: b, bestScore: 0.3 });
    expect(d.action).toBe('reject');
    expect(d.reason).toMatch(/tie/);
  });
  it('rejects a drop', () => {
    const cand = scores([
      ['a', 0, 0],
      ['b', 0, 0.5],
      ['c', 0, 0.2],
    ]);
    expect(gateDecision({ metric: 'mixed', current, candidate: cand, bestScore: 0 }).action).toBe('reject');
  });
  it('accept (not new best) when above current but tied with best', () => {
    const cand = scores([
      ['a', 1, 1],
      ['b', 1, 1],
      ['c', 0, 0.2],
    ]);
    const d = gateDecision({ metric: 'hard', current, candidate: cand, bestScore: 2 / 3 });
    expect(d.action).toBe('accept');
    expect(d.newBest).toBe(false);
  });
  it('no-regression blocks a better mean that hurts one task', () => {
    const cand = scores([
      ['a', 0, 0.9],
      ['b', 1, 1],
      ['c', 1, 1],
    ]);
    expect(gateDecision({ metric: 'soft', current, candidate: cand, bestScore: 0 }).action).toBe('accept_new_best');
    const d = gateDecision({ metric: 'soft', current, candidate: cand, bestScore: 0, noRegression: true });
    expect(d.action).toBe('reject');
    expect(d.regressions).toEqual(['a']);
  });
  it('no-regression fails closed on a missing or non-finite task score', () => {
    const cand: SplitScores = { hard: 1, soft: 1, perTask: [{ taskId: 'a', hard: 1, soft: 1 }, { taskId: 'b', hard: 1, soft: Number.NaN }] };
    const d = gateDecision({ metric: 'hard', current, candidate: cand, bestScore: 0, noRegression: true });
    expect(d.action).toBe('reject');
    expect(d.regressions.sort()).toEqual(['c']);
    const d2 = gateDecision({ metric: 'soft', current, candidate: { ...cand, soft: 0.9 }, bestScore: 0, noRegression: true });
    expect(d2.regressions.sort()).toEqual(['b', 'c']);
  });
  it('margin: the gain must exceed it', () => {
    const cand = { hard: 0.45, soft: 0.45, perTask: [] };
    const cur = { hard: 0.4, soft: 0.4, perTask: [] };
    expect(gateDecision({ metric: 'hard', current: cur, candidate: cand, bestScore: 0.4, margin: 0.1 }).action).toBe('reject');
    expect(gateDecision({ metric: 'hard', current: cur, candidate: cand, bestScore: 0.4, margin: 0.01 }).action).toBe('accept_new_best');
  });
  it('a non-finite candidate score is rejected', () => {
    expect(gateDecision({ metric: 'hard', current, candidate: { hard: Number.NaN, soft: 0, perTask: [] }, bestScore: 0 }).action).toBe('reject');
  });
  it('disabled gate force-accepts and still tracks best strictly', () => {
    const worse = { hard: 0, soft: 0, perTask: [] };
    const d = gateDecision({ metric: 'hard', current, candidate: worse, bestScore: 0.5, enabled: false });
    expect(d.action).toBe('force_accept');
    expect(d.newBest).toBe(false);
  });
  it('mixed metric = (1-w)·hard + w·soft with w clamped', () => {
    expect(metricScore(1, 0, 'mixed')).toBe(0.5);
    expect(metricScore(1, 0, 'mixed', 0.25)).toBe(0.75);
    expect(metricScore(1, 0, 'mixed', 7)).toBe(0);
  });
});
