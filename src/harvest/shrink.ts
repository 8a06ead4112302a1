/**
 * Avoid decoding what we do not need: tool outputs are most of a transcript's bytes, and we keep
 * only the head and tail of each. `shrinkLongStrings` cuts every JSON string value longer than
 * `threshold` chars down to its head and tail *before* JSON.parse, using native `indexOf` to find
 * string ends, so the structure (keys, flags, ids) parses exactly as before at a fraction of the cost.
 */

/** If `pos` falls inside an escape sequence (`\n`, `\"`, `\uXXXX`) that starts after `floor`, its start. */
function escapeStartCovering(s: string, pos: number, floor: number): number {
  for (let b = pos - 1; b >= Math.max(floor, pos - 6); b--) {
    if (s.charCodeAt(b) !== 92) continue;
    let run = 0;
    for (let k = b; k >= floor && s.charCodeAt(k) === 92; k--) run++;
    if (run % 2 === 0) return -1; // `\\` pair: b is an escaped backslash, not an escape start
    const len = s.charCodeAt(b + 1) === 117 /* u */ ? 6 : 2;
    return b + len > pos ? b : -1;
  }
  return -1;
}

/** Index of the closing quote of the string whose opening quote is at `q`, or -1. */
function stringEnd(s: string, q: number): number {
  let e = q + 1;
  for (;;) {
    e = s.indexOf('"', e);
    if (e < 0) return -1;
    let bs = 0;
    for (let k = e - 1; s.charCodeAt(k) === 92; k--) bs++;
    if (bs % 2 === 0) return e;
    e++;
  }
}

export function shrinkLongStrings(line: string, threshold: number, head: number, tail: number): string {
  if (line.length <= threshold) return line;
  return shrinkWith(line, threshold, head, tail, (a, b) => line.slice(a, b), (p) => p) ?? line;
}

/**
 * The same cut on raw UTF-8 bytes, so the long strings are never decoded: `view` is the line's
 * bytes as a latin1 string (one char per byte, found by `indexOf` as fast as on bytes), cut points
 * are moved off UTF-8 continuation bytes, and only the kept pieces are decoded. Head and tail
 * are counted in bytes (for ASCII text the result equals `shrinkLongStrings` of the decoded line).
 */
export function shrinkLongStringsUtf8(buf: Buffer, start: number, view: string, threshold: number, head: number, tail: number): string {
  const decode = (a: number, b: number) => buf.toString('utf8', start + a, start + b);
  if (view.length > threshold) {
    const out = shrinkWith(view, threshold, head, tail, decode, (p, down) => {
      // a UTF-8 continuation byte (10xxxxxx) is not a character boundary
      while ((buf[start + p] & 0xc0) === 0x80) p += down ? -1 : 1;
      return p;
    });
    if (out !== null) return out;
  }
  return decode(0, view.length);
}

/** Token characters: what a key, token or password is made of (ASCII, so byte and char views agree). */
function isTokenChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 43 || c === 47 || c === 61 || c === 46 || c === 126 || c === 37;
}

/** Longest token that is moved whole rather than cut: longer ones are no secret shape but data. */
const TOKEN_SNAP = 160;

/** The token around `pos` (from, to) when it is shorter than TOKEN_SNAP, else null. */
function tokenAround(s: string, pos: number, floor: number, ceil: number): [number, number] | null {
  let a = pos;
  while (a > floor && isTokenChar(s.charCodeAt(a - 1))) if (pos - --a >= TOKEN_SNAP) return null;
  let b = pos;
  while (b < ceil && isTokenChar(s.charCodeAt(b))) if (++b - a >= TOKEN_SNAP) return null;
  return [a, b];
}

/** `pos` moved back to the start of the token it falls in (the head keeps less rather than half a token). */
function tokenStart(s: string, pos: number, floor: number, ceil: number): number {
  if (pos >= ceil || !isTokenChar(s.charCodeAt(pos))) return pos; // a token ending here is whole
  return tokenAround(s, pos, floor, ceil)?.[0] ?? pos;
}

/** `pos` moved forward to the end of the token it falls in (the tail keeps less rather than half a token). */
function tokenEnd(s: string, pos: number, floor: number, ceil: number): number {
  if (pos <= floor || !isTokenChar(s.charCodeAt(pos - 1))) return pos; // a token starting here is whole
  return tokenAround(s, pos, floor, ceil)?.[1] ?? pos;
}

/** null when nothing was cut (or the line is malformed: JSON.parse will say so on the original). */
function shrinkWith(
  line: string,
  threshold: number,
  head: number,
  tail: number,
  piece: (a: number, b: number) => string,
  boundary: (pos: number, down: boolean) => number,
): string | null {
  let out = '';
  let last = 0;
  let pos = 0;
  for (;;) {
    const q = line.indexOf('"', pos);
    if (q < 0) break;
    const e = stringEnd(line, q);
    if (e < 0) return null;
    if (e - q - 1 > threshold) {
      // a cut never splits a token: a secret's surviving half would escape redaction after parse
      let h = tokenStart(line, q + 1 + head, q + 1, e);
      const hs = escapeStartCovering(line, h, q + 1);
      if (hs >= 0) h = hs;
      h = Math.max(q + 1, boundary(h, true)); // (invalid UTF-8 could walk back to the quote)
      let t = tokenEnd(line, e - tail, q + 1, e);
      const ts = escapeStartCovering(line, t, h);
      if (ts >= 0) t = ts + (line.charCodeAt(ts + 1) === 117 ? 6 : 2);
      if (t < h) t = h;
      t = boundary(t, false);
      out += piece(last, h) + '\\n[…]\\n' + piece(t, e + 1);
      last = e + 1;
    }
    pos = e + 1;
  }
  return last === 0 ? null : out + piece(last, line.length);
}
