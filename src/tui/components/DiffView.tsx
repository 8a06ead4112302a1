/**
 * The coloured diff: unified, or side-by-side when the terminal is wide and the diff replaces
 * lines (`d` switches). Long lines wrap onto continuation rows (diff-layout.ts), never cut. Only
 * the visible rows are turned into styled lines, so a 5,000-line diff costs the same as a 20-line one.
 * A hunk whose edit is excluded from a partial apply is dimmed and marked ✗; the current hunk has
 * a yellow bar in the gutter.
 */
import React from 'react';
import type { DiffModel, DiffRow, SplitRow } from '../diff-model.js';
import type { DiffLayout } from '../diff-layout.js';
import { fit } from '../text.js';
import { LinesWindow, seg, type Segment, type StyledLine } from './Line.js';
import { theme } from '../theme.js';

export type DiffMode = 'unified' | 'split';

export type HunkInclusion = 'all' | 'some' | 'none';

export interface HunkState {
  current: number;
  /** per hunk: whether its edits are in the apply ('none' = dimmed and marked ✗) */
  included: HunkInclusion[];
}

const num = (n: number | undefined, w: number) => (n === undefined ? ' '.repeat(w) : String(n).padStart(w));

function gutter(hunk: number, hs: HunkState, match: boolean): Segment {
  if (match) return seg('»', { color: theme.caution, bold: true });
  if (hunk >= 0 && hs.included[hunk] === 'none') return seg('✗', { color: theme.bad });
  if (hunk >= 0 && hs.included[hunk] === 'some') return seg('±', { color: theme.caution });
  if (hunk >= 0 && hunk === hs.current) return seg('▌', { color: theme.caution });
  return seg(' ');
}

/** One screen row of a unified diff row: `text` is this row's part of it, `part` > 0 a continuation. */
export function unifiedLine(r: DiffRow, hs: HunkState, match: boolean, text: string = r.text, part = 0): StyledLine {
  const off = r.hunk >= 0 && hs.included[r.hunk] === 'none';
  const g = gutter(r.hunk, hs, match);
  if (r.kind === 'header') return [g, seg(text, { bold: true })];
  if (r.kind === 'hunk') {
    const tag = off && part === 0 ? '  (excluded)' : '';
    return [g, seg(text, { color: theme.accent, dim: off }), seg(tag, { color: theme.bad })];
  }
  if (r.kind === 'note') return [g, seg(text, { dim: true })];
  const nw = 4;
  // a continuation row leaves the numbers blank, so the numbers still count file lines
  const nums = seg(part === 0 ? `${num(r.oldNo, nw)} ${num(r.newNo, nw)} ` : ' '.repeat(nw * 2 + 2), { dim: true });
  const mark = part === 0 ? undefined : ' ';
  if (r.kind === 'add') return [g, nums, seg((mark ?? '+') + text, { color: theme.good, dim: off })];
  if (r.kind === 'del') return [g, nums, seg((mark ?? '-') + text, { color: theme.bad, dim: off })];
  return [g, nums, seg(' ' + text, { dim: off })];
}

/** One screen row of a side-by-side row: each side's part on this row (undefined: that side has ended). */
export function splitLine(r: SplitRow, hs: HunkState, match: boolean, width: number, part = 0, parts?: { text?: string; left?: string; right?: string }): StyledLine {
  const off = r.hunk >= 0 && hs.included[r.hunk] === 'none';
  const g = gutter(r.hunk, hs, match);
  if (r.kind !== 'pair') {
    const color = r.kind === 'hunk' ? theme.accent : undefined;
    return [g, seg(parts?.text ?? r.text ?? '', { color, bold: r.kind === 'header', dim: off || r.kind === 'note' }), seg(off && r.kind === 'hunk' && part === 0 ? '  (excluded)' : '', { color: theme.bad })];
  }
  const nw = 4;
  const half = Math.floor((width - 1 - 3) / 2);
  const textW = Math.max(1, half - nw - 2);
  const side = (s: SplitRow['left'] | SplitRow['right'], text: string | undefined): Segment[] => {
    if (!s || text === undefined) return [seg(' '.repeat(half))];
    const mark = part > 0 ? ' ' : s.kind === 'add' ? '+' : s.kind === 'del' ? '-' : ' ';
    const color = s.kind === 'add' ? theme.good : s.kind === 'del' ? theme.bad : undefined;
    const no = part === 0 ? num(s.no, nw) : ' '.repeat(nw);
    return [seg(no + ' ', { dim: true }), seg(fit(mark + text, textW + 1), { color, dim: off })];
  };
  const left = parts ? parts.left : r.left?.text;
  const right = parts ? parts.right : r.right?.text;
  return [g, ...side(r.left, left), seg(' │ ', { dim: true }), ...side(r.right, right)];
}

export interface DiffViewProps {
  model: DiffModel;
  split: SplitRow[] | null;
  mode: DiffMode;
  /** the diff wrapped to the width, for the current mode */
  layout: DiffLayout;
  start: number;
  height: number;
  width: number;
  hunks: HunkState;
  /** source rows (of the current mode) that match the search */
  matches: Set<number>;
}

export function DiffView({ model, split, mode, layout, start, height, width, hunks, matches }: DiffViewProps): React.ReactElement {
  const lines: StyledLine[] = [];
  if (model.rows.length === 0) {
    lines.push([seg('  (the diff is empty: the candidate is identical to the live file)', { dim: true })]);
  } else {
    for (let i = start; i < Math.min(layout.rows.length, start + height); i++) {
      const row = layout.rows[i];
      if (mode === 'split' && split) lines.push(splitLine(split[row.src], hunks, matches.has(row.src), width, row.part, row));
      else lines.push(unifiedLine(model.rows[row.src], hunks, matches.has(row.src), row.text ?? '', row.part));
    }
  }
  return <LinesWindow lines={lines} height={height} />;
}
