/** Statistics the learning benches share: seed means, a paired bootstrap over seeds, and how a CI is printed. */
import { mulberry32 } from '../src/core/random.js';

export const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

export interface PairedCI {
  diff: number;
  lo: number;
  hi: number;
}

/** Paired bootstrap over seeds: mean difference a − b and its 95% interval. */
export function pairedBootstrap(a: number[], b: number[], resamples = 5000, seed = 1): PairedCI {
  const d = a.map((x, i) => x - b[i]);
  const rnd = mulberry32(seed);
  const means: number[] = [];
  for (let k = 0; k < resamples; k++) {
    let s = 0;
    for (let i = 0; i < d.length; i++) s += d[Math.floor(rnd() * d.length)];
    means.push(s / d.length);
  }
  means.sort((x, y) => x - y);
  return { diff: mean(d), lo: means[Math.floor(0.025 * resamples)], hi: means[Math.ceil(0.975 * resamples) - 1] };
}

export const f3 = (x: number): string => x.toFixed(3);

/** "+0.120 [0.086, 0.150]" */
export const ci = (c: PairedCI): string => `${c.diff >= 0 ? '+' : ''}${f3(c.diff)} [${f3(c.lo)}, ${f3(c.hi)}]`;
