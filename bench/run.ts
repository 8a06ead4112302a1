/**
 * `npm run bench [-- <area> ...]`: runs the benchmark areas (all by default) and prints one table.
 * Each area is a module `bench/<area>.ts` exporting `run(args): Promise<BenchResult[]>`.
 * Exit code 1 if any figure misses its target, so regressions are visible in CI logs.
 * Each area's rows are saved to bench/results/run-<area>.json with the commit, date, machine load
 * and arguments (`--no-save` skips it); `npm run bench -- report` writes docs/BENCHMARKS.md from them.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import type { BenchResult } from './types.js';
import { checkoutRoot, resultsDir, writeReport, type SavedResult } from './report.js';

const AREAS = ['harvest', 'mine', 'llm', 'replay', 'seed', 'train', 'outcomes', 'budget', 'tokens', 'daemon', 'tui', 'cli', 'team', 'team-learn'];
/** An area whose module is not named after it */
const MODULE_OF: Record<string, string> = { team: 'team-load' };

function saveRun(area: string, rows: BenchResult[], args: string[]): void {
  const root = checkoutRoot();
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout?.trim() || 'unknown';
  const dirty = spawnSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' }).stdout?.trim() ? ' (uncommitted changes)' : '';
  const saved: SavedResult = {
    $schema: 'skillopt-sleep-bench/result@1',
    area,
    title: `npm run bench -- ${[area, ...args].join(' ')}`,
    provenance: {
      how: 'run',
      commit: commit + dirty,
      date: new Date().toISOString().slice(0, 10),
      load: `${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism?.() ?? os.cpus().length} cores`,
      command: `npm run bench -- ${[area, ...args].join(' ')}`,
    },
    rows: rows.map((r) => ({ ...r, value: Number.isFinite(r.value) ? r.value : -1, ...(Number.isFinite(r.value) ? {} : { note: `not measured: ${r.unit}` }) })),
  };
  fs.mkdirSync(resultsDir(root), { recursive: true });
  fs.writeFileSync(path.join(resultsDir(root), `run-${area}.json`), JSON.stringify(saved, null, 2) + '\n');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === 'report') {
    process.stdout.write(`wrote ${writeReport()}\n`);
    return;
  }
  const save = !argv.includes('--no-save');
  const args = argv.filter((a) => a !== '--no-save');
  const chosen = args.filter((a) => AREAS.includes(a));
  const rest = args.filter((a) => !AREAS.includes(a));
  const areas = chosen.length ? chosen : AREAS;
  const here = path.dirname(fileURLToPath(import.meta.url));
  const rows: Array<BenchResult & { area: string }> = [];
  for (const area of areas) {
    const file = path.join(here, `${MODULE_OF[area] ?? area}.js`);
    if (!fs.existsSync(file)) {
      process.stderr.write(`bench: ${area}: not built (missing ${file})\n`);
      continue;
    }
    process.stderr.write(`bench: ${area}…\n`);
    const mod = (await import(pathToFileURL(file).href)) as { run(args: string[]): Promise<BenchResult[]> };
    try {
      const areaRows = await mod.run(rest);
      for (const r of areaRows) rows.push({ area, ...r });
      if (save) saveRun(area, areaRows, rest);
    } catch (err) {
      rows.push({ area, name: 'error', value: NaN, unit: String((err as Error).message), pass: false });
    }
  }
  const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(3));
  const widths = [8, 52, 12, 8, 16, 5];
  const line = (cols: string[]) => cols.map((c, i) => c.padEnd(widths[i])).join(' ');
  process.stdout.write(line(['area', 'figure', 'value', 'unit', 'target', 'ok']) + '\n');
  for (const r of rows) {
    process.stdout.write(
      line([r.area, r.name, fmt(r.value), r.unit, r.target ?? r.note ?? '', r.pass === undefined ? '' : r.pass ? 'yes' : 'NO']) + '\n',
    );
  }
  if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify(rows, null, 2));
  if (rows.some((r) => r.pass === false)) process.exitCode = 1;
}

await main();
