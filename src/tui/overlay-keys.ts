/**
 * The keys of the layers drawn over a screen, in the order they take the keyboard: a dialog, then
 * the text box, then help, then a running job. Each layer's route turns a command into review
 * actions; the app sends keys to the screen only when none of them is open (`overlayRoute` → null).
 */
import type { Dispatch } from 'react';
import { chosenOption } from './keymap.js';
import type { KeyRoute } from './hooks/useKeymap.js';
import type { ReviewAction, ReviewState } from './review-state.js';

export interface OverlayDeps {
  dispatch: Dispatch<ReviewAction>;
  quit(): void;
  /** the last scroll offset of help that still fills its box */
  helpMax(): number;
}

export function overlayRoute(state: Pick<ReviewState, 'dialog' | 'text' | 'help' | 'busy'>, { dispatch, quit, helpMax }: OverlayDeps): KeyRoute | null {
  const { dialog, text, help, busy } = state;
  if (dialog) {
    const close = (index: number) => {
      const opt = dialog.options[index];
      if (!opt) return;
      dispatch({ type: 'dialogClose' });
      opt.run?.();
    };
    return {
      context: 'dialog',
      onCommand: (c) => {
        if (c === 'quit') return quit();
        const n = chosenOption(c);
        if (n !== null) return close(n);
        if (c === 'up' || c === 'down') return dispatch({ type: 'dialogMove', by: c === 'up' ? -1 : 1 });
        if (c === 'confirm') return close(dialog.selected);
        // Esc answers with the last option: every dialog ends with its "No" / "Cancel"
        if (c === 'back') return close(dialog.options.length - 1);
      },
    };
  }
  if (text) {
    return {
      context: 'list',
      onCommand: (c) => c === 'quit' && quit(),
      text: {
        // actions, not values: a paste or fast typing delivers several keys before the next render
        onChar: (chars) => dispatch({ type: 'type', chars }),
        onBackspace: () => dispatch({ type: 'erase' }),
        onSubmit: () => {
          dispatch({ type: 'promptClose' });
          text.onSubmit(text.value);
        },
        onCancel: () => {
          dispatch({ type: 'promptClose' });
          text.onCancel?.();
        },
      },
    };
  }
  if (help) {
    return {
      context: 'help',
      onCommand: (c) => {
        if (c === 'quit') return quit();
        if (c === 'back') return dispatch({ type: 'help', open: false });
        if (c === 'down' || c === 'up') dispatch({ type: 'helpScroll', by: c === 'up' ? -1 : 1, max: helpMax() });
      },
    };
  }
  if (busy) {
    return {
      context: 'busy',
      onCommand: (c) => {
        // Ctrl+c also aborts a running replay, so its backend calls stop with the app
        if (c === 'cancel' || c === 'quit') busy.cancel?.();
        if (c === 'quit') quit();
      },
    };
  }
  return null;
}
