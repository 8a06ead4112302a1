/**
 * What the detail screen shows for one proposal, derived from the review state: the diff laid out
 * for the width, the evidence and report lines, search matches, and each view's visible window.
 * `useDetailModel` computes it (memoised) where the state lives, so the app's one key handler
 * reads the same figures the screen renders; `detailCommand` is that handler for the detail views.
 */
import { useEffect, useMemo, useRef, type Dispatch } from 'react';
import type { Proposal } from '../../core/records.js';
import type { Command } from '../keymap.js';
import type { EvidenceBundle, ReportBundle, RiskFlag, StaleInfo } from '../services.js';
import { buildDiffModel, buildSplitRows, mapHunksToEdits, type DiffModel, type SplitRow } from '../diff-model.js';
import { layoutSplit, layoutUnified, sourceAt, type DiffLayout } from '../diff-layout.js';
import { acceptedEdits, evidenceLines } from '../evidence-model.js';
import { reportLines } from '../report-model.js';
import { scrollMoveFor, type WindowMove } from '../scroll-window.js';
import { plainText, type StyledLine } from '../components/Line.js';
import type { DiffMode, HunkInclusion } from '../components/DiffView.js';
import type { Tone } from '../theme.js';
import { followHunk, scrolledWindow, VIEWS, type DetailNav, type DetailView, type ReviewAction } from '../review-state.js';

/** Side-by-side needs room for two readable columns. */
export const SPLIT_MIN_WIDTH = 140;

export function detailHeaderHeight(stale: StaleInfo | null, risky = false): number {
  return 3 + (stale?.stale ? 1 : 0) + (risky ? 1 : 0);
}

export interface DetailInput {
  proposal: Proposal;
  stale: StaleInfo | null;
  evidence: EvidenceBundle;
  report: ReportBundle;
  risk: RiskFlag[];
  width: number;
  /** rows for the whole screen (header + tabs + body) */
  height: number;
  now: number;
  nav: DetailNav;
  diffMode: DiffMode | null;
  included: ReadonlySet<string>;
  query: string;
}

export interface ViewWindow {
  start: number;
  end: number;
  count: number;
}

export interface DetailModel {
  bodyHeight: number;
  accepted: ReturnType<typeof acceptedEdits>;
  diff: DiffModel;
  mode: DiffMode;
  split: SplitRow[] | null;
  layout: DiffLayout;
  /** per hunk, the indexes in `proposal.edits` of the edits it shows */
  hunkEdits: number[][];
  hunkIncluded: HunkInclusion[];
  /** hunk starts as screen rows (a long line above a hunk takes several) */
  hunkStarts: number[];
  /** the current hunk, after scrolling moved it off the screen */
  hunk: number;
  /** search matches in the diff as source rows (to mark) */
  diffMatchSources: number[];
  evidence: { lines: StyledLine[]; editStarts: number[] };
  report: StyledLine[];
  windows: Record<DetailView, ViewWindow>;
  /** search matches as screen rows, per view */
  matches: Record<DetailView, number[]>;
}

function matchesIn(texts: string[], query: string): number[] {
  const q = query.toLowerCase();
  if (!q) return [];
  const out: number[] = [];
  texts.forEach((t, i) => {
    if (t.toLowerCase().includes(q)) out.push(i);
  });
  return out;
}

function windowOf(offset: number, count: number, height: number): ViewWindow {
  return { ...scrolledWindow(offset, count, height), count };
}

