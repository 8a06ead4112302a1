import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withRetry, backoffDelay, parseRetryAfter } from '../../src/llm/retry.js';
import { Limiter } from '../../src/llm/limiter.js';
import { BudgetTracker, nextLocalTime } from '../../src/llm/budget.js';
import { completeJson, extractJson } from '../../src/llm/json.js';
import { priceFor, costUsd, estimateCall } from '../../src/llm/pricing.js';
import { SleepError } from '../../src/core/errors.js';
import { fixedClock } from '../../src/core/clock.js';
import type { Backend, LlmReply, LlmRequest } from '../../src/core/protocol.js';

const retryable = (code: 'BACKEND_RATE_LIMIT' | 'BACKEND_UNAVAILABLE', retryAfterMs?: number) =>
  new SleepError(code, 'transient', { details: { retryable: true, retryAfterMs } });

describe('retry', () => {
  it('retries transient errors with backoff and honours Retry-After', async () => {
    const delays: number[] = [];
    let calls = 0;
    const out = await withRetry(
      async () => {
        calls++;
        if (calls === 1) throw retryable('BACKEND_RATE_LIMIT', 1234);
        if (calls === 2) throw retryable('BACKEND_UNAVAILABLE');
        return 'ok';
      },
      { maxRetries: 4, baseMs: 100, random: () => 1, sleep: async (ms) => void delays.push(ms) },
    );
    expect(out).toBe('ok');
    expect(calls).toBe(3);
    expect(delays[0]).toBe(1234); // server's Retry-After
    expect(delays[1]).toBe(200); // base·2^1 with jitter at its top
  });

  it('does not retry auth errors and gives up after maxRetries', async () => {
    let calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        throw new SleepError('BACKEND_AUTH', 'bad key', { details: { retryable: false } });
      }, { maxRetries: 5, sleep: async () => {} }),
    ).rejects.toMatchObject({ code: 'BACKEND_AUTH' });
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        throw retryable('BACKEND_UNAVAILABLE');
      }, { maxRetries: 2, sleep: async () => {} }),
    ).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE' });
    expect(calls).toBe(3);
  });

  it('parses Retry-After as seconds, HTTP date and retry-after-ms; caps absurd waits', () => {
    const h = (m: Record<string, string>) => ({ get: (k: string) => m[k] ?? null });
    expect(parseRetryAfter(h({ 'retry-after': '2' }))).toBe(2000);
    expect(parseRetryAfter(h({ 'retry-after-ms': '150' }))).toBe(150);
    expect(parseRetryAfter(h({ 'retry-after': new Date(10_000).toUTCString() }), 4_000)).toBe(6000);
    expect(parseRetryAfter(h({}))).toBeUndefined();
    expect(backoffDelay(1, retryable('BACKEND_RATE_LIMIT', 3_600_000), { maxMs: 1000 })).toBe(120_000);
  });
});

describe('limiter', () => {
  it('never runs more than `limit` at once and frees aborted waiters', async () => {
    const lim = new Limiter(3);
    let active = 0;
    let peak = 0;
    const job = async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 5));
      active--;
    };
    await Promise.all(Array.from({ length: 20 }, () => lim.run(job)));
    expect(peak).toBe(3);
    const ctl = new AbortController();
    let release!: () => void;
    const blocker = Array.from({ length: 3 }, () => lim.run(() => new Promise<void>((r) => (release = r))));
    const waiting = lim.run(async () => 'never', ctl.signal);
    expect(lim.waiting).toBe(1);
    ctl.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' });
    expect(lim.waiting).toBe(0);
    release();
    void blocker;
  });
});

