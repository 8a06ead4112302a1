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

export function Line({ line }: { line: StyledLine }): React.ReactElement {
  if (line.length === 0) return <Text> </Text>;
  return (
    <Text wrap="truncate-end">
      {line.map((s, i) => (
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
