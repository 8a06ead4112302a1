/**
 * Virtualised scrolling: the screens render only `height` rows starting at `offset`, whatever the
 * length of the content. Two flavours: a cursor that the window follows (lists), and a plain
 * scroll position (diffs, reports). Pure arithmetic: the review state keeps the positions, and
 * each move carries the size it is made in.
 */

export interface WindowState {
  offset: number;
  cursor: number;
}

export type WindowMove =
  | { type: 'by'; delta: number }
  | { type: 'to'; index: number }
  | { type: 'page'; dir: 1 | -1 }
  | { type: 'top' }
  | { type: 'bottom' }
  /** scroll so that `index` is the first visible row (scroll mode) or the cursor (cursor mode) */
  | { type: 'reveal'; index: number };

export function clampWindow(s: WindowState, count: number, height: number, withCursor: boolean): WindowState {
  const h = Math.max(1, height);
  if (count <= 0) return { offset: 0, cursor: 0 };
  const maxOffset = Math.max(0, count - h);
  if (!withCursor) {
    const offset = Math.min(Math.max(0, s.offset), maxOffset);
    return { offset, cursor: offset };
  }
  const cursor = Math.min(Math.max(0, s.cursor), count - 1);
  let offset = Math.min(Math.max(0, s.offset), maxOffset);
  if (cursor < offset) offset = cursor;
  if (cursor >= offset + h) offset = cursor - h + 1;
  return { offset, cursor };
}

export function moveWindow(s: WindowState, move: WindowMove, count: number, height: number, withCursor: boolean): WindowState {
  const h = Math.max(1, height);
  const pos = withCursor ? s.cursor : s.offset;
  let next: number;
  switch (move.type) {
    case 'by':
      next = pos + move.delta;
      break;
    case 'to':
    case 'reveal':
      next = move.index;
      break;
    case 'page':
      next = pos + move.dir * Math.max(1, h - 1);
      break;
    case 'top':
      next = 0;
      break;
    case 'bottom':
      next = count - 1;
      break;
  }
  if (withCursor) {
    // paging moves the window too, so the cursor keeps its place on screen
    const offset = move.type === 'page' ? s.offset + (next - pos) : s.offset;
    return clampWindow({ offset, cursor: next }, count, h, true);
  }
  return clampWindow({ offset: next, cursor: next }, count, h, false);
}

/** The window move a scrolling key stands for (pageUp/pageDown/top/bottom), or null for other keys. */
export function scrollMoveFor(command: string): WindowMove | null {
  switch (command) {
    case 'pageUp':
      return { type: 'page', dir: -1 };
    case 'pageDown':
      return { type: 'page', dir: 1 };
    case 'top':
      return { type: 'top' };
    case 'bottom':
      return { type: 'bottom' };
    default:
      return null;
  }
}
