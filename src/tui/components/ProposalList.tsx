/**
 * The morning list: one row per proposal (skill, who reads it, project, night, validation and test
 * before → after, edits, status), newest first; a red ! marks a proposal the risk lint flagged.
 * Renders only the visible window of rows.
 */
import React from 'react';
import { Box, Text } from 'ink';
import { cellText, listColumns, type ListItem } from '../list-model.js';
import { deltaTone } from '../format.js';
import { fit } from '../text.js';
import { Line, seg, type StyledLine } from './Line.js';
import { DELTA_COLOUR, STATUS_COLOUR, theme } from '../theme.js';

export interface ProposalListProps {
  items: ListItem[];
  cursor: number;
  start: number;
  height: number;
  width: number;
  now: number;
}


export function headerLine(width: number): StyledLine {
  const cols = listColumns(width);
  return [seg('  '), ...cols.map((c) => seg(fit(c.title, c.width) + ' ', { bold: true, dim: true }))];
}

export function rowLine(item: ListItem, width: number, selected: boolean, now: number): StyledLine {
  const cols = listColumns(width);
  const p = item.proposal;
  const line: StyledLine = [seg(selected ? '❯' : ' ', { color: theme.accent, bold: true }), seg(item.risky ? '!' : ' ', { color: theme.bad, bold: true })];
  for (const c of cols) {
    const text = fit(cellText(item, c.id, now), c.width) + ' ';
    let color: string | undefined;
    if (c.id === 'val') color = DELTA_COLOUR[deltaTone(p.baselineScore, p.candidateScore)];
    if (c.id === 'test') color = DELTA_COLOUR[deltaTone(p.testBefore, p.testAfter)];
    if (c.id === 'status') color = STATUS_COLOUR[item.status];
    line.push(seg(text, { color, bold: selected && c.id === 'skill', inverse: false }));
  }
  return line;
}

export function ProposalList({ items, cursor, start, height, width, now }: ProposalListProps): React.ReactElement {
  const rows: React.ReactElement[] = [];
  for (let i = start; i < Math.min(items.length, start + height); i++) {
    rows.push(<Line key={items[i].proposal.id} line={rowLine(items[i], width, i === cursor, now)} />);
  }
  for (let i = rows.length; i < height; i++) rows.push(<Text key={`pad-${i}`}> </Text>);
  return (
    <Box flexDirection="column">
      <Line line={headerLine(width)} />
      {rows}
    </Box>
  );
}
