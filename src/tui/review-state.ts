/**
 * The review's state and the one function that changes it. Every key press and every outcome of a
 * decision becomes a typed action; `reviewReducer` is pure (no services, no Ink), so what a key does
 * to the screen is unit-tested without rendering. The app holds this state with `useReducer` and
 * routes keys by it: which screen shows (`screen`) picks the screen's command handler, and the
 * layers on top (dialog > text box > help > busy) take the keys while they are open.
 */
import type { Proposal } from '../core/records.js';
import type { LedgerSummary } from './services.js';
import type { DialogSpec, TextSpec } from './decisions.js';
import type { DiffMode } from './components/DiffView.js';
import type { Tone } from './theme.js';
import { clampWindow, moveWindow, type WindowMove, type WindowState } from './scroll-window.js';

export type DetailView = 'diff' | 'evidence' | 'report';
export const VIEWS: readonly DetailView[] = ['diff', 'evidence', 'report'];

/** Where the reader is inside one proposal; a new proposal starts from the top of its diff. */
export interface DetailNav {
  view: DetailView;
  /** the current hunk of the diff (]/[ and Space act on it) */
  hunk: number;
  /** the edit under the cursor in the Evidence view */
  editCursor: number;
  /** edits unfolded to their full text */
  expanded: ReadonlySet<string>;
  /** the first visible row of each view */
  offsets: Record<DetailView, number>;
}

export type Screen = { kind: 'list' } | { kind: 'detail'; id: string; nav: DetailNav };

export interface ReviewState {
  proposals: Proposal[];
  ledger: LedgerSummary;
  screen: Screen;
  /** the list's cursor and window; kept while a proposal is open, so back returns to it */
  list: WindowState;
  listQuery: string;
  detailQuery: string;
  /** the diff layout the user chose with d; null = the width decides */
  diffMode: DiffMode | null;
  /** the edits included for a partial apply, per proposal (absent = all accepted edits) */
  selections: Record<string, ReadonlySet<string>>;
  dialog: (DialogSpec & { selected: number }) | null;
  text: (TextSpec & { value: string }) | null;
  /** the help overlay and its scroll offset */
  help: { offset: number } | null;
  message: { text: string; tone: Tone } | null;
  busy: { label: string; cancel?: () => void } | null;
  lastApplied: string | null;
}

/** A window move with the size it is made in (the reducer does not know the layout). */
export interface SizedMove {
  move: WindowMove;
  count: number;
  height: number;
}

export type ReviewAction =
  | { type: 'loaded'; proposals: Proposal[]; ledger: LedgerSummary }
  | { type: 'open'; id: string; message?: { text: string; tone: Tone } }
  | { type: 'back' }
  | ({ type: 'listMove' } & SizedMove)
  | { type: 'listQuery'; query: string }
  | { type: 'detailQuery'; query: string }
  | { type: 'view'; view: DetailView }
  | ({ type: 'scroll'; view: DetailView; hunkStarts?: readonly number[] } & SizedMove)
  | { type: 'hunk'; hunk: number }
  | { type: 'editCursor'; index: number }
  | { type: 'expanded'; ids: ReadonlySet<string> }
  | { type: 'diffMode'; mode: DiffMode }
  | { type: 'include'; id: string; editIds: ReadonlySet<string> }
  | { type: 'ask'; dialog: DialogSpec }
  | { type: 'dialogMove'; by: 1 | -1 }
  | { type: 'dialogClose' }
  | { type: 'prompt'; text: TextSpec }
  | { type: 'type'; chars: string }
  | { type: 'erase' }
  | { type: 'promptClose' }
  | { type: 'help'; open: boolean }
  | { type: 'helpScroll'; by: 1 | -1; max: number }
  | { type: 'say'; text: string; tone: Tone }
  | { type: 'busy'; busy: { label: string; cancel?: () => void } | null }
  | { type: 'applied'; id: string };

export function freshNav(): DetailNav {
  return { view: 'diff', hunk: 0, editCursor: 0, expanded: new Set(), offsets: { diff: 0, evidence: 0, report: 0 } };
}

/** `review --id` opens that proposal, and back from it the list cursor sits on it. */
export function initialReviewState(proposals: Proposal[], ledger: LedgerSummary, initialId?: string): ReviewState {
  const at = initialId ? Math.max(0, proposals.findIndex((p) => p.id === initialId)) : 0;
  return {
    proposals,
    ledger,
    screen: initialId ? { kind: 'detail', id: initialId, nav: freshNav() } : { kind: 'list' },
    list: { offset: at, cursor: at },
    listQuery: '',
    detailQuery: '',
    diffMode: null,
    selections: {},
    dialog: null,
    text: null,
    help: null,
    message: null,
    busy: null,
    lastApplied: null,
  };
}

/**
 * The hunk to call current once scrolling has moved the old one off the screen: the hunk under
 * the top row if it is still on screen, else the first hunk that starts on screen.
 */
