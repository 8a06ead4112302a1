/**
 * The review keymap: one table maps canonical key names to commands per screen context. Pure, so
 * it is unit-tested and the help overlay is generated from the same table the input handler uses
 * (a key that works is a key that is documented). Conventions follow peers.md §5: j/k or arrows
 * move, Enter opens, Space toggles, a/x decide, e edits in $EDITOR, u undoes, / searches, ? helps,
 * q/Esc goes back, digits answer numbered dialogs.
 */

/** The subset of Ink's `Key` the keymap reads (Ink's type is structurally compatible). */
export interface KeyFlags {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
  return?: boolean;
  escape?: boolean;
  ctrl?: boolean;
  shift?: boolean;
  meta?: boolean;
  tab?: boolean;
  backspace?: boolean;
  delete?: boolean;
}

/** 'busy' = a long job runs (re-scoring a partial selection); only cancel and quit work */
export type KeyContext = 'list' | 'diff' | 'evidence' | 'report' | 'dialog' | 'help' | 'busy';

export type Command =
  | 'up'
  | 'down'
  | 'pageUp'
  | 'pageDown'
  | 'top'
  | 'bottom'
  | 'open'
  | 'back'
  | 'quit'
  | 'help'
  | 'search'
  | 'searchNext'
  | 'searchPrev'
  | 'nextView'
  | 'prevView'
  | 'nextHunk'
  | 'prevHunk'
  | 'toggleEdit'
  | 'includeAll'
  | 'excludeAll'
  | 'apply'
  | 'reject'
  | 'editCandidate'
  | 'revertLast'
  | 'forget'
  | 'expand'
  | 'skip'
  | 'cycleDiffMode'
  | 'confirm'
  | 'cancel'
  | 'choose1'
  | 'choose2'
  | 'choose3'
  | 'choose4';

export interface Binding {
  command: Command;
  /** canonical key names, see `canonicalKeys` */
  keys: string[];
  contexts: KeyContext[];
  /** one line for the help overlay */
  help: string;
}

const LIST: KeyContext[] = ['list'];
const DETAIL: KeyContext[] = ['diff', 'evidence', 'report'];
const SCREENS: KeyContext[] = [...LIST, ...DETAIL];
const SCROLLERS: KeyContext[] = [...LIST, ...DETAIL];

export const BINDINGS: Binding[] = [
  { command: 'up', keys: ['k', 'up'], contexts: [...SCROLLERS, 'dialog'], help: 'move up' },
  { command: 'down', keys: ['j', 'down'], contexts: [...SCROLLERS, 'dialog'], help: 'move down' },
  { command: 'pageUp', keys: ['pageup', 'ctrl+u', 'b'], contexts: SCROLLERS, help: 'page up' },
  { command: 'pageDown', keys: ['pagedown', 'ctrl+d', 'f'], contexts: SCROLLERS, help: 'page down' },
  { command: 'top', keys: ['g', 'home'], contexts: SCROLLERS, help: 'go to the top' },
  { command: 'bottom', keys: ['G', 'end'], contexts: SCROLLERS, help: 'go to the bottom' },
  { command: 'open', keys: ['enter', 'l', 'right'], contexts: LIST, help: 'open the proposal' },
  { command: 'nextView', keys: ['tab'], contexts: DETAIL, help: 'next view: Diff → Evidence → Report' },
  { command: 'prevView', keys: ['shift+tab'], contexts: DETAIL, help: 'previous view' },
  { command: 'nextHunk', keys: [']', 'J'], contexts: ['diff'], help: 'next hunk' },
  { command: 'prevHunk', keys: ['[', 'K'], contexts: ['diff'], help: 'previous hunk' },
  { command: 'cycleDiffMode', keys: ['d'], contexts: ['diff'], help: 'unified ↔ side-by-side diff' },
  { command: 'toggleEdit', keys: ['space'], contexts: ['diff', 'evidence'], help: 'include / exclude this edit (partial apply)' },
  { command: 'includeAll', keys: ['A'], contexts: ['diff', 'evidence'], help: 'include all edits' },
  { command: 'excludeAll', keys: ['R'], contexts: ['diff', 'evidence'], help: 'exclude all edits' },
  { command: 'apply', keys: ['a'], contexts: SCREENS, help: 'apply (the included edits) to the live file' },
  { command: 'reject', keys: ['x'], contexts: SCREENS, help: 'reject (optionally with a reason)' },
  { command: 'editCandidate', keys: ['e'], contexts: DETAIL, help: 'edit the candidate in $EDITOR, then apply' },
  { command: 'revertLast', keys: ['u'], contexts: SCREENS, help: 'undo: revert the last apply' },
  { command: 'forget', keys: ['F'], contexts: SCREENS, help: 'forget a rejection: a later night may propose its edits again' },
  { command: 'expand', keys: ['enter'], contexts: ['diff', 'evidence'], help: 'expand / fold an edit: its full text, reasons and evidence' },
  { command: 'skip', keys: ['s'], contexts: DETAIL, help: 'skip: decide later, open the next waiting proposal' },
  { command: 'search', keys: ['/'], contexts: [...LIST, 'diff', 'evidence', 'report'], help: 'search' },
  { command: 'searchNext', keys: ['n'], contexts: [...LIST, 'diff', 'evidence', 'report'], help: 'next match' },
  { command: 'searchPrev', keys: ['N'], contexts: [...LIST, 'diff', 'evidence', 'report'], help: 'previous match' },
  { command: 'help', keys: ['?'], contexts: SCREENS, help: 'this help' },
  { command: 'back', keys: ['q', 'esc', 'left', 'h'], contexts: DETAIL, help: 'back to the list' },
  { command: 'quit', keys: ['q', 'esc'], contexts: LIST, help: 'quit' },
  { command: 'quit', keys: ['ctrl+c'], contexts: [...SCREENS, 'dialog', 'help', 'busy'], help: 'quit now' },
  { command: 'cancel', keys: ['esc', 'q'], contexts: ['busy'], help: 'while re-scoring: cancel it, nothing is written' },
  { command: 'choose1', keys: ['1'], contexts: ['dialog'], help: 'choose option 1' },
  { command: 'choose2', keys: ['2'], contexts: ['dialog'], help: 'choose option 2' },
  { command: 'choose3', keys: ['3'], contexts: ['dialog'], help: 'choose option 3' },
  { command: 'choose4', keys: ['4'], contexts: ['dialog'], help: 'choose option 4' },
  { command: 'confirm', keys: ['enter'], contexts: ['dialog'], help: 'choose the highlighted option' },
  { command: 'back', keys: ['esc', 'q'], contexts: ['dialog'], help: 'cancel (same as No)' },
  { command: 'back', keys: ['esc', 'q', '?', 'enter'], contexts: ['help'], help: 'close help' },
  { command: 'up', keys: ['k', 'up'], contexts: ['help'], help: 'scroll up' },
  { command: 'down', keys: ['j', 'down'], contexts: ['help'], help: 'scroll down' },
];

