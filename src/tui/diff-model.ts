/**
 * Turns a proposal's unified diff into flat display rows, once, so the diff view can render any
 * window of a 5,000-line diff without touching the rest. Parsing uses the `diff` package; a diff
 * it cannot parse is still shown, line by line, coloured by its first character.
 */
import { parsePatch, createTwoFilesPatch } from 'diff';
import type { EditRecord } from '../core/records.js';
import { sanitize } from './text.js';

export type DiffRowKind = 'header' | 'hunk' | 'add' | 'del' | 'ctx' | 'note';

export interface DiffRow {
  kind: DiffRowKind;
  text: string;
  oldNo?: number;
  newNo?: number;
  /** index of the hunk the row belongs to (-1 for file headers) */
  hunk: number;
}

export interface DiffModel {
  rows: DiffRow[];
  /** row index of each hunk header */
  hunkStarts: number[];
  added: number;
  removed: number;
}

export function buildDiffModel(diffText: string): DiffModel {
  const rows: DiffRow[] = [];
  const hunkStarts: number[] = [];
  let added = 0;
  let removed = 0;
  let patches: ReturnType<typeof parsePatch> = [];
  try {
    patches = diffText.trim() ? parsePatch(diffText) : [];
  } catch {
    patches = [];
  }
  const hasHunks = patches.some((p) => p.hunks.length > 0);
  if (!hasHunks) return rawModel(diffText);
  for (const patch of patches) {
    const oldName = patch.oldFileName ?? '';
    const newName = patch.newFileName ?? '';
    if (oldName || newName) rows.push({ kind: 'header', text: `--- ${sanitize(oldName)}`, hunk: -1 });
    if (oldName || newName) rows.push({ kind: 'header', text: `+++ ${sanitize(newName)}`, hunk: -1 });
    for (const h of patch.hunks) {
      const hunkIndex = hunkStarts.length;
      hunkStarts.push(rows.length);
      rows.push({ kind: 'hunk', text: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, hunk: hunkIndex });
      let oldNo = h.oldStart;
      let newNo = h.newStart;
      for (const line of h.lines) {
        const mark = line[0];
        const text = sanitize(line.slice(1));
        if (mark === '+') {
          rows.push({ kind: 'add', text, newNo: newNo++, hunk: hunkIndex });
          added++;
        } else if (mark === '-') {
          rows.push({ kind: 'del', text, oldNo: oldNo++, hunk: hunkIndex });
          removed++;
        } else if (mark === '\\') {
          rows.push({ kind: 'note', text: sanitize(line), hunk: hunkIndex });
        } else {
          rows.push({ kind: 'ctx', text, oldNo: oldNo++, newNo: newNo++, hunk: hunkIndex });
        }
      }
    }
  }
  return { rows, hunkStarts, added, removed };
}

/** Fallback for text that is not a parseable unified diff. */
function rawModel(diffText: string): DiffModel {
  const rows: DiffRow[] = [];
  const hunkStarts: number[] = [];
  let added = 0;
  let removed = 0;
  for (const line of diffText.split('\n')) {
    if (line.startsWith('@@')) {
      hunkStarts.push(rows.length);
      rows.push({ kind: 'hunk', text: sanitize(line), hunk: hunkStarts.length - 1 });
    } else if (line.startsWith('+++') || line.startsWith('---')) {
      rows.push({ kind: 'header', text: sanitize(line), hunk: -1 });
    } else if (line.startsWith('+')) {
      rows.push({ kind: 'add', text: sanitize(line.slice(1)), hunk: hunkStarts.length - 1 });
      added++;
    } else if (line.startsWith('-')) {
      rows.push({ kind: 'del', text: sanitize(line.slice(1)), hunk: hunkStarts.length - 1 });
      removed++;
    } else {
      rows.push({ kind: 'ctx', text: sanitize(line.startsWith(' ') ? line.slice(1) : line), hunk: hunkStarts.length - 1 });
    }
  }
  while (rows.length > 0 && rows[rows.length - 1].kind === 'ctx' && rows[rows.length - 1].text === '') rows.pop();
  return { rows, hunkStarts, added, removed };
}