export function useDetailModel(input: DetailInput | null, dispatch: Dispatch<ReviewAction>, say: (text: string, tone?: Tone) => void): DetailModel | null {
  const p = input?.proposal;
  const width = input?.width ?? 0;
  const diffText = p?.diff ?? '';
  const diff = useMemo(() => buildDiffModel(diffText), [diffText]);
  // side-by-side only when there is a left side: a new file (or a pure addition) reads best unified
  const mode: DiffMode = input?.diffMode ?? (width >= SPLIT_MIN_WIDTH && diff.removed > 0 && p?.baseHash !== '' ? 'split' : 'unified');
  const split = useMemo(() => (mode === 'split' ? buildSplitRows(diff) : null), [diff, mode]);
  const layout = useMemo(() => (mode === 'split' && split ? layoutSplit(split, width) : layoutUnified(diff, width)), [mode, split, diff, width]);
  const edits = p?.edits;
  const hunkEdits = useMemo(() => (edits ? mapHunksToEdits(diff, edits) : []), [diff, edits]);
  const hunkStarts = useMemo(() => {
    if (mode !== 'split' || !split) return diff.hunkStarts.map((i) => layout.first[i]);
    const starts: number[] = [];
    split.forEach((r, i) => r.kind === 'hunk' && starts.push(layout.first[i]));
    return starts;
  }, [mode, split, diff, layout]);
  const diffTexts = useMemo(
    () => (mode === 'split' && split ? split.map((r) => `${r.text ?? ''}\n${r.left?.text ?? ''}\n${r.right?.text ?? ''}`) : diff.rows.map((r) => r.text)),
    [mode, split, diff],
  );
  const query = input?.query ?? '';
  // matches are source rows; the window and n/N move in screen rows
  const diffMatchSources = useMemo(() => matchesIn(diffTexts, query), [diffTexts, query]);

  const included = input?.included;
  const editCursor = input?.nav.editCursor ?? 0;
  const expanded = input?.nav.expanded;
  const evidenceBundle = input?.evidence;
  const now = input?.now ?? 0;
  const evidence = useMemo(
    () => (p && evidenceBundle && included && expanded ? evidenceLines(p, evidenceBundle, included, editCursor, width, now, expanded) : { lines: [], editStarts: [] }),
    [p, evidenceBundle, included, editCursor, width, now, expanded],
  );
  const reportBundle = input?.report;
  const stale = input?.stale ?? null;
  const risk = input?.risk;
  const report = useMemo(() => (p && reportBundle && risk ? reportLines(p, reportBundle, stale, width, risk) : []), [p, reportBundle, stale, width, risk]);
  const evMatches = useMemo(() => matchesIn(evidence.lines.map(plainText), query), [evidence.lines, query]);
  const repMatches = useMemo(() => matchesIn(report.map(plainText), query), [report, query]);

  const nav = input?.nav;
  const bodyHeight = input ? Math.max(0, input.height - detailHeaderHeight(stale, input.risk.length > 0)) : 0;
  const windows: Record<DetailView, ViewWindow> = {
    diff: windowOf(nav?.offsets.diff ?? 0, layout.rows.length, bodyHeight),
    evidence: windowOf(nav?.offsets.evidence ?? 0, evidence.lines.length, bodyHeight),
    report: windowOf(nav?.offsets.report ?? 0, report.length, bodyHeight),
  };

  let model: DetailModel | null = null;
  if (input && p && included) {
    const accepted = acceptedEdits(p);
    const hunkIncluded = hunkEdits.map((eis): HunkInclusion => {
      const on = eis.filter((ei) => included.has(p.edits[ei].id)).length;
      return eis.length === 0 || on === eis.length ? 'all' : on === 0 ? 'none' : 'some';
    });
    model = {
      bodyHeight,
      accepted,
      diff,
      mode,
      split,
      layout,
      hunkEdits,
      hunkIncluded,
      hunkStarts,
      hunk: followHunk(input.nav.hunk, hunkStarts, windows.diff.start, windows.diff.end, windows.diff.count),
      diffMatchSources,
      evidence,
      report,
      windows,
      matches: { diff: diffMatchSources.map((i) => layout.first[i]), evidence: evMatches, report: repMatches },
    };
  }

  // keep the reading position when switching unified ↔ side-by-side or when the width re-wraps the rows
  const id = p?.id ?? null;
  const prevLayout = useRef({ id, mode, layout, offset: windows.diff.start });
  useEffect(() => {
    const prev = prevLayout.current;
    prevLayout.current = { id, mode, layout, offset: windows.diff.start };
    if (prev.layout === layout || prev.id !== id) return;
    const src = sourceAt(prev.layout, prev.offset);
    let to = src;
    if (prev.mode === 'unified' && mode === 'split' && split) to = Math.max(0, split.findIndex((r) => r.source >= src));
    else if (prev.mode === 'split' && mode === 'unified') to = buildSplitRows(diff)[src]?.source ?? 0;
    dispatch({ type: 'scroll', view: 'diff', move: { type: 'reveal', index: layout.first[to] ?? 0 }, count: layout.rows.length, height: bodyHeight, hunkStarts });
  }, [id, layout, windows.diff.start]);

  // a new search jumps to its first match from the current position
  const lastQuery = useRef(query);
  useEffect(() => {
    if (query === lastQuery.current) return;
    lastQuery.current = query;
    if (query && model && nav) stepMatch(model, nav.view, 1, query, dispatch, say);
  }, [query]);

  return model;
}

