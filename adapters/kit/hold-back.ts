/**
 * The unfinished tail of an assistant message that a later harvest may continue. A pass can end
 * between two parts of one message (the daemon ran while the agent was still writing it); the
 * stored part is then redacted on its own, and a secret cut by the split is only a head that no
 * rule recognises ("Push with ghp_Zq8Lm3V"). Until the join, that head would sit in the db and
 * its WAL in clear. So the trailing token of such a part is stored redacted when it could be the
 * head of a secret: it starts with a provider's prefix, follows a URL's `user:`, `Bearer`, `Basic`
 * or a secret's key name, or already has the shape of a bare key. (Checks of the context, not
 * probes with made-up rests: this runs on the last text of every pass.) The join drops the continuation's rest of that token (see
 * `continue-text.ts`), so the whole secret never reaches the disk. A message that is not
 * continued keeps the placeholder: a false positive at worst, never a leak.
 *
 * Ordinary endings (`tests.`, `file:`, `` `npm test` ``, words, paths without digits) are kept.
 */
import { hintsIn, KEY_HINT, redactNamedSecrets } from '../../src/core/redact.js';
import { PROVIDER_RULES } from '../../src/core/secret-rules.js';

/** The kind of a held-back head no named rule claims (a bare key's head). */
const BARE_KIND = 'bare-key';
/** How much text before the tail the key-name and URL rules get to see. */
const CONTEXT = 120;
/** A plausible rest of a secret (free of every rule's hint), for the key-name probe. */
const FILLER = 'Xk3mP9qR2sT7vW4yZ8bBcDEf1Gh2Ij3Kl4Mn5Op6 ';
/** Where a secret's value starts inside a token: after a key's `=` / `:`, a URL's `//`, a quote or a bracket. */
const VALUE_START = /.*[=:/"'`([{<,]/;
/** A bare key's head: a trailing run of 8+ base64 characters (with upper case, lower case and a digit). */
const BARE_HEAD = /[A-Za-z0-9/+]{8,}={0,2}$/;
/** Rules found by a name or a URL around the secret, not by a prefix of it (their context is checked below). */
const NAMED_KINDS = new Set(['private-key', 'aws-secret-key', 'azure-connection-string', 'azure-sas-signature', 'url-password', 'bearer-token', 'basic-auth', 'slack-webhook', 'discord-webhook', 'mailchimp-api-key']);
/** A provider prefix at the start of a value: `ghp_`, `sk-ant-`, `AKIA`, `SG.`… */
const PREFIXES = PROVIDER_RULES.filter((r) => !NAMED_KINDS.has(r.kind)).map((r) => ({ kind: r.kind, re: new RegExp(`^(?:${r.hint})`) }));
/** A value that ends the text after its context: a URL's `user:`, `Bearer `, `Basic `, `-u user:`. */
const CONTEXTS: Array<{ kind: string; re: RegExp }> = [
  { kind: 'url-password', re: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@"'<>]{0,100}:[^\s/"'<>]*$/i },
  { kind: 'bearer-token', re: /\bBearer\s+[A-Za-z0-9._~+/-]*$/ },
  { kind: 'basic-auth', re: /\bAuthorization["']?\s*[:=]\s*["']?Basic\s+[A-Za-z0-9+/]*$/i },
  { kind: 'basic-auth', re: /\s(?:-u|--user)\s+["']?[^\s:"']{1,64}:[^\s"']*$/ },
  { kind: 'azure-sas-signature', re: /[?&]sig=[A-Za-z0-9%+/=]*$/ },
  { kind: 'telegram-bot-token', re: /\b\d{5,16}:AA[0-9A-Za-z_-]*$/ },
];

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
  // a provider's prefix, with some of the secret after it
  for (const p of PREFIXES) {
    const m = p.re.exec(value);
    if (m && /[A-Z0-9]/.test(value.slice(m[0].length))) return p.kind;
  }
  const head = before + value;
  for (const c of CONTEXTS) if (c.re.test(head)) return c.kind;
  // a key name before it (`DB_PASSWORD=hun`): the rule itself decides, given a plausible rest
  if (hintsIn(head + FILLER) & KEY_HINT) {
    const probe = redactNamedSecrets(head + FILLER);
    if (probe.count && firstDifference(head, probe.text) < head.length) return probe.kinds[0] ?? BARE_KIND;
  }
  return null;
}

/** Index of the first char where `probed` differs from `head` (a redaction starting in the head). */
function firstDifference(head: string, probed: string): number {
  let i = 0;
  while (i < head.length && head.charCodeAt(i) === probed.charCodeAt(i)) i++;
  return i;
}
