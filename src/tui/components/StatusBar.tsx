/** The bottom line: the last outcome or a busy spinner, then the keys that matter here. */
import React from 'react';
import { Box, Text } from 'ink';

export type Tone = 'info' | 'success' | 'error' | 'warning';

const TONE: Record<Tone, string | undefined> = { info: undefined, success: 'green', error: 'red', warning: 'yellow' };

export function StatusBar({ message, tone, busy, hints }: { message: string | null; tone: Tone; busy: string | null; hints: string }): React.ReactElement {
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end" color={busy ? 'yellow' : TONE[tone]}>
        {busy ? `⠿ ${busy}` : message ?? ' '}
      </Text>
      <Text wrap="truncate-end" dimColor>
        {hints}
      </Text>
    </Box>
  );
}
