/**
 * Team jobs: which pooled tasks, pushed by different members, are occurrences of the same recurring
 * ask. Each member's miner already grouped their own tasks into families, but a family id is made
 * on that member's machine (from their own clusters), so two members doing the same job hold two
 * families. The team night joins them: every family's centroid (the miner's own features of its
 * intents) is compared with every other family's, and families closer than the miner's merge
 * threshold become one team job (single link, deterministic order). A job's member count is what
 * tells a team convention (several members) from one person's habit (one member).
 */
import { normalizePrompt } from '../mine/normalize.js';
import { featuresOf, termWeight, type DfTable, type Features } from '../mine/features.js';
import type { PooledTask } from './contract.js';

/** The miner's ask-joins-cluster threshold, lowered as its cluster merge is (two centroids, not one ask). */
export const TEAM_JOB_MERGE_FACTOR = 0.9;

/** termWeight ignores document frequencies (see features.ts); an empty table satisfies its type. */
const NO_DF: DfTable = { docs: 0, get: () => 0 };

export interface TeamJob {
  /** stable id: the smallest member-family key of the job */
  id: string;
  /** content hashes of the job's pooled tasks */
  tasks: string[];
  members: Set<string>;
  sessions: Set<string>;
}

/** A member's family key: the family a member's miner gave the task, scoped by member (ids are per machine). */
export function memberFamilyKey(p: PooledTask): string {
  return `${p.memberId}:${p.task.family ?? `task:${p.task.id}`}`;
}

function centroid(tasks: PooledTask[]): { vec: Features; norm: number } {
  const sum: Features = new Map();
  for (const t of tasks) {
    for (const [term, w] of featuresOf(normalizePrompt(t.task.intent).key)) sum.set(term, (sum.get(term) ?? 0) + w / tasks.length);
  }
  let sq = 0;
  const vec: Features = new Map();
  for (const [term, w] of sum) {
    const x = w * termWeight(NO_DF, term);
    vec.set(term, x);
    sq += x * x;
  }
  return { vec, norm: Math.sqrt(sq) };
}

function cosine(a: { vec: Features; norm: number }, b: { vec: Features; norm: number }): number {
  if (a.norm === 0 || b.norm === 0) return 0;
  let dot = 0;
  for (const [t, w] of a.vec) {
    const o = b.vec.get(t);
    if (o !== undefined) dot += w * o;
  }
  return dot / (a.norm * b.norm);
}

/** Groups pooled tasks into team jobs (families joined across members by intent similarity). */
export function teamJobs(pooled: PooledTask[], threshold: number): TeamJob[] {
  const families = new Map<string, PooledTask[]>();
  for (const p of pooled) families.set(memberFamilyKey(p), [...(families.get(memberFamilyKey(p)) ?? []), p]);
  const keys = [...families.keys()].sort();
  const vecs = keys.map((k) => centroid(families.get(k)!));
  const parent = keys.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const limit = threshold * TEAM_JOB_MERGE_FACTOR;
  for (let i = 0; i < keys.length; i++) {
    for (let j = i + 1; j < keys.length; j++) {
      if (find(i) === find(j)) continue;
      if (cosine(vecs[i], vecs[j]) >= limit) parent[Math.max(find(i), find(j))] = Math.min(find(i), find(j));
    }
  }
  const jobs = new Map<number, TeamJob>();
  keys.forEach((k, i) => {
    const root = find(i);
    const job = jobs.get(root) ?? { id: keys[root], tasks: [], members: new Set<string>(), sessions: new Set<string>() };
    for (const p of families.get(k)!) {
      job.tasks.push(p.contentHash);
      job.members.add(p.memberId);
      job.sessions.add(`${p.memberId}:${p.sessionKey}`);
    }
    jobs.set(root, job);
  });
  return [...jobs.values()].sort((a, b) => b.members.size - a.members.size || b.tasks.length - a.tasks.length || a.id.localeCompare(b.id));
}
