/**
 * The night's failed-call share (src/night/infra-guard.ts): every call failed, or more than
 * MAX_FAILED_CALL_SHARE of them, is a reason to fail the night; fewer failures, few calls, aborts
 * and spent budgets are not.
 */
import { describe, expect, it } from 'vitest';
import { InfraGuard, MAX_FAILED_CALL_SHARE, MIN_CALLS_FOR_SHARE } from '../../src/night/infra-guard.js';
import { SleepError } from '../../src/core/errors.js';
import type { Backend, LlmReply } from '../../src/core/protocol.js';

const backend: Backend = { name: 'openai', model: 'gpt-x', destination: 'api.example', complete: async () => ({}) as LlmReply };
const http500 = new SleepError('BACKEND_UNAVAILABLE', 'openai failed (HTTP 500)', { details: { status: 500 } });

function tally(ok: number, failed: number, role = 'target'): InfraGuard {
  const g = new InfraGuard();
  for (let i = 0; i < ok; i++) g.success(role);
  for (let i = 0; i < failed; i++) g.fail(role, backend, http500);
  return g;
}

describe('failed-call share', () => {
  it('the default share is 25%', () => expect(MAX_FAILED_CALL_SHARE).toBe(0.25));

  it('every call failed: a reason even below the minimum number of calls, naming the role and the error', () => {
    const r = tally(0, 2).failedShareReason();
    expect(r).toMatch(/^every model call failed \(2 of 2: target 2\/2\); last error: openai\/gpt-x: openai failed \(HTTP 500\)/);
  });

  it('more than the share of at least MIN_CALLS_FOR_SHARE calls fails; the share itself does not', () => {
    expect(tally(6, 3).failedShareReason()).toMatch(/^3 of 9 model calls failed \(33%, more than the 25% a night allows: target 3\/9\)/);
    expect(tally(9, 3).failedShareReason()).toBeNull(); // exactly 25%
    expect(tally(MIN_CALLS_FOR_SHARE - 4, 3).failedShareReason()).toBeNull(); // 3 of 7: too few calls for a rate
    expect(tally(10, 0).failedShareReason()).toBeNull();
  });

  it('a stricter share can be asked for', () => {
    expect(tally(9, 3).failedShareReason(0.2)).toMatch(/3 of 12 model calls failed/);
  });

  it('aborts and spent budgets are not failed calls', () => {
    const g = tally(2, 0);
    g.fail('target', backend, new SleepError('ABORTED', 'stopped'));
    g.fail('target', backend, new SleepError('BUDGET_EXCEEDED', 'spent'));
    expect(g.callTally).toMatchObject({ calls: 2, failed: 0 });
    expect(g.failedShareReason()).toBeNull();
  });

  it('calls keep being counted after the fail-fast guard tripped', () => {
    const g = tally(0, 5);
    expect(g.failure).not.toBeNull();
    expect(g.callTally).toMatchObject({ calls: 5, failed: 5, byRole: { target: { calls: 5, failed: 5 } } });
  });
});