export function followHunk(hunk: number, hunkStarts: readonly number[], start: number, end: number, count: number): number {
  if (hunkStarts.length === 0) return hunk;
  const from = hunkStarts[hunk] ?? 0;
  const to = hunkStarts[hunk + 1] ?? count;
  if (to > start && from < end) return hunk;
  let top = -1;
  for (let i = 0; i < hunkStarts.length && hunkStarts[i] <= start; i++) top = i;
  const topVisible = top >= 0 && (hunkStarts[top + 1] ?? count) > start;
  const firstInView = hunkStarts.findIndex((st) => st >= start && st < end);
  return topVisible ? top : firstInView >= 0 ? firstInView : Math.max(0, top);
}

/** The visible [start, end) rows of a scrolled view. */
export function scrolledWindow(offset: number, count: number, height: number): { start: number; end: number } {
  const { offset: start } = clampWindow({ offset, cursor: offset }, count, height, false);
  return { start, end: Math.min(count, start + Math.max(1, height)) };
}

function withNav(s: ReviewState, change: (nav: DetailNav) => DetailNav): ReviewState {
  return s.screen.kind === 'detail' ? { ...s, screen: { ...s.screen, nav: change(s.screen.nav) } } : s;
}

export function reviewReducer(s: ReviewState, a: ReviewAction): ReviewState {
  switch (a.type) {
    case 'loaded':
      return { ...s, proposals: a.proposals, ledger: a.ledger };
    case 'open':
      return { ...s, screen: { kind: 'detail', id: a.id, nav: freshNav() }, detailQuery: '', message: a.message ?? null };
    case 'back':
      // the list comes back with the cursor's row at the top of its window, as when it first showed it
      return { ...s, screen: { kind: 'list' }, list: { offset: s.list.cursor, cursor: s.list.cursor }, message: null };
    case 'listMove':
      return { ...s, list: moveWindow(clampWindow(s.list, a.count, a.height, true), a.move, a.count, a.height, true) };
    case 'listQuery':
      return { ...s, listQuery: a.query };
    case 'detailQuery':
      return { ...s, detailQuery: a.query };
    case 'view':
      return withNav(s, (nav) => ({ ...nav, view: a.view }));
    case 'scroll':
      return withNav(s, (nav) => {
        const now = clampWindow({ offset: nav.offsets[a.view], cursor: 0 }, a.count, a.height, false);
        const { offset } = moveWindow(now, a.move, a.count, a.height, false);
        const next = { ...nav, offsets: { ...nav.offsets, [a.view]: offset } };
        if (!a.hunkStarts) return next;
        const { start, end } = scrolledWindow(offset, a.count, a.height);
        return { ...next, hunk: followHunk(nav.hunk, a.hunkStarts, start, end, a.count) };
      });
    case 'hunk':
      return withNav(s, (nav) => ({ ...nav, hunk: a.hunk }));
    case 'editCursor':
      return withNav(s, (nav) => ({ ...nav, editCursor: a.index }));
    case 'expanded':
      return withNav(s, (nav) => ({ ...nav, expanded: a.ids }));
    case 'diffMode':
      return { ...s, diffMode: a.mode };
    case 'include':
      return { ...s, selections: { ...s.selections, [a.id]: a.editIds } };
    case 'ask':
      return { ...s, dialog: { ...a.dialog, selected: a.dialog.initial ?? 0 } };
    case 'dialogMove': {
      if (!s.dialog) return s;
      const len = s.dialog.options.length;
      return { ...s, dialog: { ...s.dialog, selected: (s.dialog.selected + (a.by === -1 ? len - 1 : 1)) % len } };
    }
    case 'dialogClose':
      return { ...s, dialog: null };
    case 'prompt':
      return { ...s, text: { ...a.text, value: a.text.initial ?? '' } };
    case 'type':
      return s.text ? { ...s, text: { ...s.text, value: s.text.value + a.chars } } : s;
    case 'erase':
      // by code point, so an emoji or an accented letter goes in one press
      return s.text ? { ...s, text: { ...s.text, value: Array.from(s.text.value).slice(0, -1).join('') } } : s;
    case 'promptClose':
      return { ...s, text: null };
    case 'help':
      return { ...s, help: a.open ? { offset: 0 } : null };
    case 'helpScroll':
      return s.help ? { ...s, help: { offset: Math.min(a.max, Math.max(0, s.help.offset + a.by)) } } : s;
    case 'say':
      return { ...s, message: { text: a.text, tone: a.tone } };
    case 'busy':
      return { ...s, busy: a.busy };
    case 'applied':
      return { ...s, lastApplied: a.id };
  }
}

/** The proposal undo reverts: the one applied in this session, else the latest applied. */
export function lastAppliedProposal(s: ReviewState): Proposal | undefined {
  if (s.lastApplied) {
    const p = s.proposals.find((x) => x.id === s.lastApplied && x.status === 'applied');
    if (p) return p;
  }
  return s.proposals.filter((p) => p.status === 'applied').sort((a, b) => (b.decidedAt ?? 0) - (a.decidedAt ?? 0))[0];
}
