/**
 * Incremental intent clustering (single pass, leader-follower): each new ask is compared with the
 * centroids of a few candidate clusters and joins the most similar one if the cosine similarity
 * reaches the threshold; otherwise it founds a new cluster. Candidates come from an inverted index
 * over each cluster's few most distinctive words, so a new ask never scans every cluster, and the
 * state lives behind `ClusterSource` so a run over 100 new sessions loads only what it touches.
 */
import { termWeight, isWordTerm, isWeakWord, idf, type DfTable, type Features, type Term } from './features.js';
import { stableId } from '../core/ids.js';

export type Tier = 'big' | 'small';
/** Clusters with this many members are indexed in the 'big' tier, probed with every word of an ask. */
export const BIG_CLUSTER = 2;
export const tierOf = (size: number): Tier => (size >= BIG_CLUSTER ? 'big' : 'small');

export interface ClusterState {
  id: string;
  /** summed raw feature counts of the members (IDF applied at compare time) */
  centroid: Features;
  size: number;
  sessionCount: number;
  keys: string[];
  /** the tier its keys are indexed in */
  keyTier?: Tier;
  taskId: string | null;
  createdAt: number;
  /** cached weighted norm and the document count it was computed at */
  norm?: number;
  normDocs?: number;
}

/** Where persisted clusters come from (the store), read lazily. */
export interface ClusterSource {
  /** clusters indexed under a term, in one tier: 'big' (≥ 2 members) or 'small' (singletons) */
  postings(term: string, tier: Tier): string[];
  load(id: string): ClusterState | undefined;
  hasSessionMember(clusterId: string, sessionId: string): boolean;
}

export const emptySource: ClusterSource = {
  postings: () => [],
  load: () => undefined,
  hasSessionMember: () => false,
};

/**
 * Document frequencies that grow as asks are added. `lookup` reads a term's stored count on first
 * use: an incremental run touches a few hundred terms of a table that grows with every word ever
 * asked, so it reads those rather than the whole table.
 */
export class MutableDf implements DfTable {
  docs: number;
  private readonly counts: Map<string, number>;
  readonly changed = new Set<string>();
  constructor(
    docs = 0,
    counts = new Map<string, number>(),
    private readonly lookup?: (term: string) => number,
  ) {
    this.docs = docs;
    this.counts = counts;
  }
  get(term: string): number {
    const n = this.counts.get(term);
    if (n !== undefined || !this.lookup) return n ?? 0;
    const stored = this.lookup(term);
    this.counts.set(term, stored);
    return stored;
  }
  /** Counts a document; only words are counted (IDF is used to rank words, never grams). */
  add(features: Iterable<Term>): void {
    this.docs++;
    for (const t of features) {
      if (typeof t !== 'string') continue;
      this.counts.set(t, this.get(t) + 1);
      this.changed.add(t);
    }
  }
  entries(terms: Iterable<string>): Array<[string, number]> {
    return [...terms].map((t) => [t, this.get(t)]);
  }
}

export interface ClusterOptions {
  threshold: number;
  /** rarest words of a new ask used to look up singleton clusters */
  probeTerms?: number;
  /** words of a new ask used to look up clusters of two or more asks */
  probeBigTerms?: number;
  /** words under which a cluster is indexed */
  keyTerms?: number;
  /** candidate clusters scored exactly per ask */
  maxCandidates?: number;
  /** posting entries read per probe word (bounds the cost of very common words) */
  maxPostings?: number;
  /** centroid terms kept (the strongest) */
  maxCentroidTerms?: number;
  now?: number;
}

export interface Assignment {
  clusterId: string;
  similarity: number;
  created: boolean;
  /** the ask's session was not yet among the cluster's sessions */
  newSession: boolean;
}

/**
 * Clusters merge at a slightly lower similarity than an ask joins one: two centroids have had the
 * incidental words averaged away, so their similarity is a more reliable signal than one ask's.
 */
const MERGE_FACTOR = 0.9;

/** Which of two clusters survives a merge: the one with a task, then the bigger, then the older. */
function survivorFirst(a: ClusterState, b: ClusterState): [ClusterState, ClusterState] {
  const rank = (c: ClusterState) => [c.taskId ? 1 : 0, c.sessionCount, c.size, -c.createdAt];
  const ra = rank(a);
  const rb = rank(b);
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i] > rb[i] ? [a, b] : [b, a];
  return a.id < b.id ? [a, b] : [b, a];
}

