/**
 * `npm run bench -- outcomes [--quick] [--seeds N] [--first S] [--dump FILE]`: the outcome world of
 * issue 41 (bench/train-outcomes.ts). Ten seeds by default (--quick: 3 seeds, a smaller world).
 * --dump writes the whole report (per seed, per arm, the staged skills) as JSON for a closer look.
 */
import fs from 'node:fs';
import { outcomesResults } from './train-outcomes.js';
import type { BenchResult } from './types.js';

function flag(args: string[], name: string, dflt: number): number {
  const i = args.indexOf(name);
  const v = i >= 0 ? Number(args[i + 1]) : dflt;
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} needs a positive whole number (got ${args[i + 1]})`);
  return v;
}

export async function run(args: string[]): Promise<BenchResult[]> {
  const quick = args.includes('--quick');
  const n = flag(args, '--seeds', quick ? 3 : 10);
  const first = flag(args, '--first', 1);
  const seeds = Array.from({ length: n }, (_, i) => first + i);
  const { rows, report } = await outcomesResults(seeds, quick);
  const i = args.indexOf('--dump');
  if (i >= 0 && args[i + 1]) fs.writeFileSync(args[i + 1], JSON.stringify(report, null, 2) + '\n');
  return rows;
}
