/** `?`: the keys that work on the current screen, generated from the keymap table itself. */
import React from 'react';
import { Box, Text } from 'ink';
import { helpFor, type KeyContext } from '../keymap.js';

const TITLES: Record<KeyContext, string> = {
  list: 'Proposal list',
  diff: 'Diff view',
  evidence: 'Evidence view',
  report: 'Report view',
  dialog: 'Dialog',
  help: 'Help',
};

export function HelpOverlay({ context, height, width }: { context: KeyContext; height: number; width: number }): React.ReactElement {
  const rows = helpFor(context);
  const room = Math.max(1, height - 4);
  const shown = rows.slice(0, room);
  const keyW = Math.min(26, Math.max(...rows.map((r) => r.keys.length)) + 2);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} width={width} height={height}>
      <Text bold>Keys — {TITLES[context]}</Text>
      {shown.map((r, i) => (
        <Text key={i} wrap="truncate-end">
          <Text color="cyan">{r.keys.padEnd(keyW)}</Text>
          {r.help}
        </Text>
      ))}
      {rows.length > shown.length ? <Text dimColor>… {rows.length - shown.length} more (enlarge the terminal)</Text> : null}
    </Box>
  );
}
