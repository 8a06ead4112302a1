/**
 * The review's colours in one place: every screen names a role (accent, good, bad, ...), never a
 * colour, so a role means the same thing everywhere and a palette change is one edit here.
 * Whether colour shows at all is the terminal's business, not the theme's: chalk (under Ink) reads
 * the environment once, after `prepareReviewEnv` (terminal-env.ts) has turned NO_COLOR into
 * FORCE_COLOR=0, so with NO_COLOR set these roles render as plain text (dim/bold/inverse stay).
 */
import type { ProposalStatus } from '../core/records.js';

/** An Ink colour name. */
export type Colour = 'cyan' | 'green' | 'red' | 'yellow' | 'magenta' | 'gray';

export const theme = {
  /** names, keys and commands to type, the cursor, hunk headings, the frame of help and dialogs */
  accent: 'cyan',
  /** better scores, added lines, included edits, applied proposals */
  good: 'green',
  /** worse scores, removed lines, excluded edits, risk flags, errors, rejected proposals */
  bad: 'red',
  /** needs a look: partial selections, a job running, warnings, proposals waiting */
  caution: 'yellow',
  /** the live file changed under a proposal; warning dialogs */
  stale: 'magenta',
  /** what is over and done: reverted or superseded proposals, the empty state's frame */
  muted: 'gray',
} as const satisfies Record<string, Colour>;

/** How an outcome on the status line reads. */
export type Tone = 'info' | 'success' | 'error' | 'warning';

export const TONE_COLOUR: Record<Tone, Colour | undefined> = { info: undefined, success: theme.good, error: theme.bad, warning: theme.caution };

/** A score change: up is good, down is bad, no change is plain. */
export const DELTA_COLOUR: Record<'up' | 'down' | 'flat', Colour | undefined> = { up: theme.good, down: theme.bad, flat: undefined };

/** A signed effect (an edit's measured effect on its tasks): the colour of its direction. */
export function signColour(n: number | null | undefined): Colour | undefined {
  if (n === null || n === undefined || n === 0) return undefined;
  return n > 0 ? theme.good : theme.bad;
}

/** A proposal's status in the list ('stale': staged, but the live file changed since). */
export const STATUS_COLOUR: Record<ProposalStatus, Colour> = {
  staged: theme.caution,
  stale: theme.stale,
  applied: theme.good,
  rejected: theme.bad,
  reverted: theme.muted,
  superseded: theme.muted,
};
