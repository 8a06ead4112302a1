/**
 * The keys of a stored ask that re-synthesizing its family needs (migration 011): its normalised
 * key (how typical the ask is of its family) and its near-duplicate key (which asks are one
 * instance). Computed once when the ask is mined and stored beside it, so an incremental run that
 * touches a family of thousands of asks reads them instead of normalising every ask again.
 *
 * Stored keys are only as good as the functions that made them: bump ASK_KEYS_VERSION whenever
 * `keyOf`, `contentWords` or `codeObjectsSuffix` change what they return, and the next mining run
 * recomputes every stored ask's keys (as it backfills rows mined before migration 011).
 */
import { keyOf } from './normalize.js';
import { contentWords } from './features.js';
import { codeObjectsSuffix } from './splits.js';

export const ASK_KEYS_VERSION = 1;

export interface AskKeys {
  askKey: string;
  dedupeKey: string;
}

/** Near-duplicate key: the set of content words left after incidental detail is stripped. */
export function dedupeKeyOf(prompt: string, askKey = keyOf(prompt)): string {
  const words = [...new Set(contentWords(askKey))].sort();
  // asks about another function or file are other instances (splits.ts keeps the same rule)
  return `${words.length ? words.join(' ') : askKey}${codeObjectsSuffix(prompt)}`;
}

/** Both keys of a stored prompt (the cleaned, possibly truncated text kept in cluster_members). */
export function askKeysOf(prompt: string): AskKeys {
  const askKey = keyOf(prompt);
  return { askKey, dedupeKey: dedupeKeyOf(prompt, askKey) };
}
