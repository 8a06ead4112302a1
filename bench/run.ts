/**
 * `npm run bench [-- <area> ...]`: runs the benchmark areas (all by default) and prints one table.
 * Each area is a module `bench/<area>.ts` exporting `run(args): Promise<BenchResult[]>`.
 * Exit code 1 if any figure misses its target, so regressions are visible in CI logs.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
import type { BenchResult } from './types.js';

const AREAS = ['harvest', 'mine', 'llm', 'replay', 'seed', 'train', 'daemon', 'tui', 'cli'];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const chosen = args.filter((a) => AREAS.includes(a));
  const rest = args.filter((a) => !AREAS.includes(a));
  const areas = chosen.length ? chosen : AREAS;
  const here = path.dirname(fileURLToPath(import.meta.url));
  const rows: Array<BenchResult & { area: string }> = [];
  for (const area of areas) {
    const file = path.join(here, `${area}.js`);
    if (!fs.existsSync(file)) {
      process.stderr.write(`bench: ${area}: not built (missing ${file})\n`);
      continue;
    }
    process.stderr.write(`bench: ${area}…\n`);
    const mod = (await import(pathToFileURL(file).href)) as { run(args: string[]): Promise<BenchResult[]> };
    try {
      for (const r of await mod.run(rest)) rows.push({ area, ...r });
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
      line([r.area, r.name, fmt(r.value), r.unit, r.target ?? '', r.pass === undefined ? '' : r.pass ? 'yes' : 'NO']) + '\n',
    );
  }
  if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify(rows, null, 2));
  if (rows.some((r) => r.pass === false)) process.exitCode = 1;
}

await main();
