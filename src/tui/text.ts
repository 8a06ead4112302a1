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


// wrapping is shared with the plain CLI (`proposals show`, `tasks show`)
export { wrapRanges, wrapText } from '../core/text-wrap.js';
