/** A one-line text box (search query, rejection reason): Enter submits, Esc cancels. */
import React from 'react';
import { Box, Text } from 'ink';
import { theme } from '../theme.js';

export function TextPrompt({ label, value, hint }: { label: string; value: string; hint?: string }): React.ReactElement {
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-start">
        <Text color={theme.accent} bold>
          {label}
        </Text>
        <Text>{value}</Text>
        <Text inverse> </Text>
      </Text>
      <Text dimColor wrap="truncate-end">
        {hint ?? 'Enter confirm · Esc cancel'}
      </Text>
    </Box>
  );
}
