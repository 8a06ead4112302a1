/**
 * The diff as screen rows: each diff row (unified) or row pair (side-by-side) wrapped to the
 * terminal width, so a long line shows in full on several rows instead of being cut with "…".
 * Computed once per (diff, layout, width): the view then renders any window of it, and hunks,
 * search matches and the reading position map between diff rows and screen rows through `first`.
 */
import type { DiffModel, SplitRow } from './diff-model.js';
import { wrapText } from './text.js';

/** Gutter (1) + old and new line numbers (4 + 1 + 4 + 1) + the +/-/space mark (1). */
export const UNIFIED_PREFIX = 12;
const NUM_W = 4;

export interface ScreenRow {
  /** index of the diff row (unified) or split row it shows a part of */
  src: number;
  /** 0 for the row's first screen row, then 1, 2, … for its continuation rows */
  part: number;
  /** unified: the text on this screen row */
  text?: string;
  /** side-by-side: each side's text on this screen row (undefined: that side has no more text) */
  left?: string;
  right?: string;
}

export interface DiffLayout {
  rows: ScreenRow[];
  /** screen row where each source row starts */
  first: number[];
}

/** Width of each side's text in side-by-side: two halves around " │ ", each with its number and mark. */
export function splitTextWidth(width: number): number {
  const half = Math.floor((width - 1 - 3) / 2);
  return Math.max(1, half - NUM_W - 2);
}

export function layoutUnified(model: DiffModel, width: number): DiffLayout {
  const rows: ScreenRow[] = [];
  const first: number[] = [];
  const textW = Math.max(8, width - UNIFIED_PREFIX);
  const fullW = Math.max(8, width - 1);
  model.rows.forEach((r, src) => {
    first.push(rows.length);
    const isLine = r.kind === 'add' || r.kind === 'del' || r.kind === 'ctx';
    const parts = wrapText(r.text, isLine ? textW : fullW);
    parts.forEach((text, part) => rows.push({ src, part, text }));
  });
  return { rows, first };
}

export function layoutSplit(split: SplitRow[], width: number): DiffLayout {
  const rows: ScreenRow[] = [];
  const first: number[] = [];
  const sideW = splitTextWidth(width);
  const fullW = Math.max(8, width - 1);
  split.forEach((r, src) => {
    first.push(rows.length);
    if (r.kind !== 'pair') {
      wrapText(r.text ?? '', fullW).forEach((text, part) => rows.push({ src, part, text }));
      return;
    }
    const left = r.left ? wrapText(r.left.text, sideW) : [];
    const right = r.right ? wrapText(r.right.text, sideW) : [];
    const n = Math.max(1, left.length, right.length);
    for (let part = 0; part < n; part++) rows.push({ src, part, left: left[part], right: right[part] });
  });
  return { rows, first };
}

/** The source row shown on screen row `screen` (clamped), for keeping the place across layouts. */
export function sourceAt(layout: DiffLayout, screen: number): number {
  if (layout.rows.length === 0) return 0;
  return layout.rows[Math.min(layout.rows.length - 1, Math.max(0, screen))].src;
}
