/**
 * The review app: list → detail, with dialogs, help and search layered on top. The state lives in
 * one reducer (review-state.ts); the app derives what the screens show from it and routes each key
 * to exactly one handler (dialog > text box > help > busy > the screen the state names), through
 * the single input handler of useKeymap. The screens only draw.
 */
import React, { useCallback, useEffect, useMemo, useReducer, useRef } from 'react';
import { Box, useApp } from 'ink';
import type { Proposal } from '../core/records.js';
import { helpFor, statusHints, type Command, type KeyContext } from './keymap.js';
import type { ReviewServices, RiskFlag, StaleInfo } from './services.js';
import { isPending, matchesQuery, sortNewestFirst, type ListItem } from './list-model.js';
import { acceptedEdits } from './evidence-model.js';
import { createDecisions, type DialogSpec } from './decisions.js';
import { initialReviewState, lastAppliedProposal, reviewReducer, type ReviewState } from './review-state.js';
import { clampWindow, scrollMoveFor } from './scroll-window.js';
import { useKeymap, type KeyRoute } from './hooks/useKeymap.js';
import { overlayRoute } from './overlay-keys.js';
import { useTerminalSize, type TerminalSize } from './hooks/useTerminalSize.js';
import { ListScreen } from './screens/ListScreen.js';
import { DetailScreen } from './screens/DetailScreen.js';
import { useDetailModel } from './screens/detail-model.js';
import { detailCommand } from './screens/detail-keys.js';
import { ConfirmDialog } from './components/ConfirmDialog.js';
import { TextPrompt } from './components/TextPrompt.js';
import { HelpOverlay, helpRoom } from './components/HelpOverlay.js';
import { StatusBar } from './components/StatusBar.js';
import { emptyStateHeight } from './components/EmptyState.js';
import type { Tone } from './theme.js';

export interface AppProps {
  services: ReviewServices;
  /** open this proposal directly (`review --id`) */
  initialId?: string;
  /** pin the terminal size (tests, benchmarks) */
  size?: TerminalSize;
}

/** the status line: the last outcome, then the key hints */
const STATUS_ROWS = 2;

function dialogHeight(d: DialogSpec): number {
  return 2 + 1 + d.body.length + d.options.length + 1;
}

/** What the services say about each waiting proposal: is its live file stale, what does the risk lint flag. */
function useWaitingFacts(proposals: Proposal[], services: ReviewServices) {
  return useMemo(() => {
    const staleness = new Map<string, StaleInfo>();
    const risks = new Map<string, RiskFlag[]>();
    for (const p of proposals) {
      if (p.status !== 'staged' && p.status !== 'stale') continue;
      staleness.set(p.id, services.staleness(p));
      risks.set(p.id, services.risk(p));
    }
    return { staleness, risks };
  }, [proposals, services]);
}

