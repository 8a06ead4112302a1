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

/** One way to reach a command: the keys, where they work, and what the help overlay says. */
export interface Keybinding {
  /** canonical key names, see `canonicalKeys` */
  keys: readonly string[];
  contexts: readonly KeyContext[];
  /** one line for the help overlay */
  help: string;
  /** the keys the status line names (default: the first one) */
  statusKeys?: readonly string[];
}

/** A binding as the resolver and the help read it: the command it runs beside its keys. */
export interface Binding extends Keybinding {
  command: Command;
}

/**
 * Every command with at least one binding: a command missing here (or one that is not a
 * `Command`) fails to compile, so nothing the screens handle can be unreachable by key.
 */
export type Keymap = { readonly [C in Command]: readonly [Keybinding, ...Keybinding[]] };

const LIST: KeyContext[] = ['list'];
const DETAIL: KeyContext[] = ['diff', 'evidence', 'report'];
const SCREENS: KeyContext[] = [...LIST, ...DETAIL];
const SCROLLERS: KeyContext[] = [...LIST, ...DETAIL];

// the order of the commands is the help overlay's order after its "decisions first" ranking
export const KEYMAP: Keymap = {
  up: [
    { keys: ['k', 'up'], contexts: [...SCROLLERS, 'dialog'], help: 'move up', statusKeys: ['up'] },
    { keys: ['k', 'up'], contexts: ['help'], help: 'scroll up' },
  ],
  down: [
    { keys: ['j', 'down'], contexts: [...SCROLLERS, 'dialog'], help: 'move down', statusKeys: ['down'] },
    { keys: ['j', 'down'], contexts: ['help'], help: 'scroll down' },
  ],
  pageUp: [{ keys: ['pageup', 'ctrl+u', 'b'], contexts: SCROLLERS, help: 'page up' }],
  pageDown: [{ keys: ['pagedown', 'ctrl+d', 'f'], contexts: SCROLLERS, help: 'page down' }],
  top: [{ keys: ['g', 'home'], contexts: SCROLLERS, help: 'go to the top' }],
  bottom: [{ keys: ['G', 'end'], contexts: SCROLLERS, help: 'go to the bottom' }],
  open: [{ keys: ['enter', 'l', 'right'], contexts: LIST, help: 'open the proposal' }],
  nextView: [{ keys: ['tab'], contexts: DETAIL, help: 'next view: Diff → Evidence → Report' }],
  prevView: [{ keys: ['shift+tab'], contexts: DETAIL, help: 'previous view' }],
  nextHunk: [{ keys: [']', 'J'], contexts: ['diff'], help: 'next hunk' }],
  prevHunk: [{ keys: ['[', 'K'], contexts: ['diff'], help: 'previous hunk' }],
  cycleDiffMode: [{ keys: ['d'], contexts: ['diff'], help: 'unified ↔ side-by-side diff' }],
  toggleEdit: [{ keys: ['space'], contexts: ['diff', 'evidence'], help: 'include / exclude this edit (partial apply)' }],
  includeAll: [{ keys: ['A'], contexts: ['diff', 'evidence'], help: 'include all edits' }],
  excludeAll: [{ keys: ['R'], contexts: ['diff', 'evidence'], help: 'exclude all edits' }],
  apply: [{ keys: ['a'], contexts: SCREENS, help: 'apply (the included edits) to the live file' }],
  reject: [{ keys: ['x'], contexts: SCREENS, help: 'reject (optionally with a reason)' }],
  editCandidate: [{ keys: ['e'], contexts: DETAIL, help: 'edit the candidate in $EDITOR, then apply' }],
  revertLast: [{ keys: ['u'], contexts: SCREENS, help: 'undo: revert the last apply' }],
  forget: [{ keys: ['F'], contexts: SCREENS, help: 'forget a rejection: a later night may propose its edits again' }],
  expand: [{ keys: ['enter'], contexts: ['diff', 'evidence'], help: 'expand / fold an edit: its full text, reasons and evidence' }],
  skip: [{ keys: ['s'], contexts: DETAIL, help: 'skip: decide later, open the next waiting proposal' }],
  search: [{ keys: ['/'], contexts: SCREENS, help: 'search' }],
  searchNext: [{ keys: ['n'], contexts: SCREENS, help: 'next match' }],
  searchPrev: [{ keys: ['N'], contexts: SCREENS, help: 'previous match' }],
  help: [{ keys: ['?'], contexts: SCREENS, help: 'this help' }],
  back: [
    { keys: ['q', 'esc', 'left', 'h'], contexts: DETAIL, help: 'back to the list' },
    { keys: ['esc', 'q'], contexts: ['dialog'], help: 'cancel (same as No)' },
    { keys: ['esc', 'q', '?', 'enter'], contexts: ['help'], help: 'close help', statusKeys: ['esc', 'q', '?'] },
  ],
  quit: [
    { keys: ['q', 'esc'], contexts: LIST, help: 'quit' },
    { keys: ['ctrl+c'], contexts: [...SCREENS, 'dialog', 'help', 'busy'], help: 'quit now' },
  ],
  cancel: [{ keys: ['esc', 'q'], contexts: ['busy'], help: 'while re-scoring: cancel it, nothing is written', statusKeys: ['esc', 'q'] }],
  choose1: [{ keys: ['1'], contexts: ['dialog'], help: 'choose option 1' }],
  choose2: [{ keys: ['2'], contexts: ['dialog'], help: 'choose option 2' }],
  choose3: [{ keys: ['3'], contexts: ['dialog'], help: 'choose option 3' }],
  choose4: [{ keys: ['4'], contexts: ['dialog'], help: 'choose option 4' }],
  confirm: [{ keys: ['enter'], contexts: ['dialog'], help: 'choose the highlighted option' }],
};

