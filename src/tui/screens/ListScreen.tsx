/**
 * The list screen: moves a cursor over the proposals (virtualised) and hands every other command
 * (open, apply, reject, undo, search, help, quit) to the app with the proposal under the cursor.
 */
import React, { useEffect, type MutableRefObject } from 'react';
import type { Command } from '../keymap.js';
import type { ListItem } from '../list-model.js';
import { scrollMoveFor, useWindowedScroll } from '../hooks/useWindowedScroll.js';
import { ProposalList } from '../components/ProposalList.js';

export interface ListScreenProps {
  items: ListItem[];
  width: number;
  /** rows available, including the column header */
  height: number;
  now: number;
  /** the screen's key handler, read by the app's single input dispatcher */
  keys: MutableRefObject<((c: Command) => void) | null>;
  initialCursor: number;
  onCursor(index: number): void;
  onCommand(c: Command, item: ListItem | undefined): void;
}

export function ListScreen({ items, width, height, now, keys, initialCursor, onCursor, onCommand }: ListScreenProps): React.ReactElement {
  const rows = Math.max(0, height - 1);
  const win = useWindowedScroll(items.length, rows, { withCursor: true, initial: initialCursor });
  useEffect(() => {
    onCursor(win.cursor);
  }, [win.cursor, onCursor]);
  keys.current = (c) => {
      switch (c) {
        case 'up':
          return win.move({ type: 'by', delta: -1 });
        case 'down':
          return win.move({ type: 'by', delta: 1 });
        default: {
          const scroll = scrollMoveFor(c);
          return scroll ? win.move(scroll) : onCommand(c, items[win.cursor]);
        }
      }
  };
  if (height <= 0) return <></>;
  return <ProposalList items={items} cursor={win.cursor} start={win.start} height={rows} width={width} now={now} />;
}
