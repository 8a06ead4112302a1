/**
 * The one input handler of the app. Ink fires every active useInput, and switching handlers on and
 * off with `isActive` only takes effect after React's passive effects run — keys typed in that gap
 * reach the screen that was just left. So there is a single, always-registered handler that reads
 * the *latest* route from a ref assigned during render: the key always goes where the screen shows.
 * In text mode raw keys go to the text handler (search box, reason box); otherwise the keymap turns
 * a key into a command for the route's context.
 */
import { useCallback, useRef } from 'react';
import { useInput, type Key } from 'ink';
import { resolveCommand, type Command, type KeyContext } from '../keymap.js';

export interface TextHandler {
  onChar(ch: string): void;
  onBackspace(): void;
  onSubmit(): void;
  onCancel(): void;
}

export interface KeyRoute {
  context: KeyContext;
  onCommand(c: Command): void;
  /** when set, printable keys are text, Enter submits and Esc cancels */
  text?: TextHandler | null;
}

export function dispatchKey(route: KeyRoute, input: string, key: Partial<Key>): void {
  const text = route.text;
  if (text) {
    if (key.ctrl && input === 'c') return route.onCommand('quit');
    if (key.return) return text.onSubmit();
    if (key.escape) return text.onCancel();
    if (key.backspace || key.delete) return text.onBackspace();
    if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return;
    // pasted text arrives in one call; keep it on one line, without control characters
    const clean = input.replace(/[\r\n]+/g, ' ').replace(/\p{Cc}/gu, '');
    if (clean) text.onChar(clean);
    return;
  }
  const command = resolveCommand(route.context, input, key);
  if (command) route.onCommand(command);
}

/** Routes every key press to `route` as it was at the last render (null = ignore keys). */
export function useKeymap(route: KeyRoute | null): void {
  const ref = useRef(route);
  ref.current = route;
  const handler = useCallback((input: string, key: Key) => {
    if (ref.current) dispatchKey(ref.current, input, key);
  }, []);
  useInput(handler);
}
