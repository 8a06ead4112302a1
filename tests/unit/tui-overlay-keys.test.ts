/** The layers over a screen (dialog, text box, help, a running job): what each command does. */
import { describe, expect, it } from 'vitest';
import { overlayRoute } from '../../src/tui/overlay-keys.js';
import { initialReviewState, reviewReducer, type ReviewAction, type ReviewState } from '../../src/tui/review-state.js';
import type { LedgerSummary } from '../../src/tui/services.js';
import type { Command } from '../../src/tui/keymap.js';

const LEDGER = { window: '24h', since: 0, calls: 0, failed: 0, bytesSent: 0, costUsd: 0, tokensIn: 0, tokensOut: 0 } as LedgerSummary;

function harness(start: (s: ReviewState) => ReviewState) {
  let state = start(initialReviewState([], LEDGER));
  const log: string[] = [];
  const dispatch = (a: ReviewAction) => (state = reviewReducer(state, a));
  const deps = { dispatch, quit: () => log.push('quit'), helpMax: () => 3 };
  const press = (c: Command) => overlayRoute(state, deps)!.onCommand(c);
  return { log, press, route: () => overlayRoute(state, deps), state: () => state };
}

describe('overlayRoute', () => {
  it('leaves the keys to the screen when nothing is open', () => {
    expect(harness((s) => s).route()).toBeNull();
  });

  it('a dialog answers digits, Enter on the highlight, and Esc with its last option', () => {
    const ask = (log: string[]) => (s: ReviewState) =>
      reviewReducer(s, { type: 'ask', dialog: { title: 'Apply?', body: [], options: [{ label: 'Yes', run: () => log.push('yes') }, { label: 'Edit', run: () => log.push('edit') }, { label: 'No', run: () => log.push('no') }] } });
    const log: string[] = [];
    let h = harness(ask(log));
    h.press('choose2');
    expect(log).toEqual(['edit']);
    expect(h.state().dialog).toBeNull();
    h = harness(ask(log));
    h.press('down');
    h.press('down');
    h.press('confirm');
    expect(log).toEqual(['edit', 'no']);
    h = harness(ask(log));
    h.press('back');
    expect(log).toEqual(['edit', 'no', 'no']);
    h = harness(ask(log));
    h.press('choose4'); // no fourth option: nothing happens
    expect(h.state().dialog).not.toBeNull();
  });

  it('the text box collects typing and hands the value over on Enter, after closing', () => {
    const got: string[] = [];
    const h = harness((s) => reviewReducer(s, { type: 'prompt', text: { label: 'Reason: ', onSubmit: (v) => got.push(v) } }));
    const text = h.route()!.text!;
    text.onChar('too ');
    text.onChar('long!');
    text.onBackspace();
    h.route()!.text!.onSubmit();
    expect(got).toEqual(['too long']);
    expect(h.state().text).toBeNull();
  });

  it('help scrolls within its bound and closes on back', () => {
    const h = harness((s) => reviewReducer(s, { type: 'help', open: true }));
    for (let i = 0; i < 5; i++) h.press('down');
    expect(h.state().help).toEqual({ offset: 3 });
    h.press('back');
    expect(h.state().help).toBeNull();
  });

  it('a running job is cancelled by cancel, and quit cancels it before quitting', () => {
    const log: string[] = [];
    const h = harness((s) => reviewReducer(s, { type: 'busy', busy: { label: 're-scoring', cancel: () => log.push('cancel') } }));
    h.press('cancel');
    h.press('quit');
    expect(log).toEqual(['cancel', 'cancel']);
    expect(h.log).toEqual(['quit']);
  });
});
