import { it } from 'vitest';
import { runExperiment } from '../../bench/train-experiment.js';

it('scratch', async () => {
  const n = Number(process.env.N ?? 40), bs = Number(process.env.BS ?? 10), minLr = Number(process.env.MINLR ?? 1), lr = Number(process.env.LR ?? 4);
  for (const [h, i, gate] of (process.env.CLEAN ? [[0, 0, true]] : [[0.2, 0.2, true], [0.2, 0.2, false]]) as Array<[number, number, boolean]>) {
    const o = await runExperiment({ seed: Number(process.env.SEED ?? 3), tasks: n, harmfulEditRate: h, irrelevantEditRate: i, malformedJsonRate: 0.05, options: { epochs: 3, batchSize: bs, lr, minLr, gateMetric: 'soft', gateEnabled: gate } });
    console.log('SUMMARY', JSON.stringify({h, gate, base: o.result.baseline, best: o.result.best, finalTest: o.finalTest, drops: o.acceptedDrops, calls: [o.optimizerCalls, o.targetCalls]}));
    console.log(o.result.steps.map((s) => s.line).join('\n'));
    console.log(o.result.epochs.map((e) => JSON.stringify(e)).join('\n'));
  }
}, 300000);
