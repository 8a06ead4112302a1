/**
 * `npm run bench -- mine`: clustering quality on the labeled corpus (pairwise precision/recall),
 * mining 10,000 sessions from scratch, and mining 100 new sessions into that store.
 * Args: `--sessions N` (default 10000). Wall-clock figures are the targets; CPU time is printed
 * next to them because the machine may be shared.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchResult } from './types.js';
import { openDb } from '../src/store/db.js';
import { defaultConfig } from '../src/core/config.js';
import { runMining } from '../src/mine/index.js';
import { generateCorpus, insertCorpus, pairwiseScores } from './mine-corpus.js';

const cpuMs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

export async function run(args: string[]): Promise<BenchResult[]> {
  const i = args.indexOf('--sessions');
  const n = i >= 0 ? Number(args[i + 1]) : 10_000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-bench-mine-'));
  try {
    const db = openDb(path.join(dir, 'sleep.db'));
    const config = defaultConfig();
    const corpus = generateCorpus({ sessions: n, seed: 11 });
    insertCorpus(db, corpus);
    const cpu0 = process.cpuUsage();
    const full = await runMining(db, config, { now: Date.UTC(2026, 10, 1) });
    const fullCpu = cpuMs(cpu0);
    const q = pairwiseScores(db, corpus);

    const more = generateCorpus({ sessions: 100, seed: 12, idPrefix: 'new', startTs: Date.UTC(2026, 10, 2) });
    insertCorpus(db, more, Date.UTC(2026, 10, 2));
    const cpu1 = process.cpuUsage();
    const inc = await runMining(db, config, { now: Date.UTC(2026, 10, 3) });
    const incCpu = cpuMs(cpu1);
    db.close();
    return [
      { name: 'pairwise precision (labeled corpus)', value: q.precision, unit: 'ratio', target: '>= 0.9', pass: q.precision >= 0.9 },
      { name: 'pairwise recall (labeled corpus)', value: q.recall, unit: 'ratio', target: '>= 0.9', pass: q.recall >= 0.9 },
      { name: 'asks mined from subagent/self sessions', value: q.leakedExcluded, unit: 'count', target: '0', pass: q.leakedExcluded === 0 },
      { name: `mine ${n} sessions (${full.prompts} asks)`, value: full.durationMs / 1000, unit: 's', target: '< 10', pass: full.durationMs < 10_000 },
      { name: '  (CPU time of that run)', value: fullCpu / 1000, unit: 's' },
      { name: `  recurring tasks found`, value: full.recurringTasks, unit: 'tasks' },
      { name: 'incremental: mine 100 new sessions into that store', value: inc.durationMs / 1000, unit: 's', target: '< 1', pass: inc.durationMs < 1000 },
      { name: '  (CPU time of that run)', value: incCpu / 1000, unit: 's' },
      { name: '  ratio incremental/full per session', value: inc.durationMs / 100 / (full.durationMs / n), unit: 'x' },
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
