/**
 * The coloured diff: unified, or side-by-side when the terminal is wide (`d` switches). Only the
 * visible rows are turned into styled lines, so a 5,000-line diff costs the same as a 20-line one.
 * A hunk whose edit is excluded from a partial apply is dimmed and marked ✗; the current hunk has
 * a yellow bar in the gutter.
 */
import React from 'react';
import type { DiffModel, DiffRow, SplitRow } from '../diff-model.js';
import { fit } from '../text.js';
import { LinesWindow, seg, type Segment, type StyledLine } from './Line.js';

export type DiffMode = 'unified' | 'split';

export type HunkInclusion = 'all' | 'some' | 'none';

export interface HunkState {
  current: number;
  /** per hunk: whether its edits are in the apply ('none' = dimmed and marked ✗) */
  included: HunkInclusion[];
}

const num = (n: number | undefined, w: number) => (n === undefined ? ' '.repeat(w) : String(n).padStart(w));

function gutter(hunk: number, hs: HunkState, match: boolean): Segment {
  if (match) return seg('»', { color: 'yellow', bold: true });
  if (hunk >= 0 && hs.included[hunk] === 'none') return seg('✗', { color: 'red' });
  if (hunk >= 0 && hs.included[hunk] === 'some') return seg('±', { color: 'yellow' });
  if (hunk >= 0 && hunk === hs.current) return seg('▌', { color: 'yellow' });
  return seg(' ');
}

export function unifiedLine(r: DiffRow, hs: HunkState, match: boolean): StyledLine {
  const off = r.hunk >= 0 && hs.included[r.hunk] === 'none';
  const g = gutter(r.hunk, hs, match);
  if (r.kind === 'header') return [g, seg(r.text, { bold: true })];
  if (r.kind === 'hunk') {
    const tag = off ? '  (excluded)' : '';
    return [g, seg(r.text, { color: 'cyan', dim: off }), seg(tag, { color: 'red' })];
  }
  if (r.kind === 'note') return [g, seg(r.text, { dim: true })];
  const nw = 4;
  const nums = seg(`${num(r.oldNo, nw)} ${num(r.newNo, nw)} `, { dim: true });
  if (r.kind === 'add') return [g, nums, seg('+' + r.text, { color: 'green', dim: off })];
  if (r.kind === 'del') return [g, nums, seg('-' + r.text, { color: 'red', dim: off })];
  return [g, nums, seg(' ' + r.text, { dim: off })];
}

export function splitLine(r: SplitRow, hs: HunkState, match: boolean, width: number): StyledLine {
  const off = r.hunk >= 0 && hs.included[r.hunk] === 'none';
  const g = gutter(r.hunk, hs, match);
  if (r.kind !== 'pair') {
    const color = r.kind === 'hunk' ? 'cyan' : undefined;
    return [g, seg(r.text ?? '', { color, bold: r.kind === 'header', dim: off || r.kind === 'note' }), seg(off && r.kind === 'hunk' ? '  (excluded)' : '', { color: 'red' })];
  }
  const nw = 4;
  const half = Math.floor((width - 1 - 3) / 2);
  const textW = Math.max(1, half - nw - 2);
  const side = (s: SplitRow['left'] | SplitRow['right']): Segment[] => {
    if (!s) return [seg(' '.repeat(half))];
    const mark = s.kind === 'add' ? '+' : s.kind === 'del' ? '-' : ' ';
    const color = s.kind === 'add' ? 'green' : s.kind === 'del' ? 'red' : undefined;
    return [seg(num(s.no, nw) + ' ', { dim: true }), seg(fit(mark + s.text, textW + 1), { color, dim: off })];
  };
  return [g, ...side(r.left), seg(' │ ', { dim: true }), ...side(r.right)];
}

export interface DiffViewProps {
  model: DiffModel;
  split: SplitRow[] | null;
  mode: DiffMode;
  start: number;
  height: number;
  width: number;
  hunks: HunkState;
  matches: Set<number>;
}

export function DiffView({ model, split, mode, start, height, width, hunks, matches }: DiffViewProps): React.ReactElement {
  const lines: StyledLine[] = [];
  if (model.rows.length === 0) {
    lines.push([seg('  (the diff is empty: the candidate is identical to the live file)', { dim: true })]);
  } else if (mode === 'split' && split) {
    for (let i = start; i < Math.min(split.length, start + height); i++) lines.push(splitLine(split[i], hunks, matches.has(i), width));
  } else {
    for (let i = start; i < Math.min(model.rows.length, start + height); i++) lines.push(unifiedLine(model.rows[i], hunks, matches.has(i)));
  }
  return <LinesWindow lines={lines} height={height} />;
}
