/**
 * An assistant message whose parts were split across two harvests is stored as one event: the
 * later part is joined to the stored text, and the join is redacted as a whole, so a secret (or a
 * `KEY=` name and its value) split across the two reads is still caught. When the stored text ends
 * in a placeholder (a secret redacted whole, or a head held back by `hold-back.ts`), the
 * continuation's leading token characters are the rest of that secret.
 */
import { redactSecrets } from '../core/redact.js';
import { cap } from '../../adapters/kit/session-builder.js';
import { holdBackTail } from '../../adapters/kit/hold-back.js';

const ENDS_IN_PLACEHOLDER = /\[REDACTED:[a-z0-9-]+\]$/;
/** The rest of the secret: up to a space, a quote, a bracket, a separator or a URL's host. */
const SECRET_REST = /^[^\s"'`<>@,;()[\]{}]+/;

export interface JoinedText {
  text: string;
  redactions: number;
  kinds: string[];
}

/** `open`: the message may continue in a later read again, so the join's own tail is held back. */
export function joinContinuation(stored: string, more: string, max: number, open = false): JoinedText {
  const rest = ENDS_IN_PLACEHOLDER.test(stored) ? more.replace(SECRET_REST, '') : more;
  const r = redactSecrets(stored + rest);
  const text = open && r.text.length <= max ? holdBackTail(r.text).text : r.text;
  return { text: cap(text, max), redactions: r.count, kinds: r.kinds };
}
