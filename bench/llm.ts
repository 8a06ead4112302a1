/**
 * `npm run bench -- llm`: the backend wrapper (redaction, cache, budget, limiter, retry, timeout)
 * must not cost throughput. With the sim backend at 50 ms latency and concurrency 8, 200 calls
 * should take close to the ideal calls × latency ÷ concurrency; a cached re-run makes no model call;
 * and the wrapper's own overhead per call is reported against raw sim calls measured in the same run.
 */
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { ConfigSchema } from '../src/core/config.js';
import { openDb } from '../src/store/db.js';
import { createRoleBackends } from '../src/llm/registry.js';
import { createSimBackend } from '../src/llm/sim/index.js';
import { BudgetTracker } from '../src/llm/budget.js';
import type { LlmRequest } from '../src/core/protocol.js';
import type { BenchResult } from './types.js';

const req = (i: number, cacheable = false): LlmRequest<'judge_rubric'> => ({
  role: 'judge',
  operation: 'judge_rubric',
  prompt: `grade answer ${i}`,
  payload: { rubric: 'mentions the changelog and the version', intent: `release notes ${i}`, response: `v${i}: added changelog` },
  cacheable,
  temperature: 0,
});

export async function run(args: string[]): Promise<BenchResult[]> {
  const calls = Number(args.find((a) => a.startsWith('--calls='))?.slice(8) ?? 200);
  const latencyMs = 50;
  const concurrency = 8;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-llm-'));
  const db = openDb(path.join(dir, 'sleep.db'));
  try {
    const config = ConfigSchema.parse({
      roles: { target: { backend: 'sim' }, optimizer: { backend: 'sim' }, judge: { backend: 'sim' }, miner: { backend: 'sim' } },
      backends: { concurrency, sim: { latencyMs, malformedJsonRate: 0 } },
    });
    const budget = new BudgetTracker({ maxUsd: 10, maxTokens: 1e9, maxCalls: 100_000 });
    const rb = createRoleBackends(config, { db, env: { PATH: '' }, budget });
    const sim = rb.managed.judge!.inner as ReturnType<typeof createSimBackend>;

    const t0 = performance.now();
    await Promise.all(Array.from({ length: calls }, (_, i) => rb.judge.complete(req(i, true))));
    const wall = performance.now() - t0;
    const ideal = (calls * latencyMs) / concurrency;

    const before = sim.totalCalls();
    const t1 = performance.now();
    await Promise.all(Array.from({ length: calls }, (_, i) => rb.judge.complete(req(i, true))));
    const cachedWall = performance.now() - t1;
    const cachedCalls = sim.totalCalls() - before;

    // wrapper overhead: zero-latency sim, raw vs wrapped, same run
    const fast = ConfigSchema.parse({ ...config, backends: { ...config.backends, sim: { ...config.backends.sim, latencyMs: 0 } } });
    const raw = createSimBackend({ seed: 7, latencyMs: 0, role: 'judge' });
    const wrapped = createRoleBackends(fast, { db, env: { PATH: '' }, budget: new BudgetTracker({ maxUsd: 10, maxTokens: 1e9, maxCalls: 1e6 }) }).judge;
    const n = 2000;
    let t = performance.now();
    for (let i = 0; i < n; i++) await raw.complete(req(i));
    const rawUs = ((performance.now() - t) * 1000) / n;
    t = performance.now();
    for (let i = 0; i < n; i++) await wrapped.complete(req(i));
    const wrappedUs = ((performance.now() - t) * 1000) / n;

    return [
      { name: `${calls} calls, sim ${latencyMs} ms, concurrency ${concurrency}: wall / ideal`, value: wall / ideal, unit: 'ratio', target: '<= 1.3', pass: wall / ideal <= 1.3 },
      { name: 'same calls again (cacheable): model calls', value: cachedCalls, unit: 'calls', target: '0', pass: cachedCalls === 0 },
      { name: 'same calls again (cacheable): wall', value: cachedWall, unit: 'ms' },
      { name: 'wrapper overhead per call (wrapped − raw sim)', value: wrappedUs - rawUs, unit: 'µs', target: '< 500', pass: wrappedUs - rawUs < 500 },
    ];
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