/** The keymap as one list, in its order (the resolver and the help overlay walk it). */
export const BINDINGS: readonly Binding[] = (Object.keys(KEYMAP) as Command[]).flatMap((command) => KEYMAP[command].map((b) => ({ command, ...b })));

/** The binding of `command` that works in `context`, or undefined when none does. */
export function bindingIn(command: Command, context: KeyContext): Keybinding | undefined {
  return KEYMAP[command].find((b) => b.contexts.includes(context));
}

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

/** The contexts with a status line of their own (a dialog shows its options instead). */
export type HintContext = 'list' | 'diff' | 'evidence' | 'report' | 'help' | 'busy';

/**
 * The status line's words per context, full and compact (a terminal under 90 columns). `{command}`
 * stands for the keys the keymap binds to that command there, so a rebound key changes the hint
 * too, and a hint naming a command that has no key in its context throws (see the keymap test).
 */
const STATUS_HINTS: Record<HintContext, { full: string; compact: string }> = {
  list: {
    full: '{up}/{down} move · {open} open · {apply} apply · {reject} reject · {revertLast} undo · {forget} forget · {search} search · {help} help · {quit} quit',
    compact: '{up}{down} {open} · {apply} apply · {reject} reject · {revertLast} undo · {help} help',
  },
  diff: {
    full: '{nextView} view · {nextHunk}/{prevHunk} hunk · {expand} expand · {toggleEdit} edit · {apply} apply · {reject} reject · {editCandidate} edit · {skip} skip · {cycleDiffMode} layout · {help} help · {back} back',
    compact: '{nextView} · {nextHunk}/{prevHunk} hunk · {toggleEdit} · {apply} · {reject} · {editCandidate} · {skip} · {help} help',
  },
  evidence: {
    full: '{nextView} view · {up}/{down} edit · {expand} expand · {toggleEdit} include · {apply} apply · {reject} reject · {editCandidate} edit · {help} help · {back} back',
    compact: '{nextView} · {up}{down} · {toggleEdit} · {apply} · {reject} · {editCandidate} · {help} help',
  },
  report: {
    full: '{nextView} view · {up}/{down} scroll · {apply} apply · {reject} reject · {search} search · {help} help · {back} back',
    compact: '{nextView} · {up}{down} · {apply} · {reject} · {search} · {help} help',
  },
  help: { full: '{back} close help · {down}/{up} scroll', compact: '{back} close help · {down}/{up} scroll' },
  busy: { full: '{cancel} cancel · {quit} quit', compact: '{cancel} cancel · {quit} quit' },
};

/** The terminal width below which the status line uses its compact words. */
export const COMPACT_HINTS_BELOW = 90;

/** The status line's key hints for a context, with the keys read from the keymap. */
export function statusHints(context: HintContext, width: number): string {
  const spec = STATUS_HINTS[context];
  return (width < COMPACT_HINTS_BELOW ? spec.compact : spec.full).replace(/\{(\w+)\}/g, (_, name: string) => {
    const binding = name in KEYMAP ? bindingIn(name as Command, context) : undefined;
    if (!binding) throw new Error(`status hint for ${context} names "${name}", which has no key there`);
    return (binding.statusKeys ?? binding.keys.slice(0, 1)).map(keyLabel).join(' / ');
  });
}