export class IntentClusterer {
  private readonly postingCache = new Map<string, Set<string>>();
  private readonly hits = new Map<string, number>();
  private readonly clusters = new Map<string, ClusterState>();
  private readonly sessionsAdded = new Map<string, Set<string>>();
  readonly dirty = new Set<string>();
  readonly created = new Set<string>();
  /** absorbed cluster → the cluster that absorbed it (merge pass) */
  readonly merged = new Map<string, string>();
  private readonly o: Required<Omit<ClusterOptions, 'now'>> & { now: number };

  constructor(
    private readonly source: ClusterSource,
    readonly df: MutableDf,
    opts: ClusterOptions,
  ) {
    this.o = {
      probeTerms: 3,
      probeBigTerms: 6,
      keyTerms: 5,
      maxCandidates: 6,
      maxPostings: 40,
      maxCentroidTerms: 120,
      now: Date.now(),
      ...opts,
    };
  }

  get(id: string): ClusterState | undefined {
    let c = this.clusters.get(id);
    if (!c) {
      c = this.source.load(id);
      if (c) this.clusters.set(id, c);
    }
    return c;
  }

  private postings(term: string, tier: Tier): Set<string> {
    const key = tier === 'big' ? 'B' + term : 'S' + term;
    let p = this.postingCache.get(key);
    if (!p) {
      p = new Set(this.source.postings(term, tier));
      this.postingCache.set(key, p);
    }
    return p;
  }

  private clusterNorm(c: ClusterState): number {
    // IDF drifts slowly as documents arrive; recompute when the corpus grew by 10 %
    if (c.norm !== undefined && c.normDocs !== undefined && this.df.docs <= c.normDocs * 1.1 + 5) return c.norm;
    let sq = 0;
    for (const [t, n] of c.centroid) {
      const w = n * termWeight(this.df, t);
      sq += w * w;
    }
    c.norm = Math.sqrt(sq);
    c.normDocs = this.df.docs;
    return c.norm;
  }

  /** Cosine between an ask's (or a centroid's) features and a cluster centroid, both weighted. */
  similarity(features: Features, c: ClusterState): number {
    return this.similarityW(this.weigh(features), c);
  }

  /** Per-term squared weights and the norm, computed once per ask and reused for every candidate. */
  private weigh(features: Features): { terms: Term[]; w2: number[]; norm: number } {
    const terms: Term[] = [];
    const w2: number[] = [];
    let sq = 0;
    for (const [t, n] of features) {
      const w = termWeight(this.df, t);
      terms.push(t);
      w2.push(n * w * w);
      sq += n * n * w * w;
    }
    return { terms, w2, norm: Math.sqrt(sq) };
  }

  private similarityW(a: { terms: Term[]; w2: number[]; norm: number }, c: ClusterState): number {
    let dot = 0;
    const cen = c.centroid;
    for (let i = 0; i < a.terms.length; i++) {
      const cn = cen.get(a.terms[i]);
      if (cn !== undefined) dot += a.w2[i] * cn;
    }
    const cnorm = this.clusterNorm(c);
    return a.norm === 0 || cnorm === 0 ? 0 : dot / (a.norm * cnorm);
  }

  /** The k most distinctive words (request verbs only when nothing else is there). */
  private topWords(counts: Features, k: number): string[] {
    const words: Array<[string, number]> = [];
    for (const [t, n] of counts) if (isWordTerm(t) && !isWeakWord(t)) words.push([t, n * idf(this.df, t)]);
    if (words.length === 0) for (const [t, n] of counts) if (isWordTerm(t)) words.push([t, n * idf(this.df, t)]);
    words.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return words.slice(0, k).map((w) => w[0]);
  }

