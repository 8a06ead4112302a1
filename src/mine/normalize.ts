/**
 * Intent normalization. Two outputs per prompt:
 * - `clean`: what the user asked, readable (IDE/agent envelopes, code blocks and greetings removed);
 *   used to write task intents.
 * - `key`: a lower-cased form with the incidental detail stripped (paths, numbers, ids, URLs,
 *   code), so two asks of the same thing on different files look alike; used for similarity.
 */
import { envelopeTags } from '../../adapters/index.js';
import { memoizeText } from './memo.js';

/**
 * Envelope blocks agents and IDEs wrap around what the user typed; their content is not the ask:
 * every agent's `vocabulary.envelopeTags` in the agent registry.
 */
const ENVELOPE_TAGS = envelopeTags();

/** Wrappers whose content IS the ask (VS Code Copilot, Cursor). */
const REQUEST_TAGS = ['userRequest', 'user_query', 'user_request'];

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ENVELOPE_RE = new RegExp(`<(${ENVELOPE_TAGS.map(escapeRe).join('|')})(\\s[^>]*)?>[\\s\\S]*?</\\1>`, 'g');
const UNTERMINATED_RE = new RegExp(`<(${ENVELOPE_TAGS.map(escapeRe).join('|')})(\\s[^>]*)?>[\\s\\S]*$`);
const REQUEST_RE = new RegExp(`<(${REQUEST_TAGS.join('|')})>([\\s\\S]*?)</\\1>`);
const FENCE_RE = /(^|\n)[ \t]*(```|~~~)[^\n]*\n[\s\S]*?(\n[ \t]*\2[ \t]*(?=\n|$)|$)/g;
const GREETING_RE =
  /^(?:(?:hi|hello|hey|hiya|yo|howdy|good (?:morning|afternoon|evening)|greetings)(?:\s+(?:there|claude|codex|copilot|team|all))?[\s,!.:;-]*)+/i;
const POLITE_RE = /^(?:(?:ok(?:ay)?|so|alright|please|pls|plz)[\s,!.:;-]+)+/i;
const TRAILING_THANKS_RE = /[\s,.!]*(?:thanks|thank you|thx|ty|cheers)(?:\s+(?:a lot|so much|in advance))?[\s!.]*$/i;

export interface NormalizedPrompt {
  clean: string;
  key: string;
  codeBlocks: string[];
}

/** Removes envelopes, returning the user's own words (or '' when nothing of theirs is left). */
export function stripEnvelopes(text: string): string {
  if (!text.includes('<') && !text.includes('# AGENTS.md')) return text;
  let t = text;
  const req = REQUEST_RE.exec(t);
  if (req) t = req[2];
  t = t.replace(ENVELOPE_RE, ' ');
  // Codex injects AGENTS.md as a heading block up to its </INSTRUCTIONS> (already removed above)
  t = t.replace(/^# AGENTS\.md instructions for [^\n]*\n?/gm, '');
  // unterminated envelope opener (truncated transcript): drop from it to the end
  t = t.replace(UNTERMINATED_RE, ' ');
  return t;
}

export function extractCodeBlocks(text: string): { text: string; blocks: string[] } {
  const blocks: string[] = [];
  if (!text.includes('```') && !text.includes('~~~')) return { text, blocks };
  const rest = text.replace(FENCE_RE, (m, lead: string) => {
    blocks.push(m.trim());
    return lead + ' ';
  });
  return { text: rest, blocks };
}

export function stripGreetings(text: string): string {
  let t = text.trim();
  for (let i = 0; i < 3; i++) {
    const before = t;
    t = t.replace(GREETING_RE, '').replace(POLITE_RE, '').trim();
    if (t === before) break;
  }
  t = t.replace(TRAILING_THANKS_RE, '').trim();
  return t;
}

/**
 * Keys of recently seen texts: a mining run computes the key of one ask several times (clustering,
 * reaction classification, family synthesis), and re-synthesizing a big family re-reads the same
 * stored prompts. Bounded; cleared when full.
 */
const memoKey = memoizeText((clean) => computeKey(clean));

/** Replaces incidental detail with nothing: what differs between two asks of the same thing. */
export function keyOf(clean: string): string {
  return memoKey(clean);
}

function computeKey(clean: string): string {
  let t = clean.replace(/`([^`\n]*)`/g, ' $1 '); // inline code: keep content, apply the rules below
  // code identifiers (parseAmount, tenant_id) name the incidental thing worked on, not the ask
  t = t.replace(/(^|[^\w.])[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*(?![\w.])/g, '$1 ');
  t = t.replace(/(^|[^\w.])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w.])/g, '$1 ');
  t = t.toLowerCase();
  // (each rule runs only when its trigger character is present: this runs on every prompt)
  if (t.includes('://')) t = t.replace(/\bhttps?:\/\/\S+/g, ' ');
  if (t.includes('@')) t = t.replace(/\b[\w.+-]+@[\w-]+\.[\w.]+\b/g, ' '); // emails
  const digits = /\d/.test(t);
  if (digits) t = t.replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, ' '); // uuids
  // paths: anything with a slash or backslash (src/a.ts, ./x, ~/y, C:\z); bare file names keep their stem
  if (t.includes('/') || t.includes('\\')) t = t.replace(/(?:[a-z]:)?[~.\w@-]*[/\\][^\s'"`),;]*/g, ' ');
  t = t.replace(/\b([a-z_][\w-]*)\.(?:[a-z]{1,5})\b/g, (m, stem: string) => (/^(it|vi|e|i|etc)$/.test(stem) ? m : stem));
  if (digits) {
    t = t.replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/g, ' '); // hashes / hex ids
    t = t.replace(/\b[a-z]+-\d+\b/g, ' '); // ticket ids (ABC-123)
    t = t.replace(/#\d+/g, ' ');
    t = t.replace(/\bv?\d+(?:[.,:_-]\d+)*(?:%|px|ms|s|kb|mb|gb)?\b/g, ' '); // numbers, versions, sizes
  }
  t = t.replace(/[^\p{L}\p{N}._\s-]+/gu, ' ');
  return t.replace(/\s+/g, ' ').trim();
}

export function normalizePrompt(text: string): NormalizedPrompt {
  const noEnvelope = stripEnvelopes(text);
  const { text: noCode, blocks } = extractCodeBlocks(noEnvelope);
  const clean = stripGreetings(noCode.replace(/[ \t]+/g, ' ').replace(/\s*\n\s*/g, '\n')).replace(/\n{3,}/g, '\n\n');
  return { clean, key: keyOf(clean), codeBlocks: blocks };
}
