/** The bottom line: the last outcome or a busy spinner, then the keys that matter here. */
import React from 'react';
import { Box, Text } from 'ink';
import { TONE_COLOUR, theme, type Tone } from '../theme.js';

export type { Tone };

export function StatusBar({ message, tone, busy, hints }: { message: string | null; tone: Tone; busy: string | null; hints: string }): React.ReactElement {
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end" color={busy ? theme.caution : TONE_COLOUR[tone]}>
        {busy ? `⠿ ${busy}` : message ?? ' '}
      </Text>
      <Text wrap="truncate-end" dimColor>
        {hints}
      </Text>
    </Box>
  );
}
