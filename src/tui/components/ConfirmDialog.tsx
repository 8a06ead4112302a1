/**
 * A numbered confirmation, as in Claude Code and Gemini CLI: digits choose directly, ↑/↓ + Enter
 * choose the highlighted one, Esc means the last option (No / Cancel).
 */
import React from 'react';
import { Box, Text } from 'ink';
import { Line, type StyledLine } from './Line.js';
import { theme } from '../theme.js';

export interface DialogOption {
  label: string;
  tone?: 'danger' | 'normal';
}

export interface ConfirmDialogProps {
  title: string;
  body: StyledLine[];
  options: DialogOption[];
  selected: number;
  width: number;
  tone?: 'warning' | 'normal';
}

export function ConfirmDialog({ title, body, options, selected, width, tone }: ConfirmDialogProps): React.ReactElement {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={tone === 'warning' ? theme.stale : theme.accent} paddingX={1} width={Math.max(20, width)}>
      <Text bold wrap="truncate-end">
        {title}
      </Text>
      {body.map((l, i) => (
        <Line key={i} line={l} />
      ))}
      {options.map((o, i) => (
        <Text key={i} color={i === selected ? theme.accent : o.tone === 'danger' ? theme.bad : undefined} bold={i === selected} wrap="truncate-end">
          {i === selected ? '❯ ' : '  '}
          {i + 1}. {o.label}
        </Text>
      ))}
      <Text dimColor wrap="truncate-end">
        {options.length > 1 ? `1–${options.length} choose · ↑/↓ Enter · Esc cancel` : 'Enter or Esc to close'}
      </Text>
    </Box>
  );
}
