/**
 * Nothing to review: say when the next night runs (from `schedule.cron`), what it will do, and how
 * to run one now — an empty screen should never leave the user wondering whether anything works.
 * Whether the daemon is up decides the middle line: a running daemon needs no `start`.
 * Every line is cut rather than wrapped so the box has a fixed height (EMPTY_STATE_HEIGHT).
 */
import React from 'react';
import { Box, Text } from 'ink';
import type { NextNight } from '../services.js';
import { whenLabel } from '../format.js';
import { theme } from '../theme.js';

export function emptyStateHeight(decided: number): number {
  return 7 + (decided > 0 ? 1 : 0);
}

export function EmptyState({ next, now, decided, width }: { next: NextNight; now: number; decided: number; width: number }): React.ReactElement {
  const when = next.at ? whenLabel(next.at, new Date(now)) : 'at the next scheduled time';
  const tz = next.timezone ? ` ${next.timezone}` : '';
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.muted} paddingX={1} width={width}>
      <Text bold wrap="truncate-end">
        No proposals waiting for review.
      </Text>
      {next.error ? (
        <Text color={theme.bad} wrap="truncate-end">
          schedule.cron "{next.cron}" is invalid: {next.error}
        </Text>
      ) : (
        <Text wrap="truncate-end">
          Next night: <Text color={theme.accent}>{when}</Text>
          {tz} · schedule.cron "{next.cron}"
        </Text>
      )}
      {next.daemonRunning === true && next.nightsSkipped ? (
        <Text wrap="truncate-end">
          <Text color="yellow">The daemon is running but skips its nights</Text>: {next.nightsSkipped} (<Text color="cyan">skillopt-sleep doctor</Text>)
        </Text>
      ) : next.daemonRunning === true ? (
        <Text wrap="truncate-end">The daemon is running: it starts that night by itself.</Text>
      ) : next.daemonRunning === false ? (
        <Text wrap="truncate-end">
          <Text color={theme.caution}>The daemon is not running</Text>, so no night will start: <Text color={theme.accent}>skillopt-sleep start</Text>
        </Text>
      ) : (
        <Text wrap="truncate-end">
          It runs while the daemon is up (<Text color={theme.accent}>skillopt-sleep status</Text> says whether it is).
        </Text>
      )}
      <Text wrap="truncate-end">
        Run a night now: <Text color={theme.accent}>skillopt-sleep night</Text> (--dry-run previews)
      </Text>
      <Text wrap="truncate-end" dimColor>
        A night stages only edits that beat held-out tasks.
      </Text>
      {decided > 0 ? (
        <Text dimColor wrap="truncate-end">
          {decided} decided proposal(s) below · u reverts the last apply
        </Text>
      ) : null}
    </Box>
  );
}
