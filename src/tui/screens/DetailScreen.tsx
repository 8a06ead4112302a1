/**
 * One proposal: a two-line header (file, who reads it, scores, included edits; a warning line when
 * the live file changed or the risk lint flagged lines), tabs, and the current view (Diff /
 * Evidence / Report) in a virtualised window of wrapped rows. Space toggles edits for a partial
 * apply, Enter unfolds an edit; decisions (a, x, e, u, F) go up to the app, which owns dialogs.
 */
import React, { useEffect, useMemo, useRef, useState, type MutableRefObject } from 'react';
import { Box, Text } from 'ink';
import type { AgentId, Proposal } from '../../core/records.js';
import type { Command } from '../keymap.js';
import type { EvidenceBundle, ReportBundle, RiskFlag, StaleInfo } from '../services.js';
import { buildDiffModel, buildSplitRows, mapHunksToEdits } from '../diff-model.js';
import { layoutSplit, layoutUnified, sourceAt, type DiffLayout } from '../diff-layout.js';
import { acceptedEdits, evidenceLines } from '../evidence-model.js';
import { reportLines } from '../report-model.js';
import { noGainBanner } from '../../proposals/staging-report.js';
import { agentName, homeRelative, readersLabel, scoreChange, deltaTone } from '../format.js';
import { scrollMoveFor, useWindowedScroll, type WindowedScroll } from '../hooks/useWindowedScroll.js';
import { DiffView, type DiffMode, type HunkInclusion } from '../components/DiffView.js';
import { LinesWindow, plainText, type StyledLine } from '../components/Line.js';
import type { Tone } from '../components/StatusBar.js';

export type DetailView = 'diff' | 'evidence' | 'report';
export const VIEWS: DetailView[] = ['diff', 'evidence', 'report'];
const VIEW_TITLE: Record<DetailView, string> = { diff: 'Diff', evidence: 'Evidence', report: 'Report' };

/** Side-by-side needs room for two readable columns. */
export const SPLIT_MIN_WIDTH = 140;

export interface DetailScreenProps {
  proposal: Proposal;
  stale: StaleInfo | null;
  evidence: EvidenceBundle;
  report: ReportBundle;
  width: number;
  /** rows available for the whole screen (header + tabs + body) */
  height: number;
  now: number;
  view: DetailView;
  onView(v: DetailView): void;
  diffMode: DiffMode | null;
  onDiffMode(m: DiffMode): void;
  included: ReadonlySet<string>;
  onIncluded(next: Set<string>): void;
  query: string;
  /** the screen's key handler, read by the app's single input dispatcher */
  keys: MutableRefObject<((c: Command) => void) | null>;
  onCommand(c: Command): void;
  /** F in the Evidence view: forget the rejection of the edit under the cursor */
  onForget?(editIds: string[]): void;
  /** what the risk lint flags in this proposal (a warning line; applying confirms twice) */
  risk?: RiskFlag[];
  /** agents used in this project that read none of the files the proposal writes */
  missedBy?: AgentId[];
  say(text: string, tone?: Tone): void;
}