/** n / N: the next (or previous) match from the top of the window, wrapping around. */
export function stepMatch(m: DetailModel, view: DetailView, dir: 1 | -1, query: string, dispatch: Dispatch<ReviewAction>, say: (text: string, tone?: Tone) => void): void {
  if (!query) return say('no search yet: press / to search', 'info');
  const matches = m.matches[view];
  if (matches.length === 0) return say(`no match for "${query}"`, 'warning');
  const here = m.windows[view].start;
  const next = dir === 1 ? (matches.find((x) => x > here) ?? matches[0]) : ([...matches].reverse().find((x) => x < here) ?? matches[matches.length - 1]);
  scroll(m, view, { type: 'reveal', index: next }, dispatch);
  say(`match ${matches.indexOf(next) + 1} of ${matches.length} for "${query}"`, 'info');
}

function scroll(m: DetailModel, view: DetailView, move: WindowMove, dispatch: Dispatch<ReviewAction>): void {
  dispatch({ type: 'scroll', view, move, count: m.windows[view].count, height: m.bodyHeight, hunkStarts: view === 'diff' ? m.hunkStarts : undefined });
}

export interface DetailContext {
  proposal: Proposal;
  model: DetailModel;
  nav: DetailNav;
  included: ReadonlySet<string>;
  query: string;
  dispatch: Dispatch<ReviewAction>;
  say(text: string, tone?: Tone): void;
  /** F in the Evidence view: forget the rejection of the edit under the cursor */
  forget(editIds: string[]): void;
  /** what the detail views do not handle themselves (decisions, search, help, back) */
  other(c: Command): void;
}

