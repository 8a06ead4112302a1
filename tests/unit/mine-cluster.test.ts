import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { runMining } from '../../src/mine/index.js';
import { IntentClusterer, MutableDf, emptySource } from '../../src/mine/cluster.js';
import { featuresOf } from '../../src/mine/features.js';
import { keyOf } from '../../src/mine/normalize.js';
import { generateCorpus, insertCorpus, pairwiseScores } from '../../bench/mine-corpus.js';
import { makeTempDir } from '../helpers/sandbox.js';

const dir = makeTempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('intent clustering', () => {
  it('keeps pairwise precision and recall ≥ 0.9 on the labeled corpus (1,500 sessions)', async () => {
    const db = openDb(path.join(dir, 'quality.db'));
    const corpus = generateCorpus({ sessions: 1500, seed: 5 });
    insertCorpus(db, corpus);
    const summary = await runMining(db, defaultConfig(), { now: Date.UTC(2026, 10, 1) });
    const q = pairwiseScores(db, corpus);
    expect(q.precision).toBeGreaterThanOrEqual(0.9);
    expect(q.recall).toBeGreaterThanOrEqual(0.9);
    expect(q.leakedExcluded).toBe(0); // subagent and self sessions are never mined
    expect(q.missing / corpus.labels.size).toBeLessThan(0.02);
    // every family recurs: at least one task per family, and noise does not flood the pool
    expect(summary.recurringTasks).toBeGreaterThanOrEqual(12);
    expect(summary.integrity).toEqual([]);
    db.close();
  });

  it('a higher threshold splits more, a lower one merges more (the knob works)', async () => {
    const counts: number[] = [];
    for (const threshold of [0.3, 0.6, 0.97]) {
      const db = openDb(path.join(dir, `t${threshold}.db`));
      insertCorpus(db, generateCorpus({ sessions: 300, seed: 9 }));
      const config = defaultConfig();
      config.mining.threshold = threshold;
      counts.push((await runMining(db, config)).clusters);
      db.close();
    }
    expect(counts[0]).toBeLessThan(counts[1]);
    expect(counts[1]).toBeLessThan(counts[2]);
  });

  it('joins an ask to an existing cluster and merges halves of one family', () => {
    const k = new IntentClusterer(emptySource, new MutableDf(), { threshold: 0.5 });
    const f = (s: string) => featuresOf(keyOf(s));
    const a = k.add(f('write a changelog entry for the rounding fix'), 's1', 0);
    const b = k.add(f('add a changelog entry for the pagination fix'), 's2', 0);
    const c = k.add(f('bump zod to the latest version'), 's3', 0);
    expect(a.created).toBe(true);
    expect(b.clusterId).toBe(a.clusterId);
    expect(b.newSession).toBe(true);
    expect(c.clusterId).not.toBe(a.clusterId);
    expect(k.get(a.clusterId)!.sessionCount).toBe(2);
  });
});
