/**
 * The optional LLM cluster review: when a real miner backend is configured, ONE call per mining run
 * shows the model the clusters that changed (a few representative asks each) and takes back
 * merges (clusters that are one job), splits (a cluster holding several jobs) and a one-line job
 * name per cluster. It goes through the same structured-reply path as the optimizer (completeJson:
 * one repair, the response cache, the egress ledger and the budget of the managed backend); the
 * request is built from cluster content only, so an unchanged cluster set is served from the cache,
 * and clusters whose content did not change since their last review are not sent again.
 *
 * Every decision is recorded (kv `mine.review`) so `tasks list` can show it and `tasks split` /
 * `tasks merge` can undo it; a pair a person split apart is never merged again by the review or
 * by the merge pass.
 */
import crypto from 'node:crypto';
import type { Db } from '../store/db.js';
import { ReviewClustersReply, type Backend, type ReviewClustersPayload } from '../core/protocol.js';
import { completeJson } from '../llm/json.js';
import { kvGet, kvSet } from '../store/repos/kv.js';
import { stableId } from '../core/ids.js';
import type { IntentClusterer } from './cluster.js';
import { featuresOf, type Features } from './features.js';
import { keyOf } from './normalize.js';

/** Clusters shown per review call (the largest changed ones first). */
export const MAX_REVIEW_CLUSTERS = 60;
/** Representative asks shown per cluster. */
export const ASKS_PER_CLUSTER = 4;
const MAX_ASK_CHARS = 200;
const MAX_JOB_NAME = 80;
const KV_REVIEW = 'mine.review';

export interface ReviewDecision {
  at: number;
  by: 'llm' | 'user';
  kind: 'merge' | 'split';
  /** merge: the survivor; split: the cluster split from */
  cluster: string;
  /** merge: the absorbed cluster; split: the new cluster */
  other: string;
  /** the asks (`sessionId#seq`) that moved, so the decision can be undone */
  moved: string[];
  job?: string;
}

export interface ReviewState {
  /** cluster id → job name */
  names: Record<string, string>;
  /** cluster id → content hash at its last review */
  reviewed: Record<string, string>;
  decisions: ReviewDecision[];
  /** pairs of clusters a person split apart ("a|b", sorted): never merged again automatically */
  apart: string[];
}

export function loadReviewState(db: Db): ReviewState {
  const s = kvGet<Partial<ReviewState>>(db, KV_REVIEW) ?? {};
  return { names: s.names ?? {}, reviewed: s.reviewed ?? {}, decisions: s.decisions ?? [], apart: s.apart ?? [] };
}

export function saveReviewState(db: Db, state: ReviewState, now: number): void {
  // the log keeps the latest decisions (a store reviewed nightly for years stays small)
  kvSet(db, KV_REVIEW, { ...state, decisions: state.decisions.slice(-500) }, now);
}

