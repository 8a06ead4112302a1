/**
 * The review app: list → detail, with dialogs, help and search layered on top. Owns the shared
 * state (proposals, selection of edits per proposal, the dialog, the status line) and routes keys:
 * exactly one input handler is active at a time (dialog > text box > help > screen).
 */
import React, { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Box, Text, useApp } from 'ink';
import type { Proposal } from '../core/records.js';
import type { Command, KeyContext } from './keymap.js';
import { chosenOption, helpFor } from './keymap.js';
import type { ReviewServices, RiskFlag, StaleInfo } from './services.js';
import { isPending, matchesQuery, sortNewestFirst, type ListItem } from './list-model.js';
import { ledgerLine } from './format.js';
import { acceptedEdits } from './evidence-model.js';
import { createDecisions, type DialogSpec, type TextSpec } from './decisions.js';
import { useKeymap, type KeyRoute } from './hooks/useKeymap.js';
import { useTerminalSize, type TerminalSize } from './hooks/useTerminalSize.js';
import { ListScreen } from './screens/ListScreen.js';
import { DetailScreen, type DetailView } from './screens/DetailScreen.js';
import type { DiffMode } from './components/DiffView.js';
import { ConfirmDialog } from './components/ConfirmDialog.js';
import { TextPrompt } from './components/TextPrompt.js';
import { HelpOverlay, helpRoom } from './components/HelpOverlay.js';
import { StatusBar, type Tone } from './components/StatusBar.js';
import { EmptyState, emptyStateHeight } from './components/EmptyState.js';

export interface AppProps {
  services: ReviewServices;
  /** open this proposal directly (`review --id`) */
  initialId?: string;
  /** pin the terminal size (tests, benchmarks) */
  size?: TerminalSize;
}

const HINTS: Record<'list' | DetailView, string> = {
  list: '↑/↓ move · Enter open · a apply · x reject · u undo · F forget · / search · ? help · q quit',
  diff: 'Tab view · ]/[ hunk · Enter expand · Space edit · a apply · x reject · e edit · s skip · d layout · ? help · q back',
  evidence: 'Tab view · ↑/↓ edit · Enter expand · Space include · a apply · x reject · e edit · ? help · q back',
  report: 'Tab view · ↑/↓ scroll · a apply · x reject · / search · ? help · q back',
};

const SHORT_HINTS: Record<'list' | DetailView, string> = {
  list: '↑↓ Enter · a apply · x reject · u undo',
  diff: 'Tab · ]/[ hunk · Space · a · x · e · s',
  evidence: 'Tab · ↑↓ · Space · a · x · e',
  report: 'Tab · ↑↓ · a · x · /',
};

function dialogHeight(d: DialogSpec): number {
  return 2 + 1 + d.body.length + d.options.length + 1;
}

