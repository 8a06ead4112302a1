/**
 * Mines the paraphrase corpus (dev and held-out template sets) into fresh stores and scores the
 * result (bench/mine-quality.ts). Shared by `npm run bench -- mine` and the mining tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb } from '../src/store/db.js';
import { defaultConfig, type Config } from '../src/core/config.js';
import { runMining, type MineOptions } from '../src/mine/index.js';
import { insertCorpus } from './mine-corpus.js';
import { generateParaphraseCorpus, type TemplateSet } from './mine-paraphrase.js';
import { paraphraseScores, type ParaphraseScores } from './mine-quality.js';
import { createSimBackend } from '../src/llm/sim/index.js';

export async function mineParaphrase(
  templates: TemplateSet,
  opts: { sessions?: number; seed?: number; config?: Config; mine?: MineOptions; review?: boolean } = {},
): Promise<ParaphraseScores & { reviewCalls: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-mine-para-'));
  try {
    const db = openDb(path.join(dir, 'sleep.db'));
    const corpus = generateParaphraseCorpus({ templates, sessions: opts.sessions ?? 300, seed: opts.seed ?? 21 });
    insertCorpus(db, corpus, Date.UTC(2026, 10, 1));
    const config = opts.config ?? defaultConfig();
    // the LLM pass: the sim miner plays a careful reader (src/llm/sim/cluster-review.ts)
    const miner = opts.review ? createSimBackend({ seed: opts.seed ?? 21, role: 'miner' }) : undefined;
    if (miner) config.mining.useLlm = true;
    await runMining(db, config, { now: Date.UTC(2026, 10, 1), ...(miner ? { backends: { miner } } : {}), ...opts.mine });
    const scores = paraphraseScores(db, corpus);
    db.close();
    return { ...scores, reviewCalls: miner?.calls.review_clusters ?? 0 };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
