/**
 * Text helpers for the terminal: skill files and transcript excerpts are untrusted text, so control
 * characters (an ESC could repaint or retitle the user's terminal) are made visible before display.
 */


const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function sanitize(text: string): string {
  return text.replace(/\t/g, '    ').replace(/\r$/, '').replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** One line for a list cell: newlines collapsed, control characters escaped. */
export function oneLine(text: string): string {
  return sanitize(text.replace(/\s*\n\s*/g, ' ')).trim();
}

/** Pads or cuts to exactly `width` columns (ASCII-width approximation; cells are mostly ASCII). */
export function fit(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = Array.from(text);
  if (chars.length > width) return width > 1 ? chars.slice(0, width - 1).join('') + '…' : chars.slice(0, width).join('');
  return text + ' '.repeat(width - chars.length);
}

export function truncate(text: string, width: number): string {
  const chars = Array.from(text);
  if (chars.length <= width) return text;
  return width > 1 ? chars.slice(0, width - 1).join('') + '…' : chars.slice(0, Math.max(0, width)).join('');
}

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
  const chars = Array.from(text);
  return wrapRanges(text, width, indent).map((r) => chars.slice(r.from, r.to).join(''));
}
