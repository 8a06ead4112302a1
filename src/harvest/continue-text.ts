/**
 * An assistant message whose parts were split across two harvests is stored as one event: the
 * later part is joined to the stored text, and the join is redacted as a whole, so a secret (or a
 * `KEY=` name and its value) split across the two reads is still caught. When the stored text ends
 * in a placeholder, the continuation's leading token characters are the rest of that secret.
 */
import { redactSecrets } from '../core/redact.js';
import { cap } from '../../adapters/kit/session-builder.js';

const ENDS_IN_PLACEHOLDER = /\[REDACTED:[a-z0-9-]+\]$/;
const TOKEN_HEAD = /^[A-Za-z0-9_\-+/=.~%]+/;

export interface JoinedText {
  text: string;
  redactions: number;
  kinds: string[];
}

export function joinContinuation(stored: string, more: string, max: number): JoinedText {
  const rest = ENDS_IN_PLACEHOLDER.test(stored) ? more.replace(TOKEN_HEAD, '') : more;
  const r = redactSecrets(stored + rest);
  return { text: cap(r.text, max), redactions: r.count, kinds: r.kinds };
}
