/**
 * The LLM cluster review, played by the sim miner (a careful reader): one call per run over the
 * clusters that changed, its merges and splits applied, its decisions recorded and undoable.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { runMining } from '../../src/mine/index.js';
import { createSimBackend } from '../../src/llm/sim/index.js';
import { reviewClusters as simReview } from '../../src/llm/sim/cluster-review.js';
import { loadReviewState } from '../../src/mine/cluster-review.js';
import { mergeFamilies, splitFamily } from '../../src/mine/cluster-edit.js';
import { clusterAssignments } from '../../src/store/repos/mining.js';
import { insertCorpus } from '../../bench/mine-corpus.js';
import { generateParaphraseCorpus } from '../../bench/mine-paraphrase.js';
import { makeTempDir } from '../helpers/sandbox.js';
import type { Backend, ReviewClustersPayload } from '../../src/core/protocol.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function freshDb(): Db {
  const d = makeTempDir();
  dirs.push(d);
  return openDb(path.join(d, 'sleep.db'));
}

describe('the simulated reviewer', () => {
  it('splits a cluster holding two jobs, merges two halves of one job and names them', () => {
    const reply = simReview({
      clusters: [
        { id: 'cl_a', size: 3, asks: ['add a changelog entry for PR #9: fix the memory leak', 'give me a commit message: fix the memory leak'] },
        { id: 'cl_b', size: 5, asks: ['write vitest cases for parseAmount', 'add a unit test for formatDate'] },
        { id: 'cl_c', size: 2, asks: ["there's zero coverage for the rate limiter, write tests"] },
        { id: 'cl_d', size: 1, asks: ['brainstorm names for the kazo feature'] },
      ],
    });
    expect(reply.splits).toEqual([{ id: 'cl_a', groups: [{ job: 'writing a CHANGELOG entry', asks: [0] }, { job: 'writing a commit message', asks: [1] }] }]);
    expect(reply.merges).toEqual([['cl_b', 'cl_c']]);
    expect(reply.names.map((n) => n.id)).toEqual(['cl_a', 'cl_b', 'cl_c']); // nothing said about an ask it cannot place
  });
});

describe('cluster review in a mining run', () => {
  it('one call per run, only for changed clusters; decisions recorded and undoable', async () => {
    const db = freshDb();
    const corpus = generateParaphraseCorpus({ templates: 'heldout', sessions: 200, seed: 22 });
    insertCorpus(db, corpus);
    const config = defaultConfig();
    config.mining.useLlm = true;
    const miner = createSimBackend({ seed: 3, role: 'miner' });
    const s1 = await runMining(db, config, { backends: { miner }, now: Date.UTC(2026, 10, 1) });
    expect(miner.calls.review_clusters).toBe(1);
    expect(s1.review).toMatchObject({ called: true });
    expect(s1.review!.reviewed).toBeGreaterThan(5);
    const state = loadReviewState(db);
    expect(Object.keys(state.names).length).toBeGreaterThan(5);
    const merge = [...state.decisions].reverse().find((d) => d.kind === 'merge' && d.by === 'llm');
    expect(merge, 'the reviewer merged two halves of a job').toBeDefined();

    // nothing new: no call
    const s2 = await runMining(db, config, { backends: { miner }, now: Date.UTC(2026, 10, 2) });
    expect(miner.calls.review_clusters).toBe(1);
    expect(s2.review?.called ?? false).toBe(false);

    // undo the merge: the merged asks are their own family again, and stay apart on the next run
    const clusterOf = () => new Map(clusterAssignments(db).map((r) => [`${r.sessionId}#${r.seq}`, r.clusterId]));
    const moved = merge!.moved.filter((k) => clusterOf().get(k) === merge!.cluster);
    expect(moved.length).toBeGreaterThan(0);
    const edit = splitFamily(db, config, merge!.cluster, Date.UTC(2026, 10, 3));
    expect(edit.other).toBe(merge!.other);
    await runMining(db, config, { now: Date.UTC(2026, 10, 3) });
    for (const k of moved) expect(clusterOf().get(k)).toBe(merge!.other);
    expect(loadReviewState(db).apart.length).toBe(1);

    // and merge them back by hand
    const back = mergeFamilies(db, config, merge!.cluster, merge!.other, Date.UTC(2026, 10, 4));
    await runMining(db, config, { now: Date.UTC(2026, 10, 4) });
    for (const k of moved) expect(clusterOf().get(k)).toBe(back.cluster);
    expect(loadReviewState(db).apart).toEqual([]);
    db.close();
  });
});

describe('what a mining run shows the review', () => {
  it("the asks and what the agent did for them (read from the transcripts' tool calls), never the corpus behind them", async () => {
    const db = freshDb();
    const corpus = generateParaphraseCorpus({ templates: 'fresh', sessions: 150, seed: 31 });
    insertCorpus(db, corpus);
    const config = defaultConfig();
    config.mining.useLlm = true;
    const sim = createSimBackend({ seed: 3, role: 'miner' });
    const payloads: ReviewClustersPayload[] = [];
    const miner: Backend = {
      ...sim,
      complete: (req, signal) => {
        if (req.operation === 'review_clusters') payloads.push(req.payload as ReviewClustersPayload);
        return sim.complete(req, signal);
      },
    };
    await runMining(db, config, { backends: { miner }, now: Date.UTC(2026, 10, 1) });
    expect(payloads).toHaveLength(1);
    const [payload] = payloads;
    // what the agent did is there for most recurring clusters, as work signs, aligned with the asks
    const recurring = payload.clusters.filter((c) => c.size >= 5);
    expect(recurring.length).toBeGreaterThan(5);
    expect(recurring.filter((c) => c.work?.length).length / recurring.length).toBeGreaterThan(0.8);
    for (const c of payload.clusters) {
      if (c.did) expect(c.did).toHaveLength(c.asks.length);
      for (const sign of [...(c.did ?? []).flat(), ...(c.work ?? []).map((w) => w.did)]) expect(sign).toMatch(/^(wrote|ran) /);
    }
    // none of the corpus: no label, no session id or event key, no project path
    const text = JSON.stringify(payload);
    expect(text).not.toMatch(/one-off:|:pf[0-9a-z]{4}|\/home\/dana/);
    for (const s of corpus.sessions.slice(0, 20)) expect(text).not.toContain(s.id);
    const prompts = new Set(corpus.sessions.flatMap((s) => s.events.filter((e) => e.kind === 'prompt').map((e) => e.text.replace(/\s+/g, ' ').trim())));
    for (const c of payload.clusters) for (const a of c.asks) expect(prompts.has(a)).toBe(true);
    db.close();
  });
});
