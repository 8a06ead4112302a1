/**
 * How the plain CLI styles its output: colour only where the terminal shows it, and text wrapped
 * to the terminal's width instead of cut.
 * - Colour follows https://no-color.org and the FORCE_COLOR convention chalk and Node use:
 *   FORCE_COLOR=0/false turns it off, any other FORCE_COLOR turns it on (a pipe included), NO_COLOR
 *   (non-empty) turns it off, TERM=dumb and a non-TTY turn it off, and otherwise the stream's own
 *   capability detection decides (Node's `hasColors`, which reads TERM and COLORTERM). A `CI`
 *   variable says nothing about the terminal a person types in and is not consulted.
 * - Wrapping: to the TTY's columns; in a pipe nothing is wrapped or cut (the reader's tool wraps).
 */
import { wrapText } from '../core/text-wrap.js';

export function colourEnabled(stream: Pick<NodeJS.WriteStream, 'isTTY'> & { hasColors?: () => boolean }, env: NodeJS.ProcessEnv): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !(force === '0' || force.toLowerCase() === 'false');
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (!stream.isTTY || env.TERM === 'dumb') return false;
  return stream.hasColors?.() ?? true;
}

const CODES = { red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39], magenta: [35, 39], bold: [1, 22], dim: [2, 22] } as const;
export type StyleName = keyof typeof CODES;

export type Painter = Record<StyleName, (text: string) => string>;

/** Functions that wrap text in one style each, or return it unchanged when colour is off. */
export function painter(on: boolean): Painter {
  const out = {} as Painter;
  for (const [name, [open, close]] of Object.entries(CODES) as Array<[StyleName, readonly [number, number]]>) {
    out[name] = on ? (t: string) => (t ? `\u001b[${open}m${t}\u001b[${close}m` : t) : (t: string) => t;
  }
  return out;
}

/** The colour of a unified diff line (+ green, - red, @@ cyan, file headers bold). */
export function paintDiffLine(line: string, p: Painter): string {
  if (line.startsWith('+++') || line.startsWith('---')) return p.bold(line);
  if (line.startsWith('@@')) return p.cyan(line);
  if (line.startsWith('+')) return p.green(line);
  if (line.startsWith('-')) return p.red(line);
  return line;
}

/**
 * `text` (newlines kept) after `first` on its first row, wrapped to `width` with continuation
 * rows indented to line up under the text. `width` undefined: one row per line, nothing wrapped.
 */
export function wrappedRows(first: string, text: string, width: number | undefined): string[] {
  const indent = ' '.repeat(Array.from(first).length);
  const rows: string[] = [];
  text.split('\n').forEach((line, i) => {
    const lead = i === 0 ? first : indent;
    if (width === undefined) return rows.push(lead + line);
    const parts = wrapText(line, Math.max(20, width - indent.length));
    parts.forEach((part, k) => rows.push((k === 0 ? lead : indent) + part));
  });
  return rows;
}