/** What a command does in the Diff, Evidence and Report views. */
export function detailCommand(c: Command, ctx: DetailContext): void {
  const { proposal: p, model: m, nav, included, dispatch, say } = ctx;
  const { view } = nav;
  const accepted = m.accepted;
  const editCursor = Math.min(nav.editCursor, accepted.length - 1);

  /** toggles a group of edits together: any included → all excluded, else all included */
  const toggle = (editIds: string[]) => {
    const next = new Set(included);
    const on = editIds.some((id) => next.has(id));
    for (const id of editIds) {
      if (on) next.delete(id);
      else next.add(id);
    }
    dispatch({ type: 'include', id: p.id, editIds: next });
    const names = editIds.map((id) => accepted.findIndex((e) => e.id === id) + 1).join(', ');
    say(`edit${editIds.length > 1 ? 's' : ''} ${names} ${on ? 'excluded' : 'included'} · ${next.size} of ${accepted.length} will be applied`, 'info');
  };

  const moveEdit = (delta: number) => {
    if (accepted.length === 0) return scroll(m, 'evidence', { type: 'by', delta }, dispatch);
    const to = Math.min(accepted.length - 1, Math.max(0, nav.editCursor + delta));
    dispatch({ type: 'editCursor', index: to });
    const at = m.evidence.editStarts[to] ?? 0;
    const win = m.windows.evidence;
    if (at < win.start || at >= win.end - 2) scroll(m, 'evidence', { type: 'reveal', index: Math.max(0, at - 1) }, dispatch);
  };

  switch (c) {
    case 'up':
    case 'down': {
      const d = c === 'up' ? -1 : 1;
      return view === 'evidence' ? moveEdit(d) : scroll(m, view, { type: 'by', delta: d }, dispatch);
    }
    case 'pageUp':
    case 'pageDown':
    case 'top':
    case 'bottom':
      return scroll(m, view, scrollMoveFor(c)!, dispatch);
    case 'nextView':
    case 'prevView': {
      const i = VIEWS.indexOf(view);
      return dispatch({ type: 'view', view: VIEWS[(i + (c === 'nextView' ? 1 : VIEWS.length - 1)) % VIEWS.length] });
    }
    case 'nextHunk':
    case 'prevHunk': {
      if (m.hunkStarts.length === 0) return say('this diff has no hunks', 'info');
      const h = Math.min(m.hunkStarts.length - 1, Math.max(0, m.hunk + (c === 'nextHunk' ? 1 : -1)));
      // reveal first, then name the hunk: the reveal would otherwise re-pick the hunk at the top row
      scroll(m, 'diff', { type: 'reveal', index: m.hunkStarts[h] }, dispatch);
      return dispatch({ type: 'hunk', hunk: h });
    }
    case 'cycleDiffMode':
      return dispatch({ type: 'diffMode', mode: m.mode === 'unified' ? 'split' : 'unified' });
    case 'expand': {
      if (accepted.length === 0) return say('this proposal has no separate edits to expand', 'info');
      // in the diff: the current hunk's first edit, opened in the Evidence view
      const at = view === 'evidence' ? editCursor : accepted.findIndex((e) => e.id === p.edits[(m.hunkEdits[m.hunk] ?? [])[0] ?? -1]?.id);
      if (at < 0) return say('no edit matches this hunk: Tab to the Evidence view and pick one', 'warning');
      const id = accepted[at].id;
      const next = new Set(nav.expanded);
      const open = view !== 'evidence' || !next.has(id);
      if (open) next.add(id);
      else next.delete(id);
      dispatch({ type: 'expanded', ids: next });
      if (view !== 'evidence') {
        dispatch({ type: 'editCursor', index: at });
        dispatch({ type: 'view', view: 'evidence' });
      }
      return;
    }
    case 'forget':
      if (view === 'evidence' && accepted.length > 0 && p.status === 'rejected') return ctx.forget([accepted[editCursor].id]);
      return ctx.other(c);
    case 'toggleEdit': {
      if (accepted.length === 0) return say('this proposal has no separate edits to choose from', 'info');
      if (view === 'evidence') return toggle([accepted[editCursor].id]);
      const eis = m.hunkEdits[m.hunk] ?? [];
      if (eis.length === 0) return say('no edit matches this hunk: toggle edits one by one in the Evidence view (Tab)', 'warning');
      return toggle(eis.map((ei) => p.edits[ei].id));
    }
    case 'includeAll':
      dispatch({ type: 'include', id: p.id, editIds: new Set(accepted.map((e) => e.id)) });
      return say(`all ${accepted.length} edits included`, 'info');
    case 'excludeAll':
      dispatch({ type: 'include', id: p.id, editIds: new Set() });
      return say('all edits excluded: Space includes the ones you want', 'info');
    case 'searchNext':
      return stepMatch(m, view, 1, ctx.query, dispatch, say);
    case 'searchPrev':
      return stepMatch(m, view, -1, ctx.query, dispatch, say);
    default:
      return ctx.other(c);
  }
}
