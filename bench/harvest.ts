/**
 * Harvest benchmark (issue 3): on a generated corpus (default 500 MB in 10,000 files across the
 * three agents; `SOS_BENCH_HARVEST_MB` / `SOS_BENCH_HARVEST_FILES` or `--mb N --files N` for a
 * quicker run), measured in the same run against a baseline that only reads the same files line by
 * line and JSON.parses each line on one thread:
 *  - cold harvest throughput ratio vs the baseline (target ≥ 0.9×); best of two runs each
 *  - cold harvest CPU (user+sys, every thread) over the baseline's, same run (target ≤ 2×: issue 40;
 *    CPU time depends less on the neighbours on a shared machine than wall time does)
 *  - second harvest of the unchanged corpus as a fraction of the cold time (target < 2%), two ways:
 *    in the daemon (a rescan on its long-lived connection: the median of 7 passes after its first)
 *    and as a fresh `harvest` process (best of two; for scale, a bare statSync loop over the files)
 *  - peak RSS of the harvesting process (target < 300 MB)
 *  - append one line to one file and re-harvest (target < 0.5 s)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './types.js';
import { buildCorpus } from './harvest-corpus.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

function argNum(args: string[], name: string, envName: string, dflt: number): number {
  const i = args.indexOf(`--${name}`);
  const raw = i >= 0 ? args[i + 1] : process.env[envName];
  const n = Number(raw);
  return raw !== undefined && Number.isFinite(n) && n > 0 ? n : dflt;
}

/** The baseline: read each file in 1 MB chunks, split lines, JSON.parse every line. One thread. */
export function baselineParse(files: string[]): { ms: number; cpuMs: number; lines: number } {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let lines = 0;
  const buf = Buffer.allocUnsafe(1 << 20);
  for (const f of files) {
    const fd = fs.openSync(f, 'r');
    let carry = '';
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      const parts = (carry + buf.toString('utf8', 0, n)).split('\n');
      carry = parts.pop() ?? '';
      for (const l of parts) {
        if (!l) continue;
        try {
          JSON.parse(l);
        } catch {
          /* count nothing: the baseline only parses */
        }
        lines++;
      }
    }
    if (carry) {
      try {
        JSON.parse(carry);
      } catch {
        /* ignore */
      }
      lines++;
    }
    fs.closeSync(fd);
  }
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, lines };
}

/**
 * The floor of an unchanged pass: one `fs.statSync` per file, nothing else (no listing, no store).
 * Timed in a fresh process, like the harvest runs, so both pay the same cold start.
 */
function bareStatLoopMs(files: string[]): number {
  const script = `const fs = require('fs'); const files = JSON.parse(require('fs').readFileSync(0, 'utf8'));
    const t0 = performance.now(); let n = 0;
    for (const f of files) { const st = fs.statSync(f, { throwIfNoEntry: false }); if (st) n += st.size > 0 ? 1 : 0; }
    console.log(performance.now() - t0);`;
  const runs = [0, 1].map(() => Number(spawnSync(process.execPath, ['-e', script], { input: JSON.stringify(files), encoding: 'utf8' }).stdout.trim()));
  return Math.min(...runs);
}

interface ChildOut {
  durationMs: number;
  cpuMs: number;
  passMs: number[];
  changedInLaterPasses: number;
  maxRssMb: number;
  summary: { filesChanged: number; events: number; errors: unknown[]; workers: number };
}