export const apartKey = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`);

/** One ask of a cluster as the review sees it. */
export interface ReviewAsk {
  key: string;
  prompt: string;
  /** what the agent did for it (work signs, work.ts) */
  work?: string[];
}

export interface ReviewCandidate {
  id: string;
  size: number;
  /** every ask of the cluster known to this run (stored and new), most recent first */
  asks: ReviewAsk[];
}

export function contentHash(c: ReviewCandidate): string {
  const shown = representatives(c).map((r) => `${r.text}\u0001${r.work.join('\u0001')}`);
  return crypto.createHash('sha256').update(`${c.size}\u0000${shown.join('\u0000')}`).digest('hex').slice(0, 16);
}

/** Work signs shown per cluster summary (the most frequent across its asks). */
const WORK_SHOWN = 5;

/**
 * What the agent did across a cluster's asks (its representative pool): each work sign with how
 * many asks show it, most frequent first. The job behind the words shows in the artefact touched,
 * whatever the phrasing, so a reader can tell two differently worded clusters are one job (both
 * wrote CHANGELOG.md) and a cluster named by its words is not (its asks ran `gh pr` and wrote no test).
 */
function workSummary(c: ReviewCandidate): { work: Array<{ did: string; asks: number }>; asksRead: number } {
  const counts = new Map<string, number>();
  let asksRead = 0;
  for (const a of c.asks.slice(0, REPRESENTATIVE_POOL)) {
    asksRead++;
    for (const w of new Set(a.work ?? [])) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  const work = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, WORK_SHOWN)
    .map(([did, asks]) => ({ did, asks }));
  return { work, asksRead };
}

/** How much more like another group's shown asks than like its home group's an ask must be to leave with a split. */
const SPLIT_MARGIN = 0.15;

/** A work sign as a feature term (what the agent did counts, beside the words, in how typical an ask is). */
const workTerm = (sign: string): string => `%${sign}`;
const WORK_FEATURE_WEIGHT = 2;

function withWork(f: Features, work: readonly string[] | undefined): Features {
  if (!work?.length) return f;
  const out = new Map(f);
  for (const w of work) out.set(workTerm(w), WORK_FEATURE_WEIGHT);
  return out;
}

/** Distinct asks of a cluster read to choose its representatives (its most recent ones). */
const REPRESENTATIVE_POOL = 40;
/** Of the asks shown per cluster, this many are its least typical (the rest its most typical). */
const ATYPICAL_SHOWN = 2;

/**
 * A few distinct asks of a cluster: its most typical ones (closest to what its asks share), and its
 * least typical ones. A reviewer shown only the typical asks can name a cluster but never see that
 * it also holds another job (an ask that went in by a shared word), which is what a split needs;
 * and the atypical wordings of a job are the ones that tell a reader two clusters are the same job.
 * Deterministic: ties keep the cluster's order (most recent first).
 */
function representatives(c: ReviewCandidate): Array<{ text: string; work: string[]; count: number }> {
  const pool: Array<{ text: string; work: string[]; features: Features; key: string }> = [];
  const seen = new Set<string>();
  // how many of the asks read are worded like each one (the same key): distinct wordings are shown
  // once, and a reader who is not told that one of them stands for most of the cluster would take
  // the cluster for the job of its other, rarer wordings
  const worded = new Map<string, number>();
  for (const [i, a] of c.asks.entries()) {
    const p = a.prompt.replace(/\s+/g, ' ').trim().slice(0, MAX_ASK_CHARS);
    const k = keyOf(p);
    if (i < REPRESENTATIVE_POOL) worded.set(k, (worded.get(k) ?? 0) + 1);
    if (!p || seen.has(k) || pool.length >= REPRESENTATIVE_POOL) continue;
    seen.add(k);
    const work = a.work ?? [];
    // (what the agent did is part of what makes an ask typical or not of its cluster)
    pool.push({ text: p, work, features: withWork(featuresOf(k), work), key: k });
  }
  const count = (k: string) => Math.max(1, worded.get(k) ?? 0);
  if (pool.length <= ASKS_PER_CLUSTER) return pool.map((x) => ({ text: x.text, work: x.work, count: count(x.key) }));
  const centroid: Features = new Map();
  for (const x of pool) for (const [t, w] of x.features) centroid.set(t, (centroid.get(t) ?? 0) + w);
  const ranked = pool.map((x, i) => ({ i, text: x.text, work: x.work, key: x.key, typicality: overlap(x.features, centroid) })).sort((a, b) => b.typicality - a.typicality || a.i - b.i);
  const typical = ranked.slice(0, ASKS_PER_CLUSTER - ATYPICAL_SHOWN);
  const atypical = ranked.slice(-ATYPICAL_SHOWN).reverse();
  return [...typical, ...atypical].map((x) => ({ text: x.text, work: x.work, count: count(x.key) }));
}

/** One cluster of the request: its representative asks, what the agent did for each, and across the cluster. */
export function reviewedCluster(c: ReviewCandidate): ReviewClustersPayload['clusters'][number] {
  const reps = representatives(c);
  const out: ReviewClustersPayload['clusters'][number] = { id: c.id, size: c.size, asks: reps.map((r) => r.text) };
  if (reps.some((r) => r.work.length)) out.did = reps.map((r) => r.work);
  if (reps.some((r) => r.count > 1)) out.worded = reps.map((r) => r.count);
  const { work, asksRead } = workSummary(c);
  if (work.length) {
    out.work = work;
    out.asksRead = asksRead;
  }
  return out;
}

export function reviewPrompt(p: ReviewClustersPayload): string {
  const blocks = p.clusters.map((c) =>
    [
      `[${c.id}] (${c.size} asks)`,
      ...c.asks.map((a, i) => `  ${i}. ${a}${(c.worded?.[i] ?? 1) > 1 ? ` (×${c.worded![i]} asks worded like it)` : ''}${c.did?.[i]?.length ? `\n     agent: ${c.did[i].join('; ')}` : ''}`),
      ...(c.work?.length ? [`  across ${c.asksRead ?? c.size} asks the agent: ${c.work.map((w) => `${w.did} (${w.asks})`).join('; ')}`] : []),
    ].join('\n'),
  );
  return [
    'You review how a user\'s requests to their coding agent were grouped into recurring jobs.',
    'A job is what the user wants done (write a changelog entry, fix type errors, write unit tests, cut a release…),',
    'not the object it is done to (a function, a module, a bug). Two asks with the same job and different objects are one job;',
    'two asks about the same object with different jobs are two jobs.',
    '',
    'What the agent did for an ask (the files it wrote, the commands it ran) shows its job whatever the wording:',
    'an ask whose agent wrote CHANGELOG.md is a changelog job, one that ran `git commit` a commit message.',
    '',
    'Clusters (id, size, representative asks, what the agent did):',
    ...blocks,
    '',
    'Return ONLY a JSON object: {"names": [{"id", "job"}], "merges": [[id, id, ...]], "splits": [{"id", "groups": [{"job", "asks": [index, ...]}]}]}.',
    '- names: for every cluster, the job in a short gerund phrase, general words only ("writing a CHANGELOG entry").',
    '- merges: groups of clusters that are the same job. Only when you are sure.',
    '- splits: a cluster whose shown asks are different jobs: group the ask indexes by job. Only when you are sure.',
  ].join('\n');
}

export interface ReviewOutcome {
  called: boolean;
  cached: boolean;
  reviewed: number;
  merges: number;
  splits: number;
  named: number;
  /** why the call failed (the run keeps its heuristic clusters) */
  failure?: string;
}

export interface ReviewRun {
  db: Db;
  backend: Backend;
  clusterer: IntentClusterer;
  candidates: ReviewCandidate[];
  state: ReviewState;
  canAbsorb: (clusterId: string) => boolean;
  now: number;
  signal?: AbortSignal;
  /** asks moved to another cluster by a split: `sessionId#seq` → new cluster */
  onMove: (moved: Map<string, string>) => void;
}

