/**
 * An edit's identity: two edits are the same edit when their op, anchor and content match once case
 * and whitespace are folded. The optimizer's merge folds duplicates by it, the rejected-edit buffer
 * bans by its hash, and the review records a user's rejection under the same hash, so an edit the
 * user turned down is recognised when the optimizer proposes it again.
 */
import type { Edit } from '../core/records.js';
import { sha256 } from '../core/fsutil.js';
import { normalizeText } from './segments.js';

export function editKey(e: Edit): string {
  return `${e.op}|${normalizeText(e.anchor ?? '')}|${normalizeText(e.content ?? '')}`;
}

/** The key's hash: what the `rejected_edits` table stores. */
export function editHash(e: Edit): string {
  return sha256(editKey(e)).slice(0, 16);
}
