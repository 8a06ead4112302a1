/**
 * Helpers of heuristic task synthesis (family.ts turns each occurrence of a recurring family into a
 * task): the most typical ask of a cluster, the corrections it drew, and how a fresh synthesis merges
 * into a stored task. Offline and deterministic.
 */
import type { Task } from '../core/records.js';
import { stableId } from '../core/ids.js';
import type { StoredMember } from './state.js';
import { correctionsOf } from './outcome.js';

export const MAX_INTENT = 800;
const MAX_CORRECTIONS = 20;

/** The id the earlier one-task-per-cluster synthesis gave a cluster's task (such tasks are superseded by family.ts). */
export function taskIdFor(clusterId: string): string {
  return stableId('task', clusterId);
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
