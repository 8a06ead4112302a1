/**
 * Redaction of a text that is about to be cut to its head (or head and tail): only the parts the
 * cut keeps are redacted, each with enough around it that every secret reaching into a kept part
 * is matched exactly as in the whole text. Tool output is most of a transcript's text, and its cap
 * keeps a few hundred of its (up to ~1,000) characters.
 *
 * Why the windows are enough: every rule's secret is one token (no whitespace), except a private
 * key block (such a text is redacted whole), and every rule decides from the match alone (a
 * rule's hint holds in each of its matches, see `secret-rules.ts`). The context a rule needs
 * (`KEY=`, `Bearer `, `scheme://user:`) comes before the secret, on its line or, across blank
 * lines, on the last line before them.
 *  - the head window runs to the first whitespace after the kept head: a token reaching into the
 *    head ends there, and its context is before it;
 *  - the tail window starts at the start of the line before the kept tail's first line (and further
 *    back across blank lines): a token reaching into the tail starts after that, and so does its
 *    context; where placeholders shrink the tail, its first line is taken that much earlier.
 * When a window cannot be placed (no whitespace nearby, overlapping windows, or placeholders
 * shrank a kept part below its size) the whole text is redacted.
 */
import { redactSecrets, type Redaction } from '../../src/core/redact.js';

/** How far past a cut a window may reach for its boundary before the whole text is redacted. */
const REACH = 2048;

const isSpace = (c: number) => c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 11;

/** The window end for a kept head of `keep` chars: just past the first whitespace at or after it, or -1. */
function headWindowEnd(text: string, keep: number): number {
  const limit = Math.min(text.length, keep + REACH);
  for (let i = keep; i < limit; i++) if (isSpace(text.charCodeAt(i))) return i + 1;
  return -1;
}

/** Start of the line holding `pos`. */
const lineStart = (text: string, pos: number) => (pos <= 0 ? 0 : text.lastIndexOf('\n', pos - 1) + 1);

function blankLine(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isSpace(text.charCodeAt(i))) return false;
  return true;
}

/** The window start for a kept tail from `from`: the start of the line before its first line (back over blank lines), or -1. */
function tailWindowStart(text: string, from: number): number {
  let line = lineStart(text, from);
  let prev = lineStart(text, line - 1);
  // a `Bearer` and its token on lines apart: the window reaches the last non-blank line before
  while (prev > 0 && blankLine(text, prev, line)) {
    line = prev;
    prev = lineStart(text, prev - 1);
  }
  return prev < from - REACH ? -1 : prev;
}

/**
 * The redacted tail window whose last `tail` chars are those of the whole redacted text, or null.
 * Placeholders that shrink a secret inside the kept tail pull the kept tail's start back into the
 * text before it (a 40-char token becomes a 20-char placeholder): the window must then cover the
 * context of what the shrunk tail reaches, so it starts from `text.length - tail - shrink`, and
 * again until the shrink it redacts no longer moves that start. (The shrink of the whole window is
 * at least the shrink past the kept tail's start, so the start it gives is early enough.)
 */
function tailWindow(text: string, tail: number, headEnd: number): Redaction | null {
  let from = text.length - tail;
  for (let round = 0; round < 4; round++) {
    const start = tailWindowStart(text, from);
    if (start < 0 || start < headEnd) return null;
    const end = redactSecrets(text.slice(start));
    const shrink = text.length - start - end.text.length;
    const needed = text.length - tail - shrink;
    if (from <= needed) return end;
    from = needed;
  }
  return null;
}

export interface CutRedaction extends Redaction {
  /** the redacted, cut text: what cutting the whole redacted text gives */
  cut: string;
}

/**
 * `text` redacted and cut to `max` chars: its head, or (`ends`) its head and a quarter of `max` of
 * its tail, as `capEnds` / `cap` of the whole redacted text would be; `count` / `kinds` tally the
 * secrets in the windows (what is cut away is neither stored nor counted). `more` renders the
 * "N more chars" marker of a head-only cut. Null when the whole text is to be redacted instead.
 */
export function redactForCut(text: string, max: number, ends: boolean, more: (n: number) => string): CutRedaction | null {
  // (short texts: the windows would cover most of it anyway)
  if (text.length < 2 * max || text.length < max + 400) return null;
  if (text.includes('PRIVATE KEY')) return null; // the one shape that spans lines
  const tail = ends ? Math.floor(max / 4) : 0;
  const headKeep = max - tail;
  const headEnd = headWindowEnd(text, headKeep);
  if (headEnd < 0) return null;
  const head = redactSecrets(text.slice(0, headEnd));
  if (head.text.length < headKeep) return null; // placeholders shrank it: the head needs more text
  if (!ends) {
    const total = head.text.length + (text.length - headEnd); // (as if nothing past the window changed)
    if (total <= max) return null;
    return { text: head.text, count: head.count, kinds: head.kinds, cut: `${head.text.slice(0, max)}${more(total - max)}` };
  }
  const end = tailWindow(text, tail, headEnd);
  if (!end || end.text.length < tail) return null;
  const kinds = end.count ? [...new Set([...head.kinds, ...end.kinds])] : head.kinds;
  return { text: head.text, count: head.count + end.count, kinds, cut: `${head.text.slice(0, headKeep)}\n[…]\n${end.text.slice(end.text.length - tail)}` };
}
