/**
 * Secret redaction, applied before anything is stored, cut or sent (at ingest, on imported tasks,
 * on every outbound model payload). Each rule replaces the secret only (a key name or URL around
 * it stays) with a typed placeholder `[REDACTED:<kind>]`. Three families:
 *  - provider shapes with a known prefix (data in `secret-rules.ts`, adapted from gitleaks);
 *  - key names: `KEY=value`, `key: value` (YAML, kubectl, JSON, kwargs), where a password-like key
 *    redacts any real value and a token-like key redacts a value with some entropy;
 *  - bare high-entropy keys with no name and no prefix (AWS secret keys, Azure storage keys).
 * Look-alikes (git SHAs, UUIDs, checksums, npm integrity hashes, base64 images, `${VAR}`
 * references, placeholders) are left alone.
 */
import { PROVIDER_RULES, type SecretRule } from './secret-rules.js';

const PLACEHOLDER = /^\[REDACTED:/;

export interface Redaction {
  text: string;
  count: number;
  kinds: string[];
}

/**
 * `name <sep> value` where the name carries a secret word. The name is matched from a word start
 * so the lookbehind keeps the scan linear; the separator stays on one line (a YAML key with an
 * empty value does not swallow the next line).
 */
const KEY_VALUE =
  /(?<![A-Za-z0-9_])((?:export[ \t]+)?[A-Za-z0-9_.-]{0,40}?(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|private[_-]?key|access[_-]?key|auth[_-]?key|signing[_-]?key|encryption[_-]?key|credentials?)[A-Za-z0-9_.-]{0,40}["']?[ \t]*[:=][ \t]*)(["']?)([^\s"'`,;)}\]]{1,400})/gi;
const KEY_VALUE_HINT = /(?:pass|pwd|secret|token|key|credential)[A-Za-z0-9_.-]*["']?[ \t]*[:=]/i;

/** Names that hold a setting about a secret, not the secret (`PASSWORD_MIN_LENGTH`, `SECRET_NAME`). */
const SETTING_SUFFIX =
  /(?:^|[_.-])(?:name|names|length|len|limit|limits|count|file|path|dir|type|env|header|url|uri|id|ids|endpoint|mode|ttl|expiry|expires|size|var|field|policy|prompt|hint|label|max|min|enabled|required|format|version|source|ref|kind|rotation)$/i;
const SETTING_SUFFIX_CAMEL = /[a-z0-9](?:Name|Length|Limit|Count|File|Path|Dir|Type|Header|Url|Id|Endpoint|Mode|Size|Field|Policy|Prompt|Label|Max|Min|Enabled|Required|Format|Version|Source|Ref|Kind)$/;
const PASSWORD_NAME = /pass(?:word|wd|phrase)?$|pwd$|secret$|^secret|_secret|secret_|Secret|credentials?$/i;
const PLACEHOLDER_VALUE =
  /^(?:\$|<|\{|%|\[REDACTED|process\.env|os\.environ|env\(|getenv|your[-_ ]|xxx|\*{3}|\.{3}|(?:null|nil|none|undefined|true|false|yes|no|on|off|required|optional|string|str|number|int|bool|boolean|any|bytes|text|secret|password|token|redacted|hidden|placeholder|example|empty|changeme|todo|tbd|n\/a)$)/i;

/** Bare keys with no name: 40-char AWS secret keys and 88-char Azure storage keys (base64). */
const BARE_KEY = /(?<![A-Za-z0-9/+=_.~-])(?:[A-Za-z0-9/+]{40}|[A-Za-z0-9/+]{86}==)(?![A-Za-z0-9/+=_~-])/g;
/** A bare key candidate after these is a digest or inline data, not a credential. */
const DIGEST_BEFORE = /(?:sha\d{1,3}[-:]|base64,|sha\d{1,3}=|integrity["']?\s*[:=]\s*["']?)$/i;

const RULE_HINTS = PROVIDER_RULES.map((r) => new RegExp(r.hint));
/** Every named or prefixed shape hits one of these: most texts have none, and then no rule runs. */
const ANY_HINT = new RegExp(PROVIDER_RULES.map((r) => r.hint).join('|'));

/**
 * The first two characters every hint can start with (its character classes written out; a test
 * generates strings from each hint and checks this list). As one regex the union of ~45 unrelated
 * hints tried every alternative at every position: it was the largest part of redacting a
 * transcript. A scan of char pairs against a table finds the few positions where a hint could
 * start, and the union is only tried there (sticky): same answer, ~3x less time.
 */
const PROVIDER_STARTS = [
  'PR', 'sk', 'T3', 'AK', 'AS', 'AB', 'AC', 'A3', 'Se', 'se', 'SE', 'gh', 'gi', 'gl', 'xo', 'ho', 'di', 'rk', 'AI', 'GO', 'Ac',
  'Sh', 'Pa', 'pa', 'Pw', 'pw', 'si', 'SK', 'SG', 'ke', '-u', 'hf', 'np', 'py', 'do', 'sh', 'da', 'dp', 'li', 'NR', 'PM', 'AT',
  'AG', 'sq', ':A', 'ey', ':/', 'Be', 'Ba', 'ba', '--', ...'0123456789'.split('').map((d) => `${d}Q`),
  // the hints of case-insensitive rules, in every case
  'sE', 'ac', 'aC', 'SH', 'sH', 'PA', 'pA', 'PW', 'pW', 'BA', 'bA',
];
/** …and those of the key-name hint (case-insensitive: every case of each pair). */
const KEY_STARTS = ['pa', 'pw', 'se', 'to', 'ke', 'cr'].flatMap((p) => [p, p.toUpperCase(), p[0].toUpperCase() + p[1], p[0] + p[1].toUpperCase()]);
const PROVIDER_START = 1;
const KEY_START = 2;
/** The `hintsIn` bit of the key-name hint. */
export const KEY_HINT = KEY_START;
const STARTS = new Uint8Array(1 << 14);
for (const p of PROVIDER_STARTS) STARTS[(p.charCodeAt(0) << 7) | p.charCodeAt(1)] |= PROVIDER_START;
for (const p of KEY_STARTS) STARTS[(p.charCodeAt(0) << 7) | p.charCodeAt(1)] |= KEY_START;
const ANY_HINT_AT = new RegExp(ANY_HINT.source, 'y');
const KEY_VALUE_HINT_AT = new RegExp(KEY_VALUE_HINT.source, 'iy');

/** Which hint families occur in `text`: PROVIDER_START and/or KEY_START bits. */
export function hintsIn(text: string): number {
  let found = 0;
  const last = text.length - 1;
  let prev = text.charCodeAt(0);
  for (let i = 0; i < last; i++) {
    const c = text.charCodeAt(i + 1);
    if (prev < 128 && c < 128) {
      const bits = STARTS[(prev << 7) | c] & ~found;
      if (bits !== 0) {
        if (bits & PROVIDER_START) {
          ANY_HINT_AT.lastIndex = i;
          if (ANY_HINT_AT.test(text)) found |= PROVIDER_START;
        }
        if (bits & KEY_START) {
          KEY_VALUE_HINT_AT.lastIndex = i;
          if (KEY_VALUE_HINT_AT.test(text)) found |= KEY_START;
        }
        if (found === (PROVIDER_START | KEY_START)) return found;
      }
    }
    prev = c;
  }
  return found;
}

/** The plain-regex form of `hintsIn` (the reference the tests compare it with). */
export function hintsInByRegex(text: string): number {
  return (ANY_HINT.test(text) ? PROVIDER_START : 0) | (KEY_VALUE_HINT.test(text) ? KEY_START : 0);
}


export function redactSecrets(text: string): Redaction {
  return redactWith(text, true);
}

/** The named, prefixed and URL rules only: no bare-key rule (a probe with a made-up rest would trip it). */
export function redactNamedSecrets(text: string): Redaction {
  return redactWith(text, false);
}

/** The kinds of a text with nothing to redact (shared: callers only read it). */
const NO_KINDS: string[] = Object.freeze([]) as unknown as string[];

function redactWith(text: string, bareKeys: boolean): Redaction {
  // (a provider rule's placeholder cannot create a key-name hint: `]` follows its kind)
  const hints = hintsIn(text);
  // most texts: no hint and no bare-key run, so no rule can fire (and nothing is allocated)
  if (hints === 0 && (!bareKeys || !hasBase64Run(text, 40))) return { text, count: 0, kinds: NO_KINDS };
  const state = { count: 0, kinds: new Set<string>() };
  let out = text;
  if (hints & PROVIDER_START) {
    for (let i = 0; i < PROVIDER_RULES.length; i++) {
      if (!RULE_HINTS[i].test(out)) continue;
      out = applyRule(out, PROVIDER_RULES[i], state);
    }
  }
  if (hints & KEY_START) out = redactKeyValues(out, state);
  if (bareKeys) out = redactBareKeys(out, state);
  return { text: out, count: state.count, kinds: [...state.kinds] };
}

type Tally = { count: number; kinds: Set<string> };

function placeholder(kind: string, t: Tally): string {
  t.count++;
  t.kinds.add(kind);
  return `[REDACTED:${kind}]`;
}

/** A rule's regex with match indices (`d`), for replacing only its secret group. */
const indexedRegexes = new WeakMap<RegExp, RegExp>();
function indexed(re: RegExp): RegExp {
  let r = indexedRegexes.get(re);
  if (!r) indexedRegexes.set(re, (r = new RegExp(re.source, re.flags.includes('d') ? re.flags : `${re.flags}d`)));
  return r;
}

function applyRule(text: string, rule: SecretRule, t: Tally): string {
  const g = rule.group ?? 0;
  if (g === 0) {
    rule.re.lastIndex = 0;
    return text.replace(rule.re, (whole: string) => (PLACEHOLDER.test(whole) ? whole : placeholder(rule.kind, t)));
  }
  // only the secret's own span is replaced: the text around it in the match (a key's `=`, a
  // webhook's URL) stays as it was (rebuilding the match from its groups dropped what lay between)
  const re = indexed(rule.re);
  re.lastIndex = 0;
  let out = '';
  let last = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[0] === '') re.lastIndex++;
    const span = m.indices?.[g];
    const secret = m[g];
    if (!span || !secret || PLACEHOLDER.test(secret)) continue;
    out += text.slice(last, span[0]) + placeholder(rule.kind, t);
    last = span[1];
  }
  return out === '' ? text : out + text.slice(last);
}

function redactKeyValues(text: string, t: Tally): string {
  KEY_VALUE.lastIndex = 0;
  return text.replace(KEY_VALUE, (whole: string, lead: string, quote: string, value: string) => {
    const name = lead.replace(/^export[ \t]+/, '').replace(/["']?[ \t]*[:=][ \t]*$/, '');
    if (SETTING_SUFFIX.test(name) || SETTING_SUFFIX_CAMEL.test(name)) return whole;
    let v = value;
    if (quote && v.endsWith(quote)) v = v.slice(0, -1);
    if (!v || PLACEHOLDER.test(v) || PLACEHOLDER_VALUE.test(v)) return whole;
    if (/^[A-Za-z_$][\w$]*(?:\.[\w$]+)+$/.test(v) && !/\d/.test(v)) return whole; // `form.password`, `this.token`
    if (v.startsWith('/') || v.startsWith('./') || v.startsWith('~/')) return whole; // PWD=/home/…, key files
    if (/^https?:\/\//.test(v)) return whole; // a URL (its password, if any, has its own rule)
    const passwordLike = PASSWORD_NAME.test(name);
    if (/^[a-z_$][\w$]*$/.test(v) && /[A-Z_]/.test(v.slice(1)) && /pass|pwd|secret|token|key/i.test(v)) return whole; // `password: userPassword`
    if (passwordLike ? v.length < 3 || /^\d{1,3}$/.test(v) : !looksSecret(v)) return whole;
    if (!passwordLike && v.length < 8) return whole;
    if (!passwordLike && name === v) return whole;
    return `${lead}${quote}${placeholder('env-secret', t)}${value.slice(v.length)}`;
  });
}

/** A token-like value: some entropy; plain words, numbers, identifiers and paths are not secrets. */
function looksSecret(v: string): boolean {
  if (/^\d+$/.test(v)) return false;
  if (/^[a-z]+(?:[-_][a-z]+)*$/.test(v)) return false; // "changeme", "your-api-key"
  if (/^[A-Z][a-z]+(?:[A-Z][a-z]+)*$/.test(v)) return false; // a type name: `token: AccessToken`
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((r) => r.test(v)).length;
  return classes >= 2;
}

/** The base64 alphabet a bare key is made of, as a lookup table over char codes. */
const BASE64_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+') BASE64_CHAR[c.charCodeAt(0)] = 1;
const isBase64Char = (c: number) => c < 128 && BASE64_CHAR[c] === 1;

/**
 * Whether `text` holds a run of at least `len` base64 characters: the precondition of a bare key.
 * It probes the last char of each window and skips a whole window on a miss, so ordinary text
 * (words, paths, code) costs a fraction of a char test per char instead of the regex's per-start
 * attempts (that regex was the most expensive part of redacting a transcript).
 */
export function hasBase64Run(text: string, len: number): boolean {
  const n = text.length;
  let i = 0;
  while (i + len <= n) {
    let j = i + len - 1;
    if (!isBase64Char(text.charCodeAt(j))) {
      i = j + 1;
      continue;
    }
    while (j > i && isBase64Char(text.charCodeAt(j - 1))) j--;
    if (j === i) return true;
    i = j;
  }
  return false;
}

function redactBareKeys(text: string, t: Tally): string {
  if (!hasBase64Run(text, 40)) return text;
  BARE_KEY.lastIndex = 0;
  return text.replace(BARE_KEY, (m: string, offset: number) => {
    if (!/[A-Z]/.test(m) || !/[a-z]/.test(m) || !/\d/.test(m)) return m; // hex digests, words
    if (DIGEST_BEFORE.test(text.slice(Math.max(0, offset - 24), offset))) return m;
    if (shannon(m) < (m.length === 40 ? 4.2 : 4.8)) return m;
    return placeholder(m.length === 40 ? 'aws-secret-key' : 'azure-storage-key', t);
  });
}

/** Bits per character: random base64 of this length scores ~4.6 (40 chars) / ~5.4 (88 chars). */
function shannon(s: string): number {
  const freq = new Map<string, number>();
  for (const c of s) freq.set(c, (freq.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of freq.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** A JSON-like value with every string redacted (payloads, parser state, imported task files). */
export function redactValue<T>(v: T, onCount?: (n: number) => void): T {
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') {
      if (x.length < 3) return x;
      const r = redactSecrets(x);
      if (r.count) onCount?.(r.count);
      return r.text;
    }
    if (Array.isArray(x)) return x.map(walk);
    if (x !== null && typeof x === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, y] of Object.entries(x)) out[k] = walk(y);
      return out;
    }
    return x;
  };
  return walk(v) as T;
}