/**
 * Canonical names of one key press, most specific first: special keys by name ('up', 'enter',
 * 'shift+tab', 'ctrl+d'), Space as 'space', printable keys as themselves (case-sensitive).
 */
export function canonicalKeys(input: string, key: KeyFlags): string[] {
  if (key.upArrow) return ['up'];
  if (key.downArrow) return ['down'];
  if (key.leftArrow) return ['left'];
  if (key.rightArrow) return ['right'];
  if (key.pageUp) return ['pageup'];
  if (key.pageDown) return ['pagedown'];
  if (key.home) return ['home'];
  if (key.end) return ['end'];
  if (key.tab) return [key.shift ? 'shift+tab' : 'tab'];
  if (key.return) return ['enter'];
  if (key.escape) return ['esc'];
  if (key.backspace || key.delete) return ['backspace'];
  if (key.ctrl && input) return [`ctrl+${input.toLowerCase()}`];
  if (input === ' ') return ['space'];
  if (input.length === 1) return [input];
  return [];
}

/** The command a key press means in a context, or null when it means nothing there. */
export function resolveCommand(context: KeyContext, input: string, key: KeyFlags): Command | null {
  const names = canonicalKeys(input, key);
  if (names.length === 0) return null;
  for (const b of BINDINGS) {
    if (!b.contexts.includes(context)) continue;
    if (b.keys.some((k) => names.includes(k))) return b.command;
  }
  return null;
}

/** Index (0-based) of the dialog option a choose command selects, or null. */
export function chosenOption(command: Command | null): number | null {
  switch (command) {
    case 'choose1':
      return 0;
    case 'choose2':
      return 1;
    case 'choose3':
      return 2;
    case 'choose4':
      return 3;
    default:
      return null;
  }
}

const KEY_LABELS: Record<string, string> = {
  up: '↑',
  down: '↓',
  left: '←',
  right: '→',
  pageup: 'PgUp',
  pagedown: 'PgDn',
  enter: 'Enter',
  esc: 'Esc',
  tab: 'Tab',
  'shift+tab': 'Shift+Tab',
  space: 'Space',
  home: 'Home',
  end: 'End',
};

export function keyLabel(k: string): string {
  if (KEY_LABELS[k]) return KEY_LABELS[k];
  if (k.startsWith('ctrl+')) return `Ctrl+${k.slice(5)}`;
  return k;
}

// what a reviewer needs first: decisions, then views, then movement
const HELP_FIRST: Command[] = ['apply', 'reject', 'toggleEdit', 'includeAll', 'excludeAll', 'editCandidate', 'revertLast', 'forget', 'skip', 'open', 'expand', 'nextView', 'prevView', 'nextHunk', 'prevHunk', 'cycleDiffMode', 'search', 'searchNext', 'searchPrev'];
const helpRank = (c: Command) => {
  const i = HELP_FIRST.indexOf(c);
  return i < 0 ? HELP_FIRST.length : i;
};

/** Help rows for a context: merged key labels and the description, decisions first. */
export function helpFor(context: KeyContext): Array<{ keys: string; help: string }> {
  const rows: Array<{ keys: string; help: string }> = [];
  const seen = new Set<string>();
  const ordered = BINDINGS.map((b, i) => ({ b, i })).sort((x, y) => helpRank(x.b.command) - helpRank(y.b.command) || x.i - y.i).map((x) => x.b);
  for (const b of ordered) {
    if (!b.contexts.includes(context)) continue;
    if (b.command.startsWith('choose')) continue;
    const id = `${b.command}:${b.help}`;
    if (seen.has(id)) continue;
    seen.add(id);
    rows.push({ keys: b.keys.map(keyLabel).join(' / '), help: b.help });
  }
  if (context === 'dialog') rows.unshift({ keys: '1 2 3 4', help: 'choose a numbered option' });
  // help cannot open while a job runs, so its keys are listed where Space picks the subset it re-scores
  if (BINDINGS.some((b) => b.command === 'toggleEdit' && b.contexts.includes(context))) {
    for (const b of BINDINGS) if (b.contexts.includes('busy') && b.command !== 'quit') rows.push({ keys: b.keys.map(keyLabel).join(' / '), help: b.help });
  }
  return rows;
}