function harvestInChild(db: string, env: NodeJS.ProcessEnv, stateDir: string, passes = 1): ChildOut {
  const r = spawnSync(process.execPath, [path.join(HERE, 'harvest-child.js'), db, JSON.stringify(env), stateDir, String(passes)], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`harvest child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as ChildOut;
}

export async function run(args: string[]): Promise<BenchResult[]> {
  const mb = argNum(args, 'mb', 'SOS_BENCH_HARVEST_MB', 500);
  const fileCount = argNum(args, 'files', 'SOS_BENCH_HARVEST_FILES', mb >= 500 ? 10_000 : Math.max(200, Math.round(mb * 20)));
  const log = (s: string) => process.stderr.write(`  harvest: ${s}\n`);
  const corpus = buildCorpus(mb, fileCount, log);
  log(`corpus: ${corpus.files.length} files, ${(corpus.bytes / 1e6).toFixed(0)} MB`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-bench-harvest-db-'));
  try {
    // warm the page cache for both contenders, then take the best of two baseline runs
    baselineParse(corpus.files);
    const bases = [baselineParse(corpus.files), baselineParse(corpus.files)];
    const base = Math.min(...bases.map((b) => b.ms));
    const baseCpu = Math.min(...bases.map((b) => b.cpuMs));
    // the harvest gets the same best-of-two as the baseline (each cold run into a fresh store):
    // on a shared machine one unlucky run says more about the neighbours than about the harvest
    const colds: ChildOut[] = [];
    let db = '';
    let stateDir = '';
    for (let i = 0; i < 2; i++) {
      db = path.join(work, `sleep-${i}.db`);
      stateDir = path.join(work, `state-${i}`);
      colds.push(harvestInChild(db, corpus.env, stateDir));
    }
    const cold = colds.reduce((a, b) => (b.durationMs < a.durationMs ? b : a));
    const coldCpu = Math.min(...colds.map((c) => c.cpuMs));
    const loadAtCold = os.loadavg()[0];
    log(`CPU time (user+sys): baseline ${baseCpu.toFixed(0)} ms, cold harvest ${colds.map((c) => c.cpuMs.toFixed(0)).join(' / ')} ms (every thread)`);
    log(
      `baseline ${base.toFixed(0)} ms, cold harvest ${colds.map((c) => c.durationMs.toFixed(0)).join(' / ')} ms (${cold.summary.events} events, ${cold.summary.errors.length} errors)`,
    );
    const warms = [harvestInChild(db, corpus.env, stateDir), harvestInChild(db, corpus.env, stateDir)];
    const warm = warms.reduce((a, b) => (b.durationMs < a.durationMs ? b : a));
    const statFloor = bareStatLoopMs(corpus.files);
    log(`unchanged re-harvest, fresh process ${warms.map((w) => w.durationMs.toFixed(0)).join(' / ')} ms (a bare statSync of every file: ${statFloor.toFixed(0)} ms)`);
    // the daemon: its start-up pass, then rescans on the same connection (a wake, a watcher overflow)
    const daemon = harvestInChild(db, corpus.env, stateDir, 8);
    const rescans = daemon.passMs.slice(1).sort((a, b) => a - b);
    const rescan = rescans[rescans.length >> 1];
    log(`unchanged rescans in one process ${daemon.passMs.map((m) => m.toFixed(0)).join(' / ')} ms (the first is its start-up pass)`);
    // append one line to one session file (a Claude one: append-mode, the common case)
    const target = corpus.files.find((f) => f.includes(`${path.sep}claude${path.sep}`)) ?? corpus.files[0];
    const original = fs.readFileSync(target);
    fs.appendFileSync(
      target,
      JSON.stringify({ type: 'user', uuid: `bench-${Date.now()}`, timestamp: new Date().toISOString(), cwd: '/home/dana/src/ledgerline', message: { role: 'user', content: 'one more thing' } }) + '\n',
    );
    let append: ChildOut;
    try {
      append = harvestInChild(db, corpus.env, stateDir);
    } finally {
      fs.writeFileSync(target, original); // keep the cached corpus pristine
    }
    const ratio = base / cold.durationMs;
    const warmFrac = warm.durationMs / cold.durationMs;
    return [
      { name: `corpus size (${corpus.files.length} files)`, value: Math.round(corpus.bytes / 1e6), unit: 'MB' },
      { name: 'baseline: read lines + JSON.parse (1 thread)', value: Math.round(corpus.bytes / 1e6 / (base / 1000)), unit: 'MB/s' },
      { name: `cold harvest (${cold.summary.workers} worker threads, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)})`, value: Math.round(corpus.bytes / 1e6 / (cold.durationMs / 1000)), unit: 'MB/s' },
      { name: 'cold harvest throughput vs baseline', value: ratio, unit: 'x', target: '>= 0.9', pass: ratio >= 0.9 },
      // CPU time does not depend on the neighbours as much as wall time: the cost per MB, all threads
      {
        name: `cold harvest CPU / bare read+parse CPU (user+sys, all threads, same run; ${(coldCpu / 1000).toFixed(2)} s / ${(baseCpu / 1000).toFixed(2)} s, load ${loadAtCold.toFixed(1)})`,
        value: coldCpu / baseCpu,
        unit: 'x',
        target: '<= 2',
        pass: coldCpu / baseCpu <= 2,
      },
      {
        name: 'second harvest (unchanged) / cold: daemon rescan, median',
        value: (rescan / cold.durationMs) * 100,
        unit: '%',
        target: '< 2',
        pass: rescan / cold.durationMs < 0.02 && daemon.summary.filesChanged === 0 && daemon.changedInLaterPasses === 0,
      },
      { name: '  the first rescan after start-up alone / cold', value: (daemon.passMs[1] / cold.durationMs) * 100, unit: '%' },
      { name: 'second harvest (unchanged) / cold: fresh `harvest` process', value: warmFrac * 100, unit: '%', target: '< 2', pass: warmFrac < 0.02 && warm.summary.filesChanged === 0 },
      { name: `  for scale: one bare statSync per file (fresh process)`, value: (statFloor / cold.durationMs) * 100, unit: '%' },
      { name: 'peak RSS of cold harvest', value: Math.round(Math.max(...colds.map((c) => c.maxRssMb))), unit: 'MB', target: '< 300', pass: colds.every((c) => c.maxRssMb < 300) },
      { name: `append 1 line to 1 of ${corpus.files.length} files, re-harvest`, value: append.durationMs / 1000, unit: 's', target: '< 0.5', pass: append.durationMs < 500 && append.summary.filesChanged === 1 },
    ];
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