/** A unified diff between two texts, for proposals whose stored diff is empty. */
export function diffTexts(before: string, after: string, name: string): string {
  return createTwoFilesPatch(`a/${name}`, `b/${name}`, before, after, '', '', { context: 3 });
}

export interface SplitRow {
  kind: 'header' | 'hunk' | 'pair' | 'note';
  hunk: number;
  text?: string;
  left?: { no?: number; text: string; kind: 'del' | 'ctx' };
  right?: { no?: number; text: string; kind: 'add' | 'ctx' };
  /** index of the first unified row this split row came from (for keeping the position across modes) */
  source: number;
}

/**
 * Side-by-side rows: context lines pair with themselves; within a hunk each run of deletions is
 * zipped with the run of additions that follows it, so a replaced line sits next to its replacement.
 */
export function buildSplitRows(model: DiffModel): SplitRow[] {
  const out: SplitRow[] = [];
  const rows = model.rows;
  let i = 0;
  while (i < rows.length) {
    const r = rows[i];
    if (r.kind === 'header' || r.kind === 'hunk' || r.kind === 'note') {
      out.push({ kind: r.kind, hunk: r.hunk, text: r.text, source: i });
      i++;
      continue;
    }
    if (r.kind === 'ctx') {
      out.push({
        kind: 'pair',
        hunk: r.hunk,
        left: { no: r.oldNo, text: r.text, kind: 'ctx' },
        right: { no: r.newNo, text: r.text, kind: 'ctx' },
        source: i,
      });
      i++;
      continue;
    }
    const start = i;
    const dels: DiffRow[] = [];
    const adds: DiffRow[] = [];
    while (i < rows.length && rows[i].kind === 'del') dels.push(rows[i++]);
    while (i < rows.length && rows[i].kind === 'add') adds.push(rows[i++]);
    const n = Math.max(dels.length, adds.length);
    for (let k = 0; k < n; k++) {
      const d = dels[k];
      const a = adds[k];
      out.push({
        kind: 'pair',
        hunk: r.hunk,
        left: d ? { no: d.oldNo, text: d.text, kind: 'del' } : undefined,
        right: a ? { no: a.newNo, text: a.text, kind: 'add' } : undefined,
        source: start + k,
      });
    }
  }
  return out;
}

/**
 * Which edits produced a hunk: those whose added content appears among the hunk's added lines, or
 * whose anchor (delete/replace) appears among its removed lines. Nearby edits can share one hunk;
 * Space on that hunk then toggles all of them (the Evidence view toggles edits one by one).
 */
export function editsForHunk(model: DiffModel, hunk: number, edits: EditRecord[]): number[] {
  const start = model.hunkStarts[hunk];
  if (start === undefined) return [];
  const end = model.hunkStarts[hunk + 1] ?? model.rows.length;
  const added = new Set<string>();
  const removed = new Set<string>();
  for (let i = start + 1; i < end; i++) {
    const r = model.rows[i];
    const t = r.text.trim();
    if (!t) continue;
    if (r.kind === 'add') added.add(t);
    else if (r.kind === 'del') removed.add(t);
  }
  const out: number[] = [];
  edits.forEach((e, idx) => {
    if (e.status !== 'accepted') return;
    const hit =
      sanitize(e.content)
        .split('\n')
        .some((line) => line.trim() !== '' && added.has(line.trim())) ||
      (e.op !== 'add' && !!e.anchor && sanitize(e.anchor).split('\n').some((line) => line.trim() !== '' && removed.has(line.trim())));
    if (hit) out.push(idx);
  });
  return out;
}

/** For each hunk, the indexes of its edits; computed once per model. */
export function mapHunksToEdits(model: DiffModel, edits: EditRecord[]): number[][] {
  return model.hunkStarts.map((_, h) => editsForHunk(model, h, edits));
}

/** The hunk a row index sits in (the last hunk starting at or before it), or -1. */
export function hunkAt(model: DiffModel, row: number): number {
  let lo = 0;
  let hi = model.hunkStarts.length - 1;
  let ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (model.hunkStarts[mid] <= row) {
      ans = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return ans;
}