  /** Clusters worth scoring for these features: most shared probe words first. */
  candidates(features: Features): string[] {
    const hits = this.hits;
    hits.clear();
    const words = this.topWords(features, this.o.probeBigTerms);
    const probe = (term: string, tier: Tier) => {
      let read = 0;
      for (const id of this.postings(term, tier)) {
        hits.set(id, (hits.get(id) ?? 0) + 1);
        if (++read >= this.o.maxPostings) break;
      }
    };
    // established clusters: through any word; singletons: through the rarest words only
    for (const term of words) probe(term, 'big');
    for (const term of words.slice(0, this.o.probeTerms)) probe(term, 'small');
    if (hits.size <= this.o.maxCandidates) return [...hits.keys()];
    return [...hits.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, this.o.maxCandidates)
      .map((e) => e[0]);
  }

  /** Best cluster at or above the threshold, if any (does not modify state). */
  match(features: Features): { id: string; similarity: number } | null {
    let best: { id: string; similarity: number } | null = null;
    const weighed = this.weigh(features);
    for (const id of this.candidates(features)) {
      const c = this.get(id);
      if (!c) continue;
      const s = this.similarityW(weighed, c);
      if (s >= this.o.threshold && (!best || s > best.similarity)) best = { id, similarity: s };
    }
    return best;
  }

  /** Adds one ask (identified by session and event) and returns the cluster it joined. */
  add(features: Features, sessionId: string, seq: number): Assignment {
    this.df.add(features.keys());
    const m = this.match(features);
    let c: ClusterState;
    let created = false;
    if (m) {
      c = this.get(m.id)!;
    } else {
      c = {
        id: stableId('cl', sessionId, String(seq)),
        centroid: new Map(),
        size: 0,
        sessionCount: 0,
        keys: [],
        taskId: null,
        createdAt: this.o.now,
      };
      this.clusters.set(c.id, c);
      this.created.add(c.id);
      created = true;
    }
    for (const [t, n] of features) c.centroid.set(t, (c.centroid.get(t) ?? 0) + n);
    if (c.centroid.size > this.o.maxCentroidTerms * 1.5) this.prune(c);
    c.size++;
    c.norm = undefined;
    let seen = this.sessionsAdded.get(c.id);
    if (!seen) this.sessionsAdded.set(c.id, (seen = new Set()));
    const newSession = !seen.has(sessionId) && (created || this.created.has(c.id) || !this.source.hasSessionMember(c.id, sessionId));
    seen.add(sessionId);
    if (newSession) c.sessionCount++;
    this.reindex(c);
    this.dirty.add(c.id);
    return { clusterId: c.id, similarity: m ? m.similarity : 1, created, newSession };
  }

  private prune(c: ClusterState): void {
    const kept = [...c.centroid.entries()]
      .sort((a, b) => b[1] * termWeight(this.df, b[0]) - a[1] * termWeight(this.df, a[0]) || (String(a[0]) < String(b[0]) ? -1 : 1))
      .slice(0, this.o.maxCentroidTerms);
    c.centroid = new Map(kept);
  }

  private reindex(c: ClusterState): void {
    const keys = this.topWords(c.centroid, this.o.keyTerms);
    const tier = tierOf(c.size);
    const oldTier = c.keyTier ?? tierOf(c.size - 1);
    for (const old of c.keys) if (tier !== oldTier || !keys.includes(old)) this.postings(old, oldTier).delete(c.id);
    for (const k of keys) this.postings(k, tier).add(c.id);
    c.keys = keys;
    c.keyTier = tier;
  }

  /** The cluster an id ended up in after merges. */
  resolve(id: string): string {
    let cur = id;
    for (let next = this.merged.get(cur); next !== undefined; next = this.merged.get(cur)) cur = next;
    return cur;
  }

