import { describe, expect, it } from 'vitest';
import type { SplitScores } from '../../src/trainer/gate/gate.js';
import { pairedGateDecision, type SettledGate } from '../../src/trainer/gate/paired.js';
import type { LeakVerdict } from '../../src/trainer/gate/scope-leak.js';
import { verdictReason } from '../../src/trainer/gate/verdict.js';

const scores = (xs: number[]): SplitScores => {
  const perTask = xs.map((v, i) => ({ taskId: `t${i}`, hard: v, soft: v }));
  return { hard: 0, soft: xs.reduce((a, v) => a + v, 0) / xs.length, perTask };
};
const settle = (current: SplitScores, candidate: SplitScores, enabled = true, rounds = 0): SettledGate => ({
  decision: pairedGateDecision({ metric: 'soft', current, candidate, bestScore: current.soft, seed: 1, enabled }),
  rounds,
  current,
  candidate,
});
const low = scores([0.2, 0.3, 0.2, 0.3, 0.2, 0.3, 0.2, 0.3]);
const high = scores([0.8, 0.9, 0.8, 0.9, 0.8, 0.9, 0.8, 0.9]);

describe('the verdict reason', () => {
  it('names every way a candidate is accepted or turned away', () => {
    expect(verdictReason(settle(low, high), null, true)).toEqual({ kind: 'gain' });
    expect(verdictReason(settle(high, low), null, true)).toEqual({ kind: 'not_better' });
    expect(verdictReason(settle(scores([0.2, 0.3]), scores([0.8, 0.9])), null, true)).toEqual({ kind: 'few_tasks', n: 2 });
    expect(verdictReason(settle(high, low, false), null, false)).toEqual({ kind: 'gate_off' });
    // a mean gain the interval cannot tell from noise, still undecided after its extra rounds
    const noisy = settle(scores([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]), scores([1, 0, 1, 0, 1, 0, 1, 0.1]), true, 4);
    expect(noisy.decision.outcome).toBe('indecisive');
    expect(verdictReason(noisy, null, true)).toEqual({ kind: 'indecisive', rounds: 4 });
  });

  it('a leak turns an accepted candidate away, and says so', () => {
    const leak: LeakVerdict = { ci: { n: 6, meanDiff: -0.2, lo: -0.3, hi: -0.1, verdict: 'loss' }, families: ['a'], leaks: true };
    expect(verdictReason(settle(low, high), leak, true)).toEqual({ kind: 'scope_leak', leak });
    expect(verdictReason(settle(low, high), { ...leak, leaks: false }, true)).toEqual({ kind: 'gain' });
  });
});
