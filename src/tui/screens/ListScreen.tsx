/**
 * The list screen: the title, the ledger line, the empty state when nothing waits, and the
 * proposals under a cursor (virtualised). It only draws; its keys are handled by the app, which
 * holds the cursor in the review state.
 */
import React from 'react';
import { Box, Text } from 'ink';
import type { LedgerSummary, NextNight } from '../services.js';
import type { ListItem } from '../list-model.js';
import { ledgerLine } from '../format.js';
import { ProposalList } from '../components/ProposalList.js';
import { EmptyState } from '../components/EmptyState.js';

export interface ListScreenProps {
  /** the proposals the filter lets through */
  items: ListItem[];
  pending: number;
  decided: number;
  listQuery: string;
  ledger: LedgerSummary;
  /** the schedule, asked for only when the empty state shows */
  nextNight(): NextNight;
  width: number;
  /** rows for the proposal table, including its column header (0 = no table) */
  listRows: number;
  cursor: number;
  start: number;
  now: number;
}

export function ListScreen(props: ListScreenProps): React.ReactElement {
  const { items, pending, decided, listQuery, width, listRows, now } = props;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold>skillopt-sleep review</Text>
        <Text dimColor>
          {' · '}
          {pending} waiting · {decided} decided{listQuery ? ` · filter "${listQuery}" (${items.length})` : ''}
        </Text>
      </Text>
      <Text wrap="truncate-end" dimColor>
        {ledgerLine(props.ledger, now)}
      </Text>
      {pending === 0 ? <EmptyState next={props.nextNight()} now={now} decided={decided} width={width} /> : null}
      {listRows > 0 ? <ProposalList items={items} cursor={props.cursor} start={props.start} height={listRows - 1} width={width} now={now} /> : null}
    </Box>
  );
}
