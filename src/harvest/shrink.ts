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
  let out = '';
  let last = 0;
  let pos = 0;
  for (;;) {
    const q = line.indexOf('"', pos);
    if (q < 0) break;
    const e = stringEnd(line, q);
    if (e < 0) return line; // malformed: let JSON.parse report it
    if (e - q - 1 > threshold) {
      let h = q + 1 + head;
      const hs = escapeStartCovering(line, h, q + 1);
      if (hs >= 0) h = hs;
      let t = e - tail;
      const ts = escapeStartCovering(line, t, h);
      if (ts >= 0) t = ts + (line.charCodeAt(ts + 1) === 117 ? 6 : 2);
      if (t < h) t = h;
      out += line.slice(last, h) + '\\n[…]\\n' + line.slice(t, e + 1);
      last = e + 1;
    }
    pos = e + 1;
  }
  return last === 0 ? line : out + line.slice(last);
}