  /**
   * Merges clusters whose centroids reach the threshold. A single pass splits a family when its
   * first asks happen to share few words; centroids average the incidental words away, so two
   * halves of one family look alike while different families stay far apart. Only clusters touched
   * in this run are examined (plus their candidates), so history is not re-clustered.
   * `canAbsorb(id)` vetoes absorbing a cluster (e.g. one whose task a person curated).
   */
  mergePass(canAbsorb: (clusterId: string) => boolean = () => true, keptApart: (a: string, b: string) => boolean = () => false): number {
    let total = 0;
    // seeds are clusters of 2+ asks touched in this run (singletons are reached as candidates);
    // merged centroids can newly reach the threshold, so survivors are re-examined (bounded)
    let seeds = [...this.dirty].map((id) => this.clusters.get(id)!).filter((c) => c && c.size >= BIG_CLUSTER);
    for (let round = 0; round < 5 && seeds.length; round++) {
      const grew = new Set<ClusterState>();
      seeds.sort((a, b) => b.size - a.size || (a.id < b.id ? -1 : 1));
      for (const c of seeds) {
        if (this.merged.has(c.id)) continue;
        for (const id of this.candidates(c.centroid)) {
          if (id === c.id || this.merged.has(id)) continue;
          const o = this.get(id);
          if (!o || this.similarity(c.centroid, o) < this.o.threshold * MERGE_FACTOR) continue;
          const [keep, drop] = survivorFirst(c, o);
          if (!canAbsorb(drop.id) || keptApart(keep.id, drop.id)) continue;
          this.absorb(keep, drop);
          grew.add(keep);
          grew.delete(drop);
          total++;
          if (drop === c) break;
        }
      }
      seeds = [...grew].filter((c) => !this.merged.has(c.id));
    }
    return total;
  }

  /** Merges two clusters a reviewer found to be one job; returns the survivor's id (null when vetoed or gone). */
  mergeClusters(a: string, b: string, canAbsorb: (clusterId: string) => boolean = () => true): string | null {
    const ca = this.get(this.resolve(a));
    const cb = this.get(this.resolve(b));
    if (!ca || !cb || ca.id === cb.id) return null;
    const [keep, drop] = survivorFirst(ca, cb);
    if (!canAbsorb(drop.id)) return null;
    this.absorb(keep, drop);
    return keep.id;
  }

  /**
   * Moves some asks of a cluster into a new one (a reviewer found the cluster holds two jobs).
   * `features` are the moved asks' features; `sessions` their distinct sessions (the store
   * recounts both clusters' sessions after the move).
   */
  splitOff(fromId: string, newId: string, features: Features[], sessions: Set<string>): ClusterState | null {
    const from = this.get(this.resolve(fromId));
    if (!from || features.length === 0 || features.length >= from.size) return null;
    const c: ClusterState = { id: newId, centroid: new Map(), size: 0, sessionCount: sessions.size, keys: [], taskId: null, createdAt: this.o.now };
    for (const f of features) {
      for (const [t, n] of f) {
        c.centroid.set(t, (c.centroid.get(t) ?? 0) + n);
        const left = (from.centroid.get(t) ?? 0) - n;
        if (left > 1e-9) from.centroid.set(t, left);
        else from.centroid.delete(t);
      }
    }
    c.size = features.length;
    from.size -= features.length;
    from.norm = undefined;
    this.clusters.set(c.id, c);
    this.created.add(c.id);
    this.sessionsAdded.set(c.id, new Set(sessions));
    this.reindex(from);
    this.reindex(c);
    this.dirty.add(from.id);
    this.dirty.add(c.id);
    return c;
  }

  private absorb(keep: ClusterState, drop: ClusterState): void {
    for (const [t, n] of drop.centroid) keep.centroid.set(t, (keep.centroid.get(t) ?? 0) + n);
    if (keep.centroid.size > this.o.maxCentroidTerms * 1.5) this.prune(keep);
    keep.size += drop.size;
    keep.sessionCount += drop.sessionCount; // upper bound; the store recounts distinct sessions
    keep.norm = undefined;
    for (const k of drop.keys) this.postings(k, drop.keyTier ?? tierOf(drop.size)).delete(drop.id);
    drop.keys = [];
    this.reindex(keep);
    this.merged.set(drop.id, keep.id);
    this.dirty.delete(drop.id);
    this.dirty.add(keep.id);
    const seen = this.sessionsAdded.get(keep.id) ?? new Set<string>();
    for (const s of this.sessionsAdded.get(drop.id) ?? []) seen.add(s);
    this.sessionsAdded.set(keep.id, seen);
  }

  /** Clusters changed in this run, for persisting. */
  changed(): ClusterState[] {
    return [...this.dirty].map((id) => this.clusters.get(id)!).filter(Boolean);
  }

  finalizeCentroids(): void {
    for (const c of this.changed()) if (c.centroid.size > this.o.maxCentroidTerms) this.prune(c);
  }
}
