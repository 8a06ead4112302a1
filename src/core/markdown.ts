/**
 * Just enough Markdown structure for section checks: ATX (`## Title`) and setext (`Title\n===`)
 * headings outside fenced code blocks, and the body of a section (until the next heading of the
 * same or a higher level).
 */

export interface Heading {
  level: number;
  text: string;
  /** index of the heading's (last) line */
  line: number;
}

export interface Section {
  heading: Heading;
  body: string;
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;

export function parseHeadings(markdown: string): Heading[] {
  const lines = markdown.split(/\r?\n/);
  const headings: Heading[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const f = FENCE_OPEN.exec(line);
    if (fence !== null) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length && line.trim() === f[1]) fence = null;
      continue;
    }
    if (f) {
      fence = f[1];
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      headings.push({ level: atx[1].length, text: (atx[2] ?? '').trim(), line: i });
      continue;
    }
    const setext = SETEXT.exec(line);
    const prev = i > 0 ? lines[i - 1] : '';
    const prevIsHeading = headings.length > 0 && headings[headings.length - 1].line === i - 1;
    if (setext && prev.trim() !== '' && !prevIsHeading && !ATX.test(prev) && !/^\s*([-*+]|\d+[.)])\s/.test(prev)) {
      headings.push({ level: setext[1][0] === '=' ? 1 : 2, text: prev.trim(), line: i });
    }
  }
  return headings;
}

/** Lowercase words for comparing headings: markup, brackets and punctuation dropped. */
export function normalizeHeading(text: string): string {
  return text
    .replace(/^\s*#+\s*/, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}.]+/gu, ' ')
    .replace(/(^|\s)\.+|\.+(?=\s|$)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A heading addresses the wanted section if it equals it or starts with it as whole words. */
export function headingMatches(headingText: string, wanted: string): boolean {
  const h = normalizeHeading(headingText);
  const w = normalizeHeading(wanted);
  if (!w) return false;
  return h === w || h.startsWith(`${w} `);
}

/** The first section whose heading matches (any level, case-insensitive), or null. */
export function findSection(markdown: string, wanted: string): Section | null {
  const headings = parseHeadings(markdown);
  const idx = headings.findIndex((h) => headingMatches(h.text, wanted));
  if (idx < 0) return null;
  const heading = headings[idx];
  const lines = markdown.split(/\r?\n/);
  const next = headings.slice(idx + 1).find((h) => h.level <= heading.level);
  // a setext heading's underline is its own line; the next heading starts one line earlier
  let end = lines.length;
  if (next) end = isSetext(lines, next) ? next.line - 1 : next.line;
  return { heading, body: lines.slice(heading.line + 1, end).join('\n') };
}

function isSetext(lines: string[], h: Heading): boolean {
  return SETEXT.test(lines[h.line]) && !ATX.test(lines[h.line]);
}
