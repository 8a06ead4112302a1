/**
 * Word wrapping for terminal output, shared by the review screens and the plain CLI: long text is
 * shown in full on several rows, never cut with "…".
 */
/**
 * Where `text` (one line, no newlines) wraps into rows of at most `width` columns: at spaces where
 * it can, through a word only when the word alone is longer than a row. Continuation rows leave
 * room for an `indent` (a hanging indent the caller draws). Returns [from, to) code-point ranges;
 * only the spaces at a break are left out, so what the terminal shows is all of the text.
 */
export function wrapRanges(text: string, width: number, indent = 0): Array<{ from: number; to: number; first: boolean }> {
  const chars = Array.from(text);
  const w = Math.max(1, width);
  const contW = Math.max(1, w - Math.min(indent, w - 1));
  const rows: Array<{ from: number; to: number; first: boolean }> = [];
  let start = 0;
  let room = w;
  while (start < chars.length) {
    if (chars.length - start <= room) {
      rows.push({ from: start, to: chars.length, first: rows.length === 0 });
      break;
    }
    // the last space within reach: break there (the spaces at the break are not carried over)
    let cut = -1;
    for (let i = start + room; i > start; i--) {
      if (chars[i] === ' ') {
        cut = i;
        break;
      }
    }
    if (cut <= start) {
      rows.push({ from: start, to: start + room, first: rows.length === 0 });
      start += room;
    } else {
      let end = cut;
      while (end > start && chars[end - 1] === ' ') end--;
      rows.push({ from: start, to: end, first: rows.length === 0 });
      start = cut;
      while (chars[start] === ' ') start++;
    }
    room = contW;
  }
  if (rows.length === 0) rows.push({ from: 0, to: 0, first: true });
  return rows;
}

/** `text` wrapped to `width` columns (see wrapRanges); the indent is not included in the rows. */
export function wrapText(text: string, width: number, indent = 0): string[] {
  // most rows fit: UTF-16 length is at least the code-point count, so no split is needed to know
  if (text.length <= Math.max(1, width)) return [text];
  const chars = Array.from(text);
  return wrapRanges(text, width, indent).map((r) => chars.slice(r.from, r.to).join(''));
}
