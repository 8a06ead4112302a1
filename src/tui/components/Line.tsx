/**
 * One styled terminal line: a list of coloured segments, cut (never wrapped) to the width. Every
 * scrolling screen renders its visible window as these, so one row of content is one row on screen.
 */
import React from 'react';
import { Text } from 'ink';

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
