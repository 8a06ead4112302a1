/**
 * Heuristic task synthesis: a recurring cluster becomes a `Task`. The intent is the most typical
 * ask of the cluster (the member closest to its centroid), the context is the minimal material the
 * ask needs (code the user pasted), and the judge comes from the asks and the corrections.
 * Offline and deterministic: the same members give the same task.
 */
import type { AgentId, Task } from '../core/records.js';
import { AgentId as AgentIdSchema } from '../core/records.js';
import { stableId } from '../core/ids.js';
import type { StoredMember } from './state.js';
import { correctionsOf } from './outcome.js';
import { synthesizeJudge } from './judge-synth.js';
import { assignSplit } from './splits.js';

export const MAX_INTENT = 800;
const MAX_CONTEXT = 1500;
const MAX_CORRECTIONS = 20;

export function taskIdFor(clusterId: string): string {
  return stableId('task', clusterId);
}

export interface ClusterFacts {
  clusterId: string;
  members: StoredMember[];
  /** similarity of a member's prompt to the cluster centroid (to pick the typical ask) */
  typicality: (m: StoredMember) => number;
  occurrences: number;
  firstSeen: number | null;
  lastSeen: number | null;
  seed: number;
}

export function pickRepresentative(members: StoredMember[], typicality: (m: StoredMember) => number): StoredMember {
  let best = members[0];
  let bestScore = -Infinity;
  for (const m of members) {
    // prefer typical asks; among equals, ones the user accepted, then shorter (less incidental detail)
    const s = typicality(m) + (m.outcome.label === 'success' ? 0.02 : 0) - Math.min(m.prompt.length, 2000) / 200000;
    if (s > bestScore || (s === bestScore && m.sessionId < best.sessionId)) {
      best = m;
      bestScore = s;
    }
  }
  return best;
}

export function uniqueCorrections(members: StoredMember[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  // oldest first, so the list reads as the history of what the user kept asking for
  for (const m of [...members].sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0))) {
    for (const c of correctionsOf(m.outcome)) {
      const k = c.toLowerCase().replace(/\s+/g, ' ').trim();
      if (!k || seen.has(k)) continue;
      seen.add(k);
      out.push(c);
    }
  }
  return out.slice(-MAX_CORRECTIONS);
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, n - 2).trimEnd() + ' …';
}

export function synthesizeTask(f: ClusterFacts): Task {
  const rep = pickRepresentative(f.members, f.typicality);
  const corrections = uniqueCorrections(f.members);
  const projects = new Set(f.members.map((m) => m.project));
  const project = projects.size === 1 ? [...projects][0] : null;
  const agents = [...new Set(f.members.map((m) => m.agent))].filter((a): a is AgentId => AgentIdSchema.safeParse(a).success).sort();
  const intent = truncate(rep.prompt.trim(), MAX_INTENT);
  const context = rep.outcome.code ? truncate(`The user provided:\n${rep.outcome.code}`, MAX_CONTEXT) : '';
  const accepted = f.members.filter((m) => m.outcome.label === 'success' && m.outcome.final).map((m) => m.outcome.final.length);
  const { judge } = synthesizeJudge({ intent, prompts: f.members.map((m) => m.prompt), corrections, acceptedLengths: accepted });
  const id = taskIdFor(f.clusterId);
  return {
    id,
    project,
    intent,
    context,
    judge,
    split: assignSplit(id, 'real', f.seed),
    origin: 'real',
    skillHint: null,
    occurrences: f.occurrences,
    firstSeen: f.firstSeen,
    lastSeen: f.lastSeen,
    status: 'active',
    reviewed: false,
    corrections,
    agents,
  };
}

/**
 * Merges a fresh synthesis into the stored task. A reviewed or imported task keeps its intent,
 * context and judge (a person curated them); every task keeps its split and status.
 */
export function mergeTask(existing: Task | undefined, fresh: Task, opts: { keepDefinition?: boolean } = {}): Task {
  if (!existing) return fresh;
  const keep = opts.keepDefinition || existing.reviewed || existing.origin === 'imported';
  const corrections = [...existing.corrections];
  for (const c of fresh.corrections) if (!corrections.includes(c)) corrections.push(c);
  return {
    ...(keep ? existing : fresh),
    id: existing.id,
    split: existing.split,
    status: existing.status,
    reviewed: existing.reviewed,
    origin: existing.origin,
    occurrences: fresh.occurrences,
    firstSeen: minNullable(existing.firstSeen, fresh.firstSeen),
    lastSeen: maxNullable(existing.lastSeen, fresh.lastSeen),
    corrections: corrections.slice(-MAX_CORRECTIONS),
    agents: [...new Set([...existing.agents, ...fresh.agents])].sort(),
  };
}

const minNullable = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
const maxNullable = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));
