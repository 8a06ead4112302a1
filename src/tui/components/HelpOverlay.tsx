/** `?`: the keys that work on the current screen, generated from the keymap table itself. */
import React from 'react';
import { Box, Text } from 'ink';
import { helpFor, type KeyContext } from '../keymap.js';
import { theme } from '../theme.js';

const TITLES: Record<KeyContext, string> = {
  list: 'Proposal list',
  diff: 'Diff view',
  evidence: 'Evidence view',
  report: 'Report view',
  dialog: 'Dialog',
  help: 'Help',
  busy: 'Re-scoring',
};

/** Rows of help that fit `height` (border and title take 3); the rest scrolls with j/k. */
export function helpRoom(height: number): number {
  return Math.max(1, height - 4);
}

export function HelpOverlay({ context, height, width, offset = 0 }: { context: KeyContext; height: number; width: number; offset?: number }): React.ReactElement {
  const rows = helpFor(context);
  const room = helpRoom(height);
  const start = Math.max(0, Math.min(offset, rows.length - room));
  const shown = rows.slice(start, start + room);
  const below = rows.length - start - shown.length;
  const keyW = Math.min(26, Math.max(...rows.map((r) => r.keys.length)) + 2);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.accent} paddingX={1} width={width} height={height}>
      <Text bold>Keys — {TITLES[context]}</Text>
      {shown.map((r, i) => (
        <Text key={i} wrap="truncate-end">
          <Text color={theme.accent}>{r.keys.padEnd(keyW)}</Text>
          {r.help}
        </Text>
      ))}
      {start > 0 || below > 0 ? (
        <Text dimColor wrap="truncate-end">
          {start > 0 ? `↑ ${start} above ` : ''}
          {below > 0 ? `↓ ${below} more ` : ''}(j/k scroll)
        </Text>
      ) : null}
    </Box>
  );
}
