/**
 * Why a paraphrase figure is short: mines one template set per seed (optionally with the sim
 * cluster review) and prints, per job, how its asks were spread over clusters (the pairs lost to
 * recall), every cluster holding several labels (the pairs lost to precision), and what the review
 * was shown and decided for those clusters.
 *
 *   node dist-bench/bench/mine-paraphrase-diagnose.js fresh [--no-review] [--seeds 21,22,23]
 *
 * A reading aid for whoever changes the miner: it prints the corpus labels, so nothing here may
 * ever feed the miner or the sim reviewer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDb } from '../src/store/db.js';
import { defaultConfig } from '../src/core/config.js';
import { runMining } from '../src/mine/index.js';
import { clusterAssignments } from '../src/store/repos/mining.js';
import { createSimBackend } from '../src/llm/sim/index.js';
import type { Backend, ReviewClustersPayload } from '../src/core/protocol.js';
import { insertCorpus } from './mine-corpus.js';
import { generateParaphraseCorpus, type TemplateSet } from './mine-paraphrase.js';
import { paraphraseScores } from './mine-quality.js';

const short = (id: string) => id.slice(0, 10);
const kindOf = (label: string) => (label.startsWith('one-off') ? 'one-off' : label);

export async function diagnose(templates: TemplateSet, seed: number, review: boolean, log: (line: string) => void = console.log): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-mine-diag-'));
  try {
    const db = openDb(path.join(dir, 'sleep.db'));
    const corpus = generateParaphraseCorpus({ templates, sessions: 300, seed });
    insertCorpus(db, corpus, Date.UTC(2026, 10, 1));
    const config = defaultConfig();
    const sim = createSimBackend({ seed, role: 'miner' });
    let shown: ReviewClustersPayload | undefined;
    let reply: { names: Array<{ id: string; job: string }>; merges: string[][]; splits: Array<{ id: string; groups: Array<{ job: string; asks: number[] }> }> } | undefined;
    const miner: Backend = {
      ...sim,
      complete: async (req, signal) => {
        const r = await sim.complete(req, signal);
        if (req.operation === 'review_clusters') {
          shown = req.payload as ReviewClustersPayload;
          reply = JSON.parse(r.text) as typeof reply;
        }
        return r;
      },
    };
    if (review) config.mining.useLlm = true;
    await runMining(db, config, { now: Date.UTC(2026, 10, 1), ...(review ? { backends: { miner } } : {}) });
    const scores = paraphraseScores(db, corpus);
    log(`${templates} seed ${seed}${review ? ' + review' : ''}: precision ${scores.precision.toFixed(3)} recall ${scores.recall.toFixed(3)} (${scores.missingAsks} asks not mined as asks)`);
    const clusterOf = new Map(clusterAssignments(db).map((r) => [`${r.sessionId}#${r.seq}`, r.clusterId]));
    const text = new Map<string, string>(corpus.sessions.flatMap((s) => s.events.map((e) => [`${s.id}#${e.seq}`, e.text] as [string, string])));
    const named = new Map((reply?.names ?? []).map((n) => [n.id, n.job]));
    const shownById = new Map((shown?.clusters ?? []).map((c) => [c.id, c]));
    const labelsOf = new Map<string, Map<string, number>>();
    const byJob = new Map<string, Map<string, string[]>>();
    for (const [key, label] of corpus.labels) {
      const c = clusterOf.get(key);
      if (!c) continue;
      const counts = labelsOf.get(c) ?? new Map<string, number>();
      counts.set(kindOf(label), (counts.get(kindOf(label)) ?? 0) + 1);
      labelsOf.set(c, counts);
      if (label.startsWith('one-off')) continue;
      const parts = byJob.get(label) ?? new Map<string, string[]>();
      parts.set(c, [...(parts.get(c) ?? []), text.get(key) ?? '']);
      byJob.set(label, parts);
    }
    const describe = (c: string) => {
      const s = shownById.get(c);
      return `${JSON.stringify(Object.fromEntries(labelsOf.get(c) ?? []))} shown=${s ? 'yes' : 'no'} named=${named.get(c) ?? '-'}${s ? ` asks=${JSON.stringify(s.asks)} did=${JSON.stringify(s.did ?? [])}` : ''}`;
    };
    for (const [job, parts] of byJob) {
      const ranked = [...parts.entries()].sort((a, b) => b[1].length - a[1].length);
      if (ranked.length < 2) continue;
      log(`  recall: ${job} in ${ranked.map((p) => p[1].length).join(' + ')}`);
      for (const [c, asks] of ranked.slice(1)) log(`    ${short(c)} ${describe(c)} e.g. ${[...new Set(asks)].slice(0, 2).map((a) => JSON.stringify(a)).join(' | ')}`);
    }
    for (const [c, counts] of labelsOf) if (counts.size > 1) log(`  precision: ${short(c)} ${describe(c)}`);
    if (reply) log(`  review: merges ${JSON.stringify(reply.merges.map((g) => g.map(short)))} splits ${JSON.stringify(reply.splits.map((s) => ({ id: short(s.id), groups: s.groups })))}`);
    db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const templates = (args.find((a) => !a.startsWith('--') && /^(dev|heldout|fresh)$/.test(a)) ?? 'fresh') as TemplateSet;
  const at = args.indexOf('--seeds');
  const seeds = (at >= 0 ? args[at + 1] : '21,22,23').split(',').map(Number);
  for (const seed of seeds) await diagnose(templates, seed, !args.includes('--no-review'));
}