/** Of the clusters shown per call, at most this many are small ones shown as near misses of a bigger one. */
export const NEAR_MISS_SLOTS = 20;

/**
 * Which changed clusters one call shows: the largest (the jobs), then, in the slots kept for
 * them, the small clusters most like one of those, by centroid. A job's splinters (an ask worded
 * unlike the others, that just missed the merge threshold) are small, so ranked by size alone they
 * are the first left out, while they are the decisions a reader is there to make; one-offs are
 * like nothing and stay out. Deterministic.
 */
export function clustersToShow(pending: ReviewCandidate[], clusterer: IntentClusterer, max = MAX_REVIEW_CLUSTERS, nearMissSlots = NEAR_MISS_SLOTS): ReviewCandidate[] {
  const bySize = [...pending].sort((a, b) => b.size - a.size || (a.id < b.id ? -1 : 1));
  if (bySize.length <= max) return bySize;
  const shown = bySize.filter((c) => c.size >= 2).slice(0, max - nearMissSlots);
  const inShown = new Set(shown.map((c) => c.id));
  const shownStates = shown.map((c) => clusterer.get(c.id)).filter((c): c is NonNullable<typeof c> => !!c);
  const nearness = (c: ReviewCandidate): number => {
    const own = clusterer.get(c.id);
    if (!own) return 0;
    let best = 0;
    for (const o of shownStates) best = Math.max(best, clusterer.similarity(own.centroid, o));
    return best;
  };
  const rest = bySize
    .filter((c) => !inShown.has(c.id))
    .map((c) => ({ c, near: nearness(c) }))
    .sort((a, b) => b.near - a.near || b.c.size - a.c.size || (a.c.id < b.c.id ? -1 : 1));
  return [...shown, ...rest.slice(0, max - shown.length).map((x) => x.c)];
}