describe('budget', () => {
  it('refuses a call BEFORE it would exceed calls, tokens or dollars, counting calls in flight', () => {
    const b = new BudgetTracker({ maxUsd: 1, maxTokens: 10_000, maxCalls: 3 });
    const r1 = b.reserve({ tokens: 4000, usd: 0.3 });
    const r2 = b.reserve({ tokens: 4000, usd: 0.3 });
    expect(() => b.reserve({ tokens: 4000, usd: 0.3 })).toThrow(/tokens/); // in-flight reservations count
    r1.settle({ tokens: 1000, usd: 0.1 });
    r2.settle({ tokens: 1000, usd: 0.1 });
    expect(b.used()).toEqual({ usd: 0.2, tokens: 2000, calls: 2 });
    expect(() => b.check({ tokens: 100, usd: 0.9 })).toThrow(SleepError);
    try {
      b.check({ tokens: 100, usd: 0.9 });
    } catch (err) {
      expect((err as SleepError).code).toBe('BUDGET_EXCEEDED');
      expect((err as SleepError).details?.limit).toBe('usd');
    }
    b.reserve({ tokens: 100, usd: 0.9 }, { billable: false }).settle({ tokens: 100, usd: 5 }); // CLI cost is not API dollars
    expect(b.used().usd).toBeCloseTo(0.2);
    expect(() => b.check({ tokens: 1, usd: 0 })).toThrow(/calls/);
  });

  it("caps one skill's share of the night, and gives what it leaves to the next", () => {
    const b = new BudgetTracker({ maxUsd: 10, maxTokens: 1e6, maxCalls: 10 });
    b.reserve({ tokens: 10, usd: 0 }).settle({ tokens: 10, usd: 0 });
    const release = b.capShare({ usd: 10, tokens: 1e6, calls: 3 });
    for (let i = 0; i < 3; i++) b.reserve({ tokens: 10, usd: 0 }).settle({ tokens: 10, usd: 0 });
    expect(() => b.check({ tokens: 10, usd: 0 })).toThrow(/share of the night/);
    release();
    // the night's own limit is what binds again: 4 used of 10
    for (let i = 0; i < 6; i++) b.reserve({ tokens: 10, usd: 0 }).settle({ tokens: 10, usd: 0 });
    expect(() => b.check({ tokens: 10, usd: 0 })).toThrow(/budget of 10 calls/);
  });

  it('stops at the deadline and forecasts what fits', () => {
    const clock = fixedClock(1_000);
    const b = new BudgetTracker({ maxUsd: 1, maxTokens: 1e6, maxCalls: 100, deadlineMs: 5_000 }, clock);
    const f = b.forecast(Array.from({ length: 10 }, () => ({ tokens: 1000, usd: 0.15 })));
    expect(f).toMatchObject({ fits: false, limitedBy: 'usd', callsThatFit: 6, calls: 10 });
    expect(b.forecast([{ tokens: 1, usd: 0 }], { msPerCall: 10_000 }).limitedBy).toBe('deadline');
    clock.advance(4_000);
    expect(() => b.check({ tokens: 1, usd: 0 })).toThrow(/deadline/);
    const next = nextLocalTime('07:00', new Date(2026, 0, 1, 8, 0).getTime());
    expect(new Date(next).getDate()).toBe(2);
    expect(new Date(next).getHours()).toBe(7);
  });
});

describe('json replies', () => {
  it('extracts JSON from fences and prose, objects before stray arrays', () => {
    expect(extractJson('{"a":1}')).toEqual({ a: 1 });
    expect(extractJson('Sure! Here you go:\n```json\n{"a":2}\n```\nthanks')).toEqual({ a: 2 });
    expect(extractJson('I found [2] problems. {"edits": [{"x": "}"}]} hope it helps {')).toEqual({ edits: [{ x: '}' }] });
    expect(() => extractJson('no json here')).toThrow(/no JSON/);
    expect(() => extractJson('')).toThrow(/empty/);
  });

  const fakeBackend = (texts: string[]) => {
    const prompts: string[] = [];
    const backend: Backend = {
      name: 'fake',
      model: 'm',
      destination: 'local',
      complete: async (req: LlmRequest): Promise<LlmReply> => {
        prompts.push(req.prompt);
        const text = texts.shift() ?? '';
        return { text, backend: 'fake', model: 'm', tokensIn: 1, tokensOut: 1, costUsd: 0, latencyMs: 0, cached: false };
      },
    };
    return { backend, prompts };
  };
  const schema = z.object({ score: z.number().min(0).max(1) });
  const req = { role: 'judge', operation: 'judge_rubric', prompt: 'grade it', payload: { rubric: 'r', intent: 'i', response: 'x' } } as const;

  it('repairs once, telling the model what was wrong', async () => {
    const { backend, prompts } = fakeBackend(['{"score": 7}', '{"score": 0.7}']);
    const r = await completeJson(backend, { ...req }, schema);
    expect(r).toMatchObject({ value: { score: 0.7 }, repaired: true });
    expect(r.replies).toHaveLength(2);
    expect(prompts[1]).toContain('score');
    expect(prompts[1]).toContain('{"score": 7}');
  });

  it('gives up with BACKEND_BAD_REPLY after one failed repair', async () => {
    const { backend, prompts } = fakeBackend(['nope', '{"score":']);
    await expect(completeJson(backend, { ...req }, schema)).rejects.toMatchObject({ code: 'BACKEND_BAD_REPLY' });
    expect(prompts).toHaveLength(2);
  });
});

describe('pricing', () => {
  it('resolves dated snapshots by longest prefix and estimates before the call', () => {
    expect(priceFor('claude-sonnet-4-5-20250929')).toEqual({ inPerM: 3, outPerM: 15 });
    expect(priceFor('gpt-5-mini')).toEqual({ inPerM: 0.25, outPerM: 2 });
    expect(priceFor('openai/gpt-4o-mini-2024')).toEqual({ inPerM: 0.15, outPerM: 0.6 });
    expect(priceFor('llama3.1:8b')).toBeUndefined();
    expect(costUsd({ inPerM: 3, outPerM: 15 }, 1_000_000, 100_000)).toBeCloseTo(4.5);
    expect(estimateCall({ inPerM: 3, outPerM: 15 }, 4000, 1000)).toEqual({ tokens: 2000, usd: 0.018 });
  });
});
