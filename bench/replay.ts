/**
 * `npm run bench -- replay`: batch replay throughput and the rollout cache.
 * The sim backend at 50 ms per call, concurrency 8, 200 tasks (rule checks, no judge calls):
 * wall time against the ideal (calls × latency ÷ concurrency), target ≤ 1.3×; then the same replay
 * again with the cache: zero model calls.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchResult } from './types.js';
import { openDb } from '../src/store/db.js';
import { createSimBackend } from '../src/llm/sim/index.js';
import { simPersonaTasks, personaIdealSkill } from './persona.js';
import { rolloutBatchWithStats } from '../src/replay/index.js';

function flag(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isFinite(v) ? v : fallback;
}

export async function run(args: string[]): Promise<BenchResult[]> {
  const latencyMs = flag(args, 'latency', 50);
  const concurrency = flag(args, 'concurrency', 8);
  const n = flag(args, 'tasks', 200);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-bench-replay-'));
  const db = openDb(path.join(dir, 'sleep.db'));
  try {
    const sim = createSimBackend({ seed: 7, latencyMs });
    const tasks = simPersonaTasks(7, n);
    const skill = { name: 'team-conventions', content: personaIdealSkill() };

    const t0 = performance.now();
    const cold = await rolloutBatchWithStats({ db, tasks, skill, target: sim, judge: sim, concurrency, useCache: true });
    const coldMs = performance.now() - t0;
    const coldCalls = sim.totalCalls();
    const idealMs = (coldCalls * latencyMs) / concurrency;

    const t1 = performance.now();
    const warm = await rolloutBatchWithStats({ db, tasks, skill, target: sim, judge: sim, concurrency, useCache: true });
    const warmMs = performance.now() - t1;
    const warmCalls = sim.totalCalls() - coldCalls;
    const same = warm.rollouts.every((r, i) => r.response === cold.rollouts[i].response && r.softScore === cold.rollouts[i].softScore);

    const ratio = coldMs / idealMs;
    return [
      { name: `replay ${n} tasks: model calls`, value: coldCalls, unit: 'calls' },
      { name: `replay wall time (${latencyMs} ms/call, conc ${concurrency})`, value: Math.round(coldMs), unit: 'ms' },
      { name: 'replay ideal (calls × latency ÷ concurrency)', value: Math.round(idealMs), unit: 'ms' },
      { name: 'replay wall ÷ ideal', value: ratio, unit: 'x', target: '<= 1.3', pass: ratio <= 1.3 },
      { name: 'cached re-run: model calls', value: warmCalls, unit: 'calls', target: '0', pass: warmCalls === 0 && warm.stats.cacheHits === n },
      { name: 'cached re-run: wall time', value: Math.round(warmMs), unit: 'ms' },
      { name: 'cached re-run: identical rollouts', value: same ? 1 : 0, unit: 'bool', target: '1', pass: same },
    ];
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