/** Reviews the changed clusters in one call and applies its merges, splits and names to the clusterer and the state. */
export async function reviewClusters(r: ReviewRun): Promise<ReviewOutcome> {
  const out: ReviewOutcome = { called: false, cached: false, reviewed: 0, merges: 0, splits: 0, named: 0 };
  const fresh = clustersToShow(
    r.candidates.filter((c) => c.asks.length > 0 && r.state.reviewed[c.id] !== contentHash(c)),
    r.clusterer,
  );
  if (fresh.length === 0) return out;
  const payload: ReviewClustersPayload = { clusters: fresh.map(reviewedCluster) };
  out.called = true;
  const res = await completeJson(
    r.backend,
    { role: 'miner', operation: 'review_clusters', prompt: reviewPrompt(payload), payload, maxTokens: 2500, temperature: 0, cacheable: true },
    ReviewClustersReply,
    r.signal,
  );
  out.cached = res.replies.every((x) => x.cached);
  out.reviewed = fresh.length;
  const byId = new Map(fresh.map((c) => [c.id, c]));
  const shown = new Map(payload.clusters.map((c) => [c.id, c.asks.map((text, i) => ({ text, work: c.did?.[i] ?? [] }))]));
  const nameOf = new Map<string, string>();
  for (const n of res.value.names) {
    const job = n.job.replace(/\s+/g, ' ').trim().slice(0, MAX_JOB_NAME);
    if (byId.has(n.id) && job) nameOf.set(n.id, job);
  }

  // splits first (they name parts of one cluster), then merges among what is left
  /** the parts of the clusters split: each part's cluster, its job and the asks it holds */
  const parts: Array<{ id: string; job: string; keys: string[] }> = [];
  for (const sp of res.value.splits) {
    const c = byId.get(sp.id);
    const asks = shown.get(sp.id);
    if (!c || !asks) continue;
    const groups = sp.groups
      .map((g) => ({ job: g.job.trim().slice(0, MAX_JOB_NAME), asks: [...new Set(g.asks.filter((i) => i < asks.length))] }))
      .filter((g) => g.asks.length > 0);
    if (groups.length < 2) continue;
    // every ask of the cluster goes with the group whose shown asks it is most like, in words and
    // in what the agent did; it leaves the group of the cluster's most typical ask (shown first)
    // only when it is clearly more like another: a reviewer who splits off the one odd ask it was
    // shown says nothing about the asks it was not shown, which mostly are the cluster's own job
    const groupFeatures = groups.map((g) => g.asks.map((i) => withWork(featuresOf(keyOf(asks[i].text)), asks[i].work)));
    const home = Math.max(0, groups.findIndex((g) => g.asks.includes(0)));
    const assignment = new Map<number, ReviewAsk[]>();
    for (const a of c.asks) {
      const f = withWork(featuresOf(keyOf(a.prompt)), a.work);
      const scores = groupFeatures.map((gf) => Math.max(...gf.map((x) => overlap(f, x))));
      let best = home;
      scores.forEach((sc, gi) => {
        if (gi !== home && sc >= scores[home] + SPLIT_MARGIN && sc > scores[best]) best = gi;
      });
      assignment.set(best, [...(assignment.get(best) ?? []), a]);
    }
    // the biggest group keeps the cluster; each other group becomes a new one
    const order = [...assignment.entries()].sort((a, b) => b[1].length - a[1].length);
    if (order.length < 2) continue;
    const moved = new Map<string, string>();
    for (const [gi, members] of order.slice(1)) {
      const newId = stableId('cl', 'split', c.id, members[0].key);
      const sessions = new Set(members.map((m) => m.key.slice(0, m.key.lastIndexOf('#'))));
      const made = r.clusterer.splitOff(c.id, newId, members.map((m) => featuresOf(keyOf(m.prompt))), sessions);
      if (!made) continue;
      for (const m of members) moved.set(m.key, newId);
      parts.push({ id: newId, job: groups[gi].job, keys: members.map((m) => m.key) });
      r.state.names[newId] = groups[gi].job;
      r.state.decisions.push({ at: r.now, by: 'llm', kind: 'split', cluster: c.id, other: newId, moved: members.map((m) => m.key), job: groups[gi].job });
      out.splits++;
    }
    if (order[0]) {
      nameOf.set(c.id, groups[order[0][0]].job);
      parts.push({ id: c.id, job: groups[order[0][0]].job, keys: order[0][1].map((m) => m.key) });
    }
    if (moved.size) r.onMove(moved);
  }

  const apart = new Set(r.state.apart);
  for (const group of res.value.merges) {
    const ids = [...new Set(group)].filter((id) => byId.has(id));
    for (let i = 1; i < ids.length; i++) {
      const a = r.clusterer.resolve(ids[0]);
      const b = r.clusterer.resolve(ids[i]);
      if (a === b || apart.has(apartKey(a, b))) continue;
      const sizeOf = (id: string) => r.clusterer.get(id)?.size ?? 0;
      const [small, big] = sizeOf(a) < sizeOf(b) ? [a, b] : [b, a];
      const movedKeys = (byId.get(small)?.asks ?? []).map((x) => x.key);
      const keep = r.clusterer.mergeClusters(a, b, r.canAbsorb);
      if (!keep) continue;
      const drop = keep === a ? b : a;
      r.state.decisions.push({
        at: r.now,
        by: 'llm',
        kind: 'merge',
        cluster: keep,
        other: drop,
        moved: drop === small ? movedKeys : (byId.get(big)?.asks ?? []).map((x) => x.key),
        job: nameOf.get(keep) ?? nameOf.get(drop),
      });
      if (!nameOf.has(keep) && nameOf.has(drop)) nameOf.set(keep, nameOf.get(drop)!);
      out.merges++;
    }
  }

  // a part split off as one job joins the reviewed cluster the reply names with that job: the
  // reply said both are that job (the reviewer cannot name the part's new id in its merges)
  const splitIds = new Set(parts.map((p) => p.id));
  const namedAs = new Map<string, string>();
  for (const [id, job] of nameOf) if (!splitIds.has(id) && !namedAs.has(jobKey(job))) namedAs.set(jobKey(job), id);
  for (const part of parts) {
    const target = namedAs.get(jobKey(part.job));
    if (!target) continue;
    const a = r.clusterer.resolve(part.id);
    const b = r.clusterer.resolve(target);
    if (a === b || apart.has(apartKey(a, b))) continue;
    const keep = r.clusterer.mergeClusters(a, b, r.canAbsorb);
    if (!keep) continue;
    const drop = keep === a ? b : a;
    const moved = drop === a ? part.keys : (byId.get(target)?.asks ?? []).map((x) => x.key);
    r.state.decisions.push({ at: r.now, by: 'llm', kind: 'merge', cluster: keep, other: drop, moved, job: part.job });
    if (drop === b) nameOf.set(keep, part.job);
    out.merges++;
  }

  for (const [id, job] of nameOf) {
    const target = r.clusterer.resolve(id);
    r.state.names[target] = job;
    out.named++;
  }
  for (const c of fresh) r.state.reviewed[c.id] = contentHash(c);
  return out;
}

/** Two job names are one job when they read the same (case, spacing and punctuation aside). */
const jobKey = (job: string): string => job.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/** Share of the smaller feature set's weight found in the other (a cheap likeness of two asks). */
function overlap(a: Features, b: Features): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [t, w] of a) {
    na += w * w;
    const o = b.get(t);
    if (o !== undefined) dot += w * o;
  }
  for (const w of b.values()) nb += w * w;
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
