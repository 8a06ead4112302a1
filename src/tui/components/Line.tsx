/**
 * One styled terminal line: a list of coloured segments, one row on screen. Every scrolling
 * screen renders its visible window as these, so one row of content is one row on screen; long
 * content is wrapped into several rows first (`wrapStyled`), and a row still too wide (a terminal
 * narrower than the layout assumed) is cut at the edge by Ink.
 */
import React from 'react';
import { Text } from 'ink';
import { wrapRanges } from '../text.js';

export interface Segment {
  text: string;
  color?: string;
  backgroundColor?: string;
  dim?: boolean;
  bold?: boolean;
  inverse?: boolean;
  underline?: boolean;
}

export type StyledLine = Segment[];

export function seg(text: string, style: Omit<Segment, 'text'> = {}): Segment {
  return { text, ...style };
}

export function plainText(line: StyledLine): string {
  return line.map((s) => s.text).join('');
}

const width = (t: string) => Array.from(t).length;

/**
 * Wraps a styled line into rows of at most `cols` columns, keeping each segment's style; the
 * continuation rows are indented by `indent` columns (default: the line's leading spaces, so a
 * block's wrapped text lines up under its first word). Breaks at spaces, through a word only when
 * it is longer than a row.
 */
export function wrapStyled(line: StyledLine, cols: number, indent?: number): StyledLine[] {
  const text = plainText(line);
  if (width(text) <= cols) return [line];
  const lead = indent ?? Math.min(Math.floor(cols / 2), width(text) - width(text.trimStart()));
  const rows = wrapRanges(text, cols, lead);
  // map each row back onto the segments by character offsets in the plain text
  const chars = Array.from(text);
  const styleAt: number[] = [];
  line.forEach((s, i) => {
    for (let k = 0; k < width(s.text); k++) styleAt.push(i);
  });
  const out: StyledLine[] = [];
  for (const r of rows) {
    const row: StyledLine = r.first ? [] : [seg(' '.repeat(lead))];
    let k = r.from;
    while (k < r.to) {
      const si = styleAt[k];
      let e = k;
      while (e < r.to && styleAt[e] === si) e++;
      const { text: _t, ...style } = line[si];
      row.push({ ...style, text: chars.slice(k, e).join('') });
      k = e;
    }
    out.push(row);
  }
  return out;
}


const sameStyle = (a: Segment, b: Segment) =>
  a.color === b.color && a.backgroundColor === b.backgroundColor && !!a.dim === !!b.dim && !!a.bold === !!b.bold && !!a.inverse === !!b.inverse && !!a.underline === !!b.underline;

/** Joins neighbouring segments of the same style: fewer Ink nodes per row, same output. */
export function mergeSegments(line: StyledLine): StyledLine {
  const out: StyledLine = [];
  for (const s of line) {
    if (!s.text) continue;
    const last = out[out.length - 1];
    if (last && sameStyle(last, s)) out[out.length - 1] = { ...last, text: last.text + s.text };
    else out.push(s);
  }
  return out;
}

export function Line({ line }: { line: StyledLine }): React.ReactElement {
  const merged = mergeSegments(line);
  if (merged.length === 0) return <Text> </Text>;
  if (merged.length === 1 && !merged[0].color && !merged[0].backgroundColor && !merged[0].dim && !merged[0].bold && !merged[0].inverse && !merged[0].underline) {
    return <Text wrap="truncate-end">{merged[0].text}</Text>;
  }
  return (
    <Text wrap="truncate-end">
      {merged.map((s, i) => (
        <Text
          key={i}
          color={s.color}
          backgroundColor={s.backgroundColor}
          dimColor={s.dim}
          bold={s.bold}
          inverse={s.inverse}
          underline={s.underline}
        >
          {s.text}
        </Text>
      ))}
    </Text>
  );
}

/** Renders exactly `height` rows: the given lines, padded with blanks so the layout never jumps. */
export function LinesWindow({ lines, height }: { lines: StyledLine[]; height: number }): React.ReactElement {
  const rows: React.ReactElement[] = [];
  for (let i = 0; i < height; i++) rows.push(<Line key={i} line={lines[i] ?? []} />);
  return <>{rows}</>;
}
