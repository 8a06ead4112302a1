/**
 * The unfinished tail of an assistant message that a later harvest may continue. A pass can end
 * between two parts of one message (the daemon ran while the agent was still writing it); the
 * stored part is then redacted on its own, and a secret cut by the split is only a head that no
 * rule recognises ("Push with ghp_Zq8Lm3V"). Until the join, that head would sit in the db and
 * its WAL in clear. So the trailing token of such a part is stored redacted when it could be the
 * head of a secret: when some continuation would make a rule fire on it, or when it already has
 * the shape of a bare key. The join drops the continuation's rest of that token (see
 * `continue-text.ts`), so the whole secret never reaches the disk. A message that is not
 * continued keeps the placeholder: a false positive at worst, never a leak.
 *
 * Ordinary endings (`tests.`, `file:`, `` `npm test` ``, words, paths without digits) are kept.
 */
import { mayHoldSecret, redactNamedSecrets } from '../../src/core/redact.js';
import { PROVIDER_RULES } from '../../src/core/secret-rules.js';

/** The kind of a held-back head no named rule claims (a bare key's head). */
const BARE_KIND = 'bare-key';

/** How much text before the tail the key-name and URL rules get to see. */
const CONTEXT = 120;
/** Plausible rests of a secret (each free of every rule's hint): mixed case, upper case, hex. */
const FILLERS = [
  'Xk3mP9qR2sT7vW4yZ8bBcDEf1Gh2Ij3Kl4Mn5Op6Qr7St8Uv9Wx0Yz1Ab2Cd3Ef4Gh5Ij6Kl7Mn8Op9Qr0St1Uv2Wx3Yz4',
  'Q7RZ4N2LXW5K3M8PQ7RZ4N2LXW5K3M8PQ7RZ4N2LXW5K3M8PQ7RZ4N2LXW5K3M8PQ7RZ4N2LXW5K3M8PQ7RZ4N2LXW5K',
  '9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1',
];
/** …then the end of the token: a space, or a URL's host after a password. */
const ENDINGS = [' ', '@db.example.internal/x '];
/** Where a secret's value starts inside a token: after a key's `=` / `:` or a URL's `//`. */
const VALUE_START = /.*[=:/]/;
/** A bare key's head: a trailing run of 8+ base64 characters (with upper case, lower case and a digit). */
const BARE_HEAD = /[A-Za-z0-9/+]{8,}={0,2}$/;
/** Each provider rule's hint, anchored nowhere: a value holding one may be that provider's key. */
const HINTS = PROVIDER_RULES.map((r) => ({ kind: r.kind, re: new RegExp(r.hint) }));

export interface HeldText {
  text: string;
  /** the kind of the placeholder that replaced a held-back head, or null */
  held: string | null;
}

/**
 * `redacted` is a text after `redactSecrets`; returns it with a trailing secret head (if any)
 * replaced by a placeholder of the kind the head would have. Only the value part of the token is held
 * back (`DB_PASSWORD=` and `postgres://admin:` stay readable).
 */
export function holdBackTail(redacted: string): HeldText {
  const token = /\S+$/.exec(redacted);
  if (!token) return { text: redacted, held: null };
  const tail = token[0];
  // a head already redacted whole needs nothing more (the join handles a trailing placeholder)
  if (/\[REDACTED:[a-z0-9-]+\]$/.test(tail)) return { text: redacted, held: null };
  const valueAt = token.index + (VALUE_START.exec(tail)?.[0].length ?? 0);
  const value = redacted.slice(valueAt);
  const kind = value ? namedHeadKind(redacted.slice(Math.max(0, valueAt - CONTEXT), valueAt), value) : null;
  if (kind) return { text: `${redacted.slice(0, valueAt)}[REDACTED:${kind}]`, held: kind };
  // a bare key (no name, no prefix) is base64, which may hold `/`: its head is the whole run
  const bare = BARE_HEAD.exec(tail);
  if (bare && /[A-Z]/.test(bare[0]) && /[a-z]/.test(bare[0]) && /\d/.test(bare[0])) {
    return { text: `${redacted.slice(0, token.index + bare.index)}[REDACTED:${BARE_KIND}]`, held: BARE_KIND };
  }
  return { text: redacted, held: null };
}

/** The kind of named or prefixed secret `value` (after `before`) could be the head of, or null. */
function namedHeadKind(before: string, value: string): string | null {
  const head = before + value;
  // cheap exit for most tails: no rule's hint even with a long rest added
  if (!mayHoldSecret(head + FILLERS[0] + ENDINGS[1])) return null;
  // rules with exact lengths need a rest of the right length and alphabet: try each
  for (const filler of FILLERS) {
    for (const ending of ENDINGS) {
      for (let n = 1; n <= filler.length; n++) {
        const probe = redactNamedSecrets(head + filler.slice(0, n) + ending);
        if (probe.count && firstDifference(head, probe.text) < head.length) return probe.kinds[0] ?? BARE_KIND;
      }
    }
  }
  // a provider prefix with more than itself after it (`SG.Xk3m…`: a shape no filler completes)
  for (const h of HINTS) {
    const m = h.re.exec(value);
    if (m && /[A-Z0-9]/.test(value.slice(m.index + m[0].length))) return h.kind;
  }
  return null;
}

/** Index of the first char where `probed` differs from `head` (a redaction starting in the head). */
function firstDifference(head: string, probed: string): number {
  let i = 0;
  while (i < head.length && head.charCodeAt(i) === probed.charCodeAt(i)) i++;
  return i;
}
