/**
 * `npm run bench -- train`: the gated optimizer on the sim persona (tasks that need several distinct
 * rules), starting from an empty skill, averaged over seeds. Figures:
 *  - clean optimizer: held-out test score baseline → best after ≤ 3 epochs (target ≥ 0.8);
 *  - noisy optimizer (20% harmful + 20% irrelevant edits): the gate never accepts a candidate that
 *    lowers validation (checked on every step of every run), and the same runs with the gate
 *    disabled end lower (side by side);
 *  - ablations on the noisy runs: no learning-rate cap, no rejected-edit buffer.
 * Flags: --seeds N (default 5), --tasks N (default 40).
 */
import type { BenchResult } from './types.js';
import { runExperiment, type ExperimentOutcome } from './train-experiment.js';
import type { TrainOptions } from '../src/trainer/train.js';

function flag(args: string[], name: string, dflt: number): number {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : dflt;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

export const BASE_OPTIONS: Partial<TrainOptions> = { epochs: 3, batchSize: 5, lr: 4, minLr: 2, lrSchedule: 'cosine', gateMetric: 'soft' };

export interface Arm {
  name: string;
  noisy: boolean;
  options: Partial<TrainOptions>;
}

export const ARMS: Arm[] = [
  { name: 'clean, gated', noisy: false, options: {} },
  { name: 'noisy, gated (full system)', noisy: true, options: {} },
  { name: 'noisy, gate disabled', noisy: true, options: { gateEnabled: false } },
  { name: 'noisy, gated, no learning-rate cap', noisy: true, options: { lrCap: false } },
  { name: 'noisy, gated, no rejected-edit buffer', noisy: true, options: { useBuffer: false } },
];

export interface ArmResult {
  arm: Arm;
  runs: ExperimentOutcome[];
  baselineTest: number;
  /** what the arm ships: best-on-val with the gate, the final skill without it */
  shippedTest: number;
  bestTest: number;
  acceptedDrops: number;
  steps: number;
  calls: number;
}

export async function runArms(seeds: number[], tasks: number, arms = ARMS): Promise<ArmResult[]> {
  const out: ArmResult[] = [];
  for (const arm of arms) {
    const runs: ExperimentOutcome[] = [];
    for (const seed of seeds) {
      runs.push(
        await runExperiment({
          seed,
          tasks,
          harmfulEditRate: arm.noisy ? 0.2 : 0,
          irrelevantEditRate: arm.noisy ? 0.2 : 0,
          malformedJsonRate: 0.05,
          options: { ...BASE_OPTIONS, ...arm.options },
        }),
      );
    }
    const gated = arm.options.gateEnabled !== false;
    out.push({
      arm,
      runs,
      baselineTest: mean(runs.map((r) => r.result.baseline.test ?? 0)),
      shippedTest: mean(runs.map((r) => (gated ? (r.result.best.test ?? 0) : (r.finalTest ?? 0)))),
      bestTest: mean(runs.map((r) => r.result.best.test ?? 0)),
      acceptedDrops: runs.reduce((a, r) => a + r.acceptedDrops.length, 0),
      steps: runs.reduce((a, r) => a + r.result.steps.length, 0),
      calls: mean(runs.map((r) => r.optimizerCalls + r.targetCalls)),
    });
  }
  return out;
}

export async function run(args: string[]): Promise<BenchResult[]> {
  const nSeeds = flag(args, '--seeds', 5);
  const tasks = flag(args, '--tasks', 40);
  const seeds = Array.from({ length: nSeeds }, (_, i) => i + 1);
  const t0 = Date.now();
  const arms = await runArms(seeds, tasks);
  const by = (name: string) => arms.find((a) => a.arm.name === name)!;
  const clean = by('clean, gated');
  const gated = by('noisy, gated (full system)');
  const ungated = by('noisy, gate disabled');

  const w = 40;
  process.stderr.write(`\ntrain bench: sim persona, ${tasks} tasks, seeds ${seeds.join(',')}, ${BASE_OPTIONS.epochs} epochs (mean test score, soft metric)\n`);
  process.stderr.write(`${'arm'.padEnd(w)} ${'baseline'.padStart(8)} ${'shipped'.padStart(8)} ${'best'.padStart(8)} ${'bad accepts'.padStart(12)} ${'calls/run'.padStart(10)}\n`);
  for (const a of arms) {
    process.stderr.write(
      `${a.arm.name.padEnd(w)} ${a.baselineTest.toFixed(3).padStart(8)} ${a.shippedTest.toFixed(3).padStart(8)} ${a.bestTest.toFixed(3).padStart(8)} ${String(a.arm.options.gateEnabled === false ? '-' : a.acceptedDrops).padStart(12)} ${a.calls.toFixed(0).padStart(10)}\n`,
    );
  }
  process.stderr.write(`per seed (noisy): gated ${gated.runs.map((r) => (r.result.best.test ?? 0).toFixed(3)).join(' ')} | gate disabled ${ungated.runs.map((r) => (r.finalTest ?? 0).toFixed(3)).join(' ')}\n\n`);

  return [
    { name: 'clean: test score, empty-skill baseline', value: clean.baselineTest, unit: 'score' },
    { name: 'clean: test score after ≤3 epochs (mean over seeds)', value: clean.shippedTest, unit: 'score', target: '≥ 0.8', pass: clean.shippedTest >= 0.8 },
    { name: 'clean: worst seed test score', value: Math.min(...clean.runs.map((r) => r.result.best.test ?? 0)), unit: 'score' },
    { name: 'noisy: gated steps accepted while val dropped', value: gated.acceptedDrops, unit: 'steps', target: `0 of ${gated.steps}`, pass: gated.acceptedDrops === 0 },
    { name: 'noisy: test, gated (full system)', value: gated.shippedTest, unit: 'score' },
    { name: 'noisy: test, gate disabled (final skill)', value: ungated.shippedTest, unit: 'score', target: '< gated', pass: ungated.shippedTest < gated.shippedTest },
    { name: 'noisy: test, gated, no learning-rate cap', value: by('noisy, gated, no learning-rate cap').shippedTest, unit: 'score' },
    { name: 'noisy: test, gated, no rejected-edit buffer', value: by('noisy, gated, no rejected-edit buffer').shippedTest, unit: 'score' },
    { name: 'wall time, all arms', value: (Date.now() - t0) / 1000, unit: 's' },
  ];
}
