/**
 * What the detail screen shows for one proposal, derived from the review state: the diff laid out
 * for the width, the evidence and report lines, search matches, and each view's visible window.
 * `useDetailModel` computes it (memoised) where the state lives, so the app's one key handler
 * (detail-keys.ts) reads the same figures the screen renders.
 */
import { useEffect, useMemo, useRef, type Dispatch } from 'react';
import type { Proposal } from '../../core/records.js';
import type { EvidenceBundle, ReportBundle, RiskFlag, StaleInfo } from '../services.js';
import { buildDiffModel, buildSplitRows, mapHunksToEdits, type DiffModel, type SplitRow } from '../diff-model.js';
import { layoutSplit, layoutUnified, sourceAt, type DiffLayout } from '../diff-layout.js';
import { acceptedEdits, evidenceLines } from '../evidence-model.js';
import { reportLines } from '../report-model.js';
import type { WindowMove } from '../scroll-window.js';
import { plainText, type StyledLine } from '../components/Line.js';
import { noGainBanner } from '../../proposals/staging-report.js';
import type { DiffMode, HunkInclusion } from '../components/DiffView.js';
import type { Tone } from '../theme.js';
import { followHunk, scrolledWindow, type DetailNav, type DetailView, type ReviewAction } from '../review-state.js';

/** Side-by-side needs room for two readable columns. */
export const SPLIT_MIN_WIDTH = 140;

export function detailHeaderHeight(stale: StaleInfo | null, risky = false, noGain = false): number {
  return 3 + (stale?.stale ? 1 : 0) + (risky ? 1 : 0) + (noGain ? 1 : 0);
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
  const bodyHeight = input ? Math.max(0, input.height - detailHeaderHeight(stale, input.risk.length > 0, noGainBanner({ before: input.proposal.testBefore, after: input.proposal.testAfter }) !== null)) : 0;
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

/** Moves a view's window (the diff's current hunk follows it). */
export function scroll(m: DetailModel, view: DetailView, move: WindowMove, dispatch: Dispatch<ReviewAction>): void {
  dispatch({ type: 'scroll', view, move, count: m.windows[view].count, height: m.bodyHeight, hunkStarts: view === 'diff' ? m.hunkStarts : undefined });
}