export function detailHeaderHeight(stale: StaleInfo | null, risky = false, noGain = false): number {
  return 3 + (stale?.stale ? 1 : 0) + (risky ? 1 : 0) + (noGain ? 1 : 0);
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

function stepMatch(win: WindowedScroll, matches: number[], dir: 1 | -1, say: DetailScreenProps['say'], query: string): void {
  if (!query) return say('no search yet: press / to search', 'info');
  if (matches.length === 0) return say(`no match for "${query}"`, 'warning');
  const here = win.offset;
  const next = dir === 1 ? (matches.find((m) => m > here) ?? matches[0]) : ([...matches].reverse().find((m) => m < here) ?? matches[matches.length - 1]);
  win.move({ type: 'reveal', index: next });
  say(`match ${matches.indexOf(next) + 1} of ${matches.length} for "${query}"`, 'info');
}

export function DetailScreen(props: DetailScreenProps): React.ReactElement {
  const { proposal: p, stale, width, height, view, included, query, say } = props;
  const risk = props.risk ?? [];
  // the held-out audit showed no gain: said before anything else on the screen
  const noGain = noGainBanner({ before: p.testBefore, after: p.testAfter });
  const bodyHeight = Math.max(0, height - detailHeaderHeight(stale, risk.length > 0, noGain !== null));
  const accepted = useMemo(() => acceptedEdits(p), [p]);

  // ---- diff ----
  const model = useMemo(() => buildDiffModel(p.diff), [p.diff]);
  // side-by-side only when there is a left side: a new file (or a pure addition) reads best unified
  const mode: DiffMode = props.diffMode ?? (width >= SPLIT_MIN_WIDTH && model.removed > 0 && p.baseHash !== '' ? 'split' : 'unified');
  const split = useMemo(() => (mode === 'split' ? buildSplitRows(model) : null), [model, mode]);
  const layout: DiffLayout = useMemo(() => (mode === 'split' && split ? layoutSplit(split, width) : layoutUnified(model, width)), [mode, split, model, width]);
  const hunkEdits = useMemo(() => mapHunksToEdits(model, p.edits), [model, p.edits]);
  const hunkIncluded = useMemo(
    () =>
      hunkEdits.map((eis): HunkInclusion => {
        const on = eis.filter((ei) => included.has(p.edits[ei].id)).length;
        return eis.length === 0 || on === eis.length ? 'all' : on === 0 ? 'none' : 'some';
      }),
    [hunkEdits, included, p.edits],
  );
  const diffCount = layout.rows.length;
  // hunk starts as screen rows (a long line above a hunk takes several)
  const hunkStarts = useMemo(() => {
    if (mode !== 'split' || !split) return model.hunkStarts.map((i) => layout.first[i]);
    const starts: number[] = [];
    split.forEach((r, i) => r.kind === 'hunk' && starts.push(layout.first[i]));
    return starts;
  }, [mode, split, model, layout]);
  const diffWin = useWindowedScroll(diffCount, bodyHeight, { withCursor: false });
  const [hunk, setHunk] = useState(0);
  const diffTexts = useMemo(
    () => (mode === 'split' && split ? split.map((r) => `${r.text ?? ''}\n${r.left?.text ?? ''}\n${r.right?.text ?? ''}`) : model.rows.map((r) => r.text)),
    [mode, split, model],
  );
  // matches are source rows; the window and n/N move in screen rows
  const diffMatchSources = useMemo(() => matchesIn(diffTexts, query), [diffTexts, query]);
  const diffMatches = useMemo(() => diffMatchSources.map((i) => layout.first[i]), [diffMatchSources, layout]);

  // keep the reading position when switching unified ↔ side-by-side or when the width re-wraps the rows
  const prevLayout = useRef<{ mode: DiffMode; layout: DiffLayout }>({ mode, layout });
  useEffect(() => {
    const prev = prevLayout.current;
    prevLayout.current = { mode, layout };
    if (prev.layout === layout) return;
    const src = sourceAt(prev.layout, diffWin.offset);
    let to = src;
    if (prev.mode === 'unified' && mode === 'split' && split) to = Math.max(0, split.findIndex((r) => r.source >= src));
    else if (prev.mode === 'split' && mode === 'unified') to = buildSplitRows(model)[src]?.source ?? 0;
    diffWin.move({ type: 'reveal', index: layout.first[to] ?? 0 });
  }, [layout]);

  // the current hunk follows plain scrolling once it leaves the screen
  useEffect(() => {
    if (hunkStarts.length === 0) return;
    const start = hunkStarts[hunk] ?? 0;
    const end = hunkStarts[hunk + 1] ?? diffCount;
    if (end <= diffWin.start || start >= diffWin.end) {
      // the hunk under the top row if it is still on screen, else the first hunk that starts on screen
      let top = -1;
      for (let i = 0; i < hunkStarts.length && hunkStarts[i] <= diffWin.start; i++) top = i;
      const topVisible = top >= 0 && (hunkStarts[top + 1] ?? diffCount) > diffWin.start;
      const firstInView = hunkStarts.findIndex((st) => st >= diffWin.start && st < diffWin.end);
      setHunk(topVisible ? top : firstInView >= 0 ? firstInView : Math.max(0, top));
    }
  }, [diffWin.start, diffWin.end, hunkStarts, diffCount]);

  // ---- evidence ----
  const [editCursor, setEditCursor] = useState(0);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const ev = useMemo(() => evidenceLines(p, props.evidence, included, editCursor, width, props.now, expanded), [p, props.evidence, included, editCursor, width, props.now, expanded]);
  const evWin = useWindowedScroll(ev.lines.length, bodyHeight, { withCursor: false });
  const evMatches = useMemo(() => matchesIn(ev.lines.map(plainText), query), [ev.lines, query]);

  // ---- report ----
  const rep = useMemo(() => reportLines(p, props.report, stale, width, risk), [p, props.report, stale, width, risk]);
  const repWin = useWindowedScroll(rep.length, bodyHeight, { withCursor: false });
  const repMatches = useMemo(() => matchesIn(rep.map(plainText), query), [rep, query]);

  const win = view === 'diff' ? diffWin : view === 'evidence' ? evWin : repWin;
  const matches = view === 'diff' ? diffMatches : view === 'evidence' ? evMatches : repMatches;

  // a new search jumps to its first match from the current position
  const lastQuery = useRef(query);
  useEffect(() => {
    if (query === lastQuery.current) return;
    lastQuery.current = query;
    if (query) stepMatch(win, matches, 1, say, query);
  }, [query]);

  /** toggles a group of edits together: any included → all excluded, else all included */
  const toggle = (editIds: string[]) => {
    const next = new Set(included);
    const on = editIds.some((id) => next.has(id));
    for (const id of editIds) {
      if (on) next.delete(id);
      else next.add(id);
    }
    props.onIncluded(next);
    const names = editIds.map((id) => accepted.findIndex((e) => e.id === id) + 1).join(', ');
    say(`edit${editIds.length > 1 ? 's' : ''} ${names} ${on ? 'excluded' : 'included'} · ${next.size} of ${accepted.length} will be applied`, 'info');
  };

  const moveEdit = (delta: number) => {
    if (accepted.length === 0) return evWin.move({ type: 'by', delta });
    const c = Math.min(accepted.length - 1, Math.max(0, editCursor + delta));
    setEditCursor(c);
    const at = ev.editStarts[c] ?? 0;
    if (at < evWin.start || at >= evWin.end - 2) evWin.move({ type: 'reveal', index: Math.max(0, at - 1) });
  };

  props.keys.current = (c) => {
      switch (c) {
        case 'up':
        case 'down': {
          const d = c === 'up' ? -1 : 1;
          return view === 'evidence' ? moveEdit(d) : win.move({ type: 'by', delta: d });
        }
        case 'pageUp':
        case 'pageDown':
        case 'top':
        case 'bottom':
          return win.move(scrollMoveFor(c)!);
        case 'nextView':
        case 'prevView': {
          const i = VIEWS.indexOf(view);
          return props.onView(VIEWS[(i + (c === 'nextView' ? 1 : VIEWS.length - 1)) % VIEWS.length]);
        }
        case 'nextHunk':
        case 'prevHunk': {
          if (hunkStarts.length === 0) return say('this diff has no hunks', 'info');
          const h = Math.min(hunkStarts.length - 1, Math.max(0, hunk + (c === 'nextHunk' ? 1 : -1)));
          setHunk(h);
          diffWin.move({ type: 'reveal', index: hunkStarts[h] });
          return;
        }
        case 'cycleDiffMode':
          return props.onDiffMode(mode === 'unified' ? 'split' : 'unified');
        case 'expand': {
          if (accepted.length === 0) return say('this proposal has no separate edits to expand', 'info');
          // in the diff: the current hunk's first edit, opened in the Evidence view
          const at = view === 'evidence' ? Math.min(editCursor, accepted.length - 1) : accepted.findIndex((e) => e.id === p.edits[(hunkEdits[hunk] ?? [])[0] ?? -1]?.id);
          if (at < 0) return say('no edit matches this hunk: Tab to the Evidence view and pick one', 'warning');
          const id = accepted[at].id;
          const next = new Set(expanded);
          const open = view !== 'evidence' || !next.has(id);
          if (open) next.add(id);
          else next.delete(id);
          setExpanded(next);
          if (view !== 'evidence') {
            setEditCursor(at);
            props.onView('evidence');
          }
          return;
        }
        case 'forget':
          if (view === 'evidence' && accepted.length > 0 && props.onForget && p.status === 'rejected') return props.onForget([accepted[Math.min(editCursor, accepted.length - 1)].id]);
          return props.onCommand(c);
        case 'toggleEdit': {
          if (accepted.length === 0) return say('this proposal has no separate edits to choose from', 'info');
          if (view === 'evidence') return toggle([accepted[Math.min(editCursor, accepted.length - 1)].id]);
          const eis = hunkEdits[hunk] ?? [];
          if (eis.length === 0) return say('no edit matches this hunk: toggle edits one by one in the Evidence view (Tab)', 'warning');
          return toggle(eis.map((ei) => p.edits[ei].id));
        }
        case 'includeAll':
          props.onIncluded(new Set(accepted.map((e) => e.id)));
          return say(`all ${accepted.length} edits included`, 'info');
        case 'excludeAll':
          props.onIncluded(new Set());
          return say('all edits excluded: Space includes the ones you want', 'info');
        case 'searchNext':
          return stepMatch(win, matches, 1, say, query);
        case 'searchPrev':
          return stepMatch(win, matches, -1, say, query);
        default:
          return props.onCommand(c);
      }
  };

  const tone = deltaTone(p.baselineScore, p.candidateScore);
  const partial = accepted.length > 0 && included.size !== accepted.length;
  const position =
    view === 'diff'
      ? `hunk ${hunkStarts.length ? hunk + 1 : 0}/${hunkStarts.length} · ${mode === 'split' ? 'side-by-side' : 'unified'} · +${model.added} −${model.removed}`
      : `${win.end === 0 ? 0 : win.start + 1}-${win.end} of ${view === 'evidence' ? ev.lines.length : rep.length}`;

  let body: React.ReactElement;
  if (view === 'diff') {
    body = (
      <DiffView
        model={model}
        split={split}
        mode={mode}
        layout={layout}
        start={diffWin.start}
        height={bodyHeight}
        width={width}
        hunks={{ current: hunk, included: hunkIncluded }}
        matches={new Set(diffMatchSources)}
      />
    );
  } else if (view === 'evidence') {
    body = <LinesWindow lines={ev.lines.slice(evWin.start, evWin.end)} height={bodyHeight} />;
  } else {
    body = <LinesWindow lines={rep.slice(repWin.start, repWin.end)} height={bodyHeight} />;
  }

  return (
    <Box flexDirection="column">
      {noGain ? (
        <Text color="yellow" bold wrap="truncate-end">
          ⚠ {noGain}
        </Text>
      ) : null}
      <Text wrap="truncate-end">
        <Text bold color="cyan">
          {p.skillTarget.name}
        </Text>
        <Text dimColor> · {homeRelative(p.skillTarget.path)}</Text>
      </Text>
      <Text wrap="truncate-end">
        <Text dimColor>read by </Text>
        {readersLabel(p)}
        {props.missedBy && props.missedBy.length > 0 ? <Text color="yellow"> (not {props.missedBy.map(agentName).join(', ')}, used here)</Text> : null}
        <Text dimColor> · val </Text>
        <Text color={tone === 'up' ? 'green' : tone === 'down' ? 'red' : undefined}>{scoreChange(p.baselineScore, p.candidateScore)}</Text>
        <Text dimColor> · test </Text>
        {scoreChange(p.testBefore, p.testAfter)}
        <Text dimColor> · </Text>
        <Text color={partial ? 'yellow' : undefined}>
          {partial ? `${included.size} of ${accepted.length} edits` : `${accepted.length} edits`}
        </Text>
        <Text dimColor> · </Text>
        {stale?.stale && p.status === 'staged' ? <Text color="magenta">stale</Text> : <Text>{p.status}</Text>}
      </Text>
      {risk.length > 0 ? (
        <Text color="red" bold wrap="truncate-end">
          ⚠ Risk lint: {risk.length} flagged line{risk.length === 1 ? '' : 's'} ({[...new Set(risk.map((f) => f.rule))].join(', ')}) · applying asks a second time · Report lists them
        </Text>
      ) : null}
      {stale?.stale ? (
        <Text color="magenta" wrap="truncate-end">
          ⚠ The live file {stale.missing ? 'was deleted' : 'changed'} since this proposal was made: press a to re-run or apply anyway.
        </Text>
      ) : null}
      <Text wrap="truncate-end">
        {VIEWS.map((v) => (
          <Text key={v} inverse={v === view} bold={v === view}>
            {` ${VIEW_TITLE[v]} `}
          </Text>
        ))}
        <Text dimColor>
          {'  '}
          {position}
        </Text>
      </Text>
      {bodyHeight > 0 ? body : null}
    </Box>
  );
}

export type { StyledLine };