export function App({ services, initialId, size }: AppProps): React.ReactElement {
  const app = useApp();
  const term = useTerminalSize(size);
  const width = term.columns;
  // one row short of the terminal: Ink clears the whole screen when a frame fills it
  const rows = Math.max(5, term.rows - 1);

  const [state, dispatch] = useReducer(reviewReducer, undefined, (): ReviewState => {
    const proposals = sortNewestFirst(services.listProposals());
    return initialReviewState(proposals, services.ledgerSummary(), initialId);
  });
  const { proposals, screen, dialog, text, help, busy } = state;
  // computed only when the empty state shows (it is the only screen that needs the schedule)
  const nextNightRef = useRef<ReturnType<ReviewServices['nextNight']> | null>(null);
  const nextNight = () => (nextNightRef.current ??= services.nextNight());

  const { staleness, risks } = useWaitingFacts(proposals, services);
  const items: ListItem[] = useMemo(
    () => proposals.map((p) => ({ proposal: p, status: p.status === 'staged' && staleness.get(p.id)?.stale ? 'stale' : p.status, risky: (risks.get(p.id)?.length ?? 0) > 0, team: services.team?.(p)?.branch })),
    [proposals, staleness, risks, services],
  );
  const shown = useMemo(() => items.filter((i) => matchesQuery(i, state.listQuery)), [items, state.listQuery]);

  const say = useCallback((t: string, tone: Tone = 'info') => dispatch({ type: 'say', text: t, tone }), []);
  const decisions = useMemo(
    () =>
      createDecisions(services, {
        ask: (d) => dispatch({ type: 'ask', dialog: d }),
        prompt: (t) => dispatch({ type: 'prompt', text: t }),
        say,
        busy: (label, cancel) => dispatch({ type: 'busy', busy: label === null ? null : { label, cancel } }),
        refresh: () => dispatch({ type: 'loaded', proposals: sortNewestFirst(services.listProposals()), ledger: services.ledgerSummary() }),
        applied: (id) => dispatch({ type: 'applied', id }),
      }),
    [services, say],
  );

  const current = screen.kind === 'detail' ? proposals.find((p) => p.id === screen.id) : undefined;
  const nav = screen.kind === 'detail' ? screen.nav : null;
  const selectionOf = (p: Proposal): ReadonlySet<string> => state.selections[p.id] ?? new Set(acceptedEdits(p).map((e) => e.id));
  const evidence = useMemo(() => (current ? services.evidence(current) : null), [current, services]);
  const missedBy = useMemo(() => (current ? services.missedBy(current) : []), [current, services]);
  const report = useMemo(() => (current ? services.report(current) : null), [current, services]);
  const risk = current ? (risks.get(current.id) ?? []) : [];
  const stale = current ? (staleness.get(current.id) ?? null) : null;
  const included = current ? selectionOf(current) : null;

  // ---- layout ----
  const dialogRows = dialog ? dialogHeight(dialog) : 0;
  const pending = items.filter((i) => isPending(i.status)).length;
  const decided = items.length - pending;
  const listHead = 2 + (pending === 0 ? emptyStateHeight(decided) : 0);
  const listRows = items.length === 0 ? 0 : Math.max(0, rows - STATUS_ROWS - dialogRows - listHead);
  const listWindow = clampWindow(state.list, shown.length, Math.max(0, listRows - 1), true);

  const detail = useDetailModel(
    current && evidence && report && nav && included
      ? { proposal: current, stale, evidence, report, risk, width, height: Math.max(0, rows - STATUS_ROWS - dialogRows), now: services.now(), nav, diffMode: state.diffMode, included, query: state.detailQuery }
      : null,
    dispatch,
    say,
  );

  // ---- commands the screens share (decisions, search, help, quit) ----
  const quit = () => app.exit();
  const screenCommand = (c: Command, p: Proposal | undefined) => {
    switch (c) {
      case 'quit':
        return quit();
      case 'help':
        return dispatch({ type: 'help', open: true });
      case 'revertLast':
        return decisions.revert(lastAppliedProposal(state));
      case 'search':
        if (current) return dispatch({ type: 'prompt', text: { label: 'Search: ', onSubmit: (v) => dispatch({ type: 'detailQuery', query: v }) } });
        return dispatch({
          type: 'prompt',
          text: {
            label: 'Filter: ',
            initial: state.listQuery,
            hint: 'type to filter · Enter keep · Esc clear',
            onChange: (v) => dispatch({ type: 'listQuery', query: v }),
            onSubmit: (v) => dispatch({ type: 'listQuery', query: v }),
            onCancel: () => dispatch({ type: 'listQuery', query: '' }),
          },
        });
      case 'searchNext':
      case 'searchPrev':
        return say(state.listQuery ? `filter "${state.listQuery}": ${shown.length} of ${items.length}` : 'press / to filter the list', 'info');
      default:
        break;
    }
    if (!p) return say('no proposal selected', 'info');
    switch (c) {
      case 'open':
        return dispatch({ type: 'open', id: p.id });
      case 'back':
        return dispatch({ type: 'back' });
      case 'skip': {
        // the next waiting proposal after this one (in list order), wrapping around
        const waiting = items.filter((i) => isPending(i.status) && i.proposal.id !== p.id);
        const after = items.findIndex((i) => i.proposal.id === p.id);
        const next = waiting.find((i) => items.indexOf(i) > after) ?? waiting[0];
        if (!next) return say('no other proposal is waiting', 'info');
        return dispatch({ type: 'open', id: next.proposal.id, message: { text: `skipped ${p.skillTarget.name}: it stays staged`, tone: 'info' } });
      }
      case 'apply':
        return decisions.apply(p, new Set(selectionOf(p)));
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

  const listCommand = (c: Command) => {
    const move = c === 'up' ? { type: 'by' as const, delta: -1 } : c === 'down' ? { type: 'by' as const, delta: 1 } : scrollMoveFor(c);
    if (move) return dispatch({ type: 'listMove', move, count: shown.length, height: Math.max(0, listRows - 1) });
    return screenCommand(c, shown[listWindow.cursor]?.proposal);
  };

  // ---- input routing: dialog > text box > help > busy > screen, one dispatcher (see useKeymap) ----
  const screenContext: KeyContext = current ? (nav?.view ?? 'diff') : 'list';
  const helpMax = () => Math.max(0, helpFor(screenContext).length - helpRoom(rows - STATUS_ROWS));
  // the screen the state names takes the keys when no layer is open
  const screenRoute = (): KeyRoute => {
    if (!current || !detail || !nav || !included) return { context: 'list', onCommand: listCommand };
    return {
      context: screenContext,
      onCommand: (c) =>
        detailCommand(c, {
          proposal: current,
          model: detail,
          nav,
          included,
          query: state.detailQuery,
          dispatch,
          say,
          forget: (editIds) => decisions.forget(current, editIds),
          other: (cmd) => screenCommand(cmd, current),
        }),
    };
  };
  useKeymap(overlayRoute(state, { dispatch, quit, helpMax }) ?? screenRoute());
  // the list filter narrows as the user types
  const textValue = text?.value;
  const textOnChange = text?.onChange;
  useEffect(() => {
    if (textValue !== undefined) textOnChange?.(textValue);
  }, [textValue]);

  const body =
    current && detail && nav && included ? (
      <DetailScreen proposal={current} stale={stale} risk={risk} missedBy={missedBy} model={detail} nav={nav} included={included} width={width} />
    ) : (
      <ListScreen
        items={shown}
        pending={pending}
        decided={decided}
        listQuery={state.listQuery}
        ledger={state.ledger}
        nextNight={nextNight}
        width={width}
        listRows={listRows}
        cursor={listWindow.cursor}
        start={listWindow.offset}
        now={services.now()}
      />
    );

  const hints = help ? statusHints('help', width) : busy?.cancel ? statusHints('busy', width) : statusHints(current && nav ? nav.view : 'list', width);
  return (
    <Box flexDirection="column" width={width}>
      {help ? <HelpOverlay context={screenContext} height={rows - STATUS_ROWS} width={width} offset={help.offset} /> : null}
      {/* the screen stays drawn under dialogs and help, hidden under help */}
      <Box flexDirection="column" display={help ? 'none' : 'flex'}>
        {body}
      </Box>
      {dialog ? <ConfirmDialog title={dialog.title} body={dialog.body} options={dialog.options} selected={dialog.selected} width={width} tone={dialog.tone} /> : null}
      {text ? <TextPrompt label={text.label} value={text.value} hint={text.hint} /> : <StatusBar message={state.message?.text ?? null} tone={state.message?.tone ?? 'info'} busy={busy?.label ?? null} hints={hints} />}
    </Box>
  );
}
