/**
 * What the user said, counted: each correction (or refinement) typed after an agent's reply, with
 * the number of distinct sessions it was said in. The staging guard reads it to keep a one-off
 * remark ("also call out that this changes output") from becoming a standing rule.
 */
import type { Db } from '../db.js';

export interface SaidCorrection {
  text: string;
  /** the distinct sessions it was said in */
  sessionIds: string[];
}

export function correctionSessionCounts(db: Db): SaidCorrection[] {
  const rows = db.prepare('SELECT session_id AS s, outcome AS o FROM task_occurrences').all() as Array<{ s: string; o: string }>;
  const by = new Map<string, Set<string>>();
  for (const r of rows) {
    let reactions: Array<{ kind?: unknown; text?: unknown }> = [];
    try {
      reactions = ((JSON.parse(r.o) as { reactions?: typeof reactions }).reactions ?? []);
    } catch {
      continue; // an unreadable outcome says nothing about what was said
    }
    for (const x of reactions) {
      if ((x.kind !== 'correction' && x.kind !== 'refinement') || typeof x.text !== 'string' || !x.text.trim()) continue;
      by.set(x.text, (by.get(x.text) ?? new Set()).add(r.s));
    }
  }
  return [...by].map(([text, s]) => ({ text, sessionIds: [...s] }));
}