export function App({ services, initialId, size }: AppProps): React.ReactElement {
  const app = useApp();
  const term = useTerminalSize(size);
  const width = term.columns;
  // one row short of the terminal: Ink clears the whole screen when a frame fills it
  const rows = Math.max(5, term.rows - 1);

  const [proposals, setProposals] = useState<Proposal[]>(() => sortNewestFirst(services.listProposals()));
  const [ledger, setLedger] = useState(() => services.ledgerSummary());
  // computed only when the empty state shows (it is the only screen that needs the schedule)
  const nextNightRef = useRef<ReturnType<ReviewServices['nextNight']> | null>(null);
  const nextNight = () => (nextNightRef.current ??= services.nextNight());
  const staleness = useMemo(() => {
    const m = new Map<string, StaleInfo>();
    for (const p of proposals) if (p.status === 'staged' || p.status === 'stale') m.set(p.id, services.staleness(p));
    return m;
  }, [proposals, services]);
  // what the risk lint flags in each waiting proposal: shown in the list and the header, confirmed twice on apply
  const risks = useMemo(() => {
    const m = new Map<string, RiskFlag[]>();
    for (const p of proposals) if (p.status === 'staged' || p.status === 'stale') m.set(p.id, services.risk(p));
    return m;
  }, [proposals, services]);
  const items: ListItem[] = useMemo(
    () => proposals.map((p) => ({ proposal: p, status: p.status === 'staged' && staleness.get(p.id)?.stale ? 'stale' : p.status, risky: (risks.get(p.id)?.length ?? 0) > 0 })),
    [proposals, staleness, risks],
  );

  const [listQuery, setListQuery] = useState('');
  const shown = useMemo(() => items.filter((i) => matchesQuery(i, listQuery)), [items, listQuery]);
  const [openId, setOpenId] = useState<string | null>(initialId ?? null);
  // back from `review --id`, the list cursor sits on that proposal
  const listCursor = useRef(initialId ? Math.max(0, items.findIndex((i) => i.proposal.id === initialId)) : 0);
  const screenKeys = useRef<((c: Command) => void) | null>(null);
  const onCursor = useCallback((i: number) => (listCursor.current = i), []);

  const [view, setView] = useState<DetailView>('diff');
  const [diffMode, setDiffMode] = useState<DiffMode | null>(null);
  const [selections, setSelections] = useState<Record<string, Set<string>>>({});
  const [detailQuery, setDetailQuery] = useState('');

  const [dialog, setDialog] = useState<(DialogSpec & { selected: number }) | null>(null);
  const [text, setText] = useState<(TextSpec & { value: string }) | null>(null);
  const [help, setHelp] = useState(false);
  const [helpOffset, setHelpOffset] = useState(0);
  const [message, setMessage] = useState<{ text: string; tone: Tone } | null>(null);
  const [busy, setBusy] = useState<{ label: string; cancel?: () => void } | null>(null);
  const [lastApplied, setLastApplied] = useState<string | null>(null);

  const refresh = useCallback(() => {
    setProposals(sortNewestFirst(services.listProposals()));
    setLedger(services.ledgerSummary());
  }, [services]);

  const decisions = useMemo(
    () =>
      createDecisions(services, {
        ask: (d) => setDialog({ ...d, selected: d.initial ?? 0 }),
        prompt: (t) => setText({ ...t, value: t.initial ?? '' }),
        say: (t, tone = 'info') => setMessage({ text: t, tone }),
        busy: (label, cancel) => setBusy(label === null ? null : { label, cancel }),
        refresh,
        applied: (id) => setLastApplied(id),
      }),
    [services, refresh],
  );
  const say = useCallback((t: string, tone: Tone = 'info') => setMessage({ text: t, tone }), []);

  const current = openId ? proposals.find((p) => p.id === openId) : undefined;
  const selectionOf = (p: Proposal): Set<string> => selections[p.id] ?? new Set(acceptedEdits(p).map((e) => e.id));
  const evidence = useMemo(() => (current ? services.evidence(current) : null), [current, services]);
  const missedBy = useMemo(() => (current ? services.missedBy(current) : []), [current, services]);
  const report = useMemo(() => (current ? services.report(current) : null), [current, services]);

  const lastAppliedProposal = (): Proposal | undefined => {
    if (lastApplied) {
      const p = proposals.find((x) => x.id === lastApplied && x.status === 'applied');
      if (p) return p;
    }
    return proposals.filter((p) => p.status === 'applied').sort((a, b) => (b.decidedAt ?? 0) - (a.decidedAt ?? 0))[0];
  };

  const quit = () => app.exit();

  const screenCommand = (c: Command, p: Proposal | undefined) => {
    switch (c) {
      case 'quit':
        return quit();
      case 'help':
        setHelpOffset(0);
        return setHelp(true);
      case 'revertLast':
        return decisions.revert(lastAppliedProposal());
      case 'search':
        if (openId) return setText({ label: 'Search: ', value: '', onSubmit: (v) => setDetailQuery(v) });
        return setText({
          label: 'Filter: ',
          value: listQuery,
          hint: 'type to filter · Enter keep · Esc clear',
          onChange: setListQuery,
          onSubmit: setListQuery,
          onCancel: () => setListQuery(''),
        });
      case 'searchNext':
      case 'searchPrev':
        return say(listQuery ? `filter "${listQuery}": ${shown.length} of ${items.length}` : 'press / to filter the list', 'info');
      default:
        break;
    }
    if (!p) return say('no proposal selected', 'info');
    switch (c) {
      case 'open':
        setOpenId(p.id);
        setView('diff');
        setDetailQuery('');
        return setMessage(null);
      case 'back':
        setOpenId(null);
        return setMessage(null);
      case 'skip': {
        // the next waiting proposal after this one (in list order), wrapping around
        const waiting = items.filter((i) => isPending(i.status) && i.proposal.id !== p.id);
        const after = items.findIndex((i) => i.proposal.id === p.id);
        const next = waiting.find((i) => items.indexOf(i) > after) ?? waiting[0];
        if (!next) return say('no other proposal is waiting', 'info');
        setOpenId(next.proposal.id);
        setView('diff');
        setDetailQuery('');
        return say(`skipped ${p.skillTarget.name}: it stays staged`, 'info');
      }
      case 'apply':
        return decisions.apply(p, selectionOf(p));
      case 'reject':
        return decisions.reject(p);
      case 'editCandidate':
        return decisions.edit(p);
      case 'forget':
        return decisions.forget(p);
      default:
        return;
    }
  };

  // ---- input routing: dialog > text box > help > busy > screen, one dispatcher (see useKeymap) ----
  const closeDialog = (index: number) => {
    if (!dialog) return;
    const opt = dialog.options[index];
    if (!opt) return;
    setDialog(null);
    opt.run?.();
  };
  const screenContext: KeyContext = current ? view : 'list';
  let route: KeyRoute | null;
  if (dialog) {
    route = {
      context: 'dialog',
      onCommand: (c) => {
        if (c === 'quit') return quit();
        const n = chosenOption(c);
        if (n !== null) return closeDialog(n);
        if (c === 'up' || c === 'down') {
          const len = dialog.options.length;
          return setDialog({ ...dialog, selected: (dialog.selected + (c === 'up' ? len - 1 : 1)) % len });
        }
        if (c === 'confirm') return closeDialog(dialog.selected);
        if (c === 'back') return closeDialog(dialog.options.length - 1);
      },
    };
  } else if (text) {
    route = {
      context: 'list',
      onCommand: (c) => c === 'quit' && quit(),
      text: {
        // functional updates: a paste or fast typing delivers several keys before the next render
        onChar: (ch) => setText((t) => (t ? { ...t, value: t.value + ch } : t)),
        onBackspace: () => setText((t) => (t ? { ...t, value: Array.from(t.value).slice(0, -1).join('') } : t)),
        onSubmit: () => {
          setText(null);
          text.onSubmit(text.value);
        },
        onCancel: () => {
          setText(null);
          text.onCancel?.();
        },
      },
    };
  } else if (help) {
    route = {
      context: 'help',
      onCommand: (c) => {
        if (c === 'quit') return quit();
        if (c === 'back') return setHelp(false);
        const max = Math.max(0, helpFor(screenContext).length - helpRoom(rows - 2));
        if (c === 'down') setHelpOffset((o) => Math.min(max, o + 1));
        if (c === 'up') setHelpOffset((o) => Math.max(0, o - 1));
      },
    };
  } else if (busy) {
    route = {
      context: 'busy',
      onCommand: (c) => {
        // Ctrl+c also aborts a running replay, so its backend calls stop with the app
        if (c === 'cancel' || c === 'quit') busy.cancel?.();
        if (c === 'quit') quit();
      },
    };
  } else {
    route = { context: screenContext, onCommand: (c) => screenKeys.current?.(c) };
  }
  useKeymap(route);
  const textValue = text?.value;
  const textOnChange = text?.onChange;
  useEffect(() => {
    if (textValue !== undefined) textOnChange?.(textValue);
  }, [textValue]);

  // ---- layout ----
  const statusRows = 2;
  let body: React.ReactElement;
  const dialogRows = dialog ? dialogHeight(dialog) : 0;
  if (current && evidence && report) {
    const h = Math.max(0, rows - statusRows - dialogRows);
    body = (
      <DetailScreen
        key={current.id}
        proposal={current}
        stale={staleness.get(current.id) ?? null}
        evidence={evidence}
        report={report}
        width={width}
        height={h}
        now={services.now()}
        view={view}
        onView={setView}
        diffMode={diffMode}
        onDiffMode={setDiffMode}
        included={selectionOf(current)}
        onIncluded={(s) => setSelections({ ...selections, [current.id]: s })}
        query={detailQuery}
        keys={screenKeys}
        onCommand={(c) => screenCommand(c, current)}
        onForget={(editIds) => decisions.forget(current, editIds)}
        risk={risks.get(current.id) ?? []}
        missedBy={missedBy}
        say={say}
      />
    );
  } else {
    const pending = items.filter((i) => isPending(i.status)).length;
    const decided = items.length - pending;
    const empty = pending === 0;
    const head = 2 + (empty ? emptyStateHeight(decided) : 0);
    const listRows = items.length === 0 ? 0 : Math.max(0, rows - statusRows - dialogRows - head);
    body = (
      <Box flexDirection="column">
        <Text wrap="truncate-end">
          <Text bold>skillopt-sleep review</Text>
          <Text dimColor>
            {' · '}
            {pending} waiting · {decided} decided{listQuery ? ` · filter "${listQuery}" (${shown.length})` : ''}
          </Text>
        </Text>
        <Text wrap="truncate-end" dimColor>
          {ledgerLine(ledger, services.now())}
        </Text>
        {empty ? <EmptyState next={nextNight()} now={services.now()} decided={decided} width={width} /> : null}
        {listRows > 0 ? (
          <ListScreen
            items={shown}
            width={width}
            height={listRows}
            now={services.now()}
            keys={screenKeys}
            initialCursor={listCursor.current}
            onCursor={onCursor}
            onCommand={(c, item) => screenCommand(c, item?.proposal)}
          />
        ) : null}
      </Box>
    );
  }

  return (
    <Box flexDirection="column" width={width}>
      {help ? <HelpOverlay context={screenContext} height={rows - statusRows} width={width} offset={helpOffset} /> : null}
      {/* the screen stays mounted under dialogs and help, so it keeps its scroll position */}
      <Box flexDirection="column" display={help ? 'none' : 'flex'}>
        {body}
      </Box>
      {dialog ? <ConfirmDialog title={dialog.title} body={dialog.body} options={dialog.options} selected={dialog.selected} width={width} tone={dialog.tone} /> : null}
      {text ? (
        <TextPrompt label={text.label} value={text.value} hint={text.hint} />
      ) : (
        <StatusBar message={message?.text ?? null} tone={message?.tone ?? 'info'} busy={busy?.label ?? null} hints={help ? 'Esc/q/? close help · j/k scroll' : busy?.cancel ? 'Esc / q cancel · Ctrl+c quit' : (width < 90 ? SHORT_HINTS : HINTS)[current ? view : 'list'] + (width < 90 ? ' · ? help' : '')} />
      )}
    </Box>
  );
}
