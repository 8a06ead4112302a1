/**
 * The review's reducer: what each action does to the state, without rendering. The rendered
 * behaviour (keys in, frames out) is covered by tui-app.test.tsx and the tmux e2e tests.
 */
import { describe, expect, it } from 'vitest';
import { followHunk, freshNav, initialReviewState, lastAppliedProposal, reviewReducer, type ReviewAction, type ReviewState } from '../../src/tui/review-state.js';
import type { LedgerSummary } from '../../src/tui/services.js';
import { makeProposal } from '../fixtures/tui-fixtures.js';

const LEDGER: LedgerSummary = { window: '24h', since: 0, calls: 0, failed: 0, bytesSent: 0, costUsd: 0, tokensIn: 0, tokensOut: 0 } as LedgerSummary;
const three = () => [makeProposal({ id: 'p-1', name: 'one' }), makeProposal({ id: 'p-2', name: 'two' }), makeProposal({ id: 'p-3', name: 'three' })];
const run = (s: ReviewState, ...actions: ReviewAction[]) => actions.reduce(reviewReducer, s);

describe('reviewReducer', () => {
  it('starts on the list, or on the proposal `review --id` names with the list cursor on it', () => {
    expect(initialReviewState(three(), LEDGER).screen).toEqual({ kind: 'list' });
    const s = initialReviewState(three(), LEDGER, 'p-2');
    expect(s.screen).toEqual({ kind: 'detail', id: 'p-2', nav: freshNav() });
    expect(s.list.cursor).toBe(1);
    expect(run(s, { type: 'back' }).list).toEqual({ offset: 1, cursor: 1 });
  });

  it('opening a proposal starts from the top of its diff, with no search and no old message', () => {
    let s = initialReviewState(three(), LEDGER, 'p-1');
    s = run(s, { type: 'view', view: 'report' }, { type: 'hunk', hunk: 2 }, { type: 'detailQuery', query: 'x' }, { type: 'say', text: 'done', tone: 'success' });
    expect(s.screen.kind === 'detail' && s.screen.nav.view).toBe('report');
    s = run(s, { type: 'open', id: 'p-3' });
    expect(s.screen).toEqual({ kind: 'detail', id: 'p-3', nav: freshNav() });
    expect(s.detailQuery).toBe('');
    expect(s.message).toBeNull();
    // skip opens the next one and says so
    s = run(s, { type: 'open', id: 'p-1', message: { text: 'skipped three', tone: 'info' } });
    expect(s.message).toEqual({ text: 'skipped three', tone: 'info' });
  });

  it('moves the list cursor inside the list, and the window follows it', () => {
    let s = initialReviewState(three(), LEDGER);
    s = run(s, { type: 'listMove', move: { type: 'by', delta: 5 }, count: 3, height: 2 });
    expect(s.list).toEqual({ offset: 1, cursor: 2 });
    s = run(s, { type: 'listMove', move: { type: 'top' }, count: 3, height: 2 });
    expect(s.list).toEqual({ offset: 0, cursor: 0 });
  });

  it('scrolls a detail view within its rows, and the current hunk follows once it leaves the screen', () => {
    let s = initialReviewState(three(), LEDGER, 'p-1');
    // hunks start at rows 0, 10 and 20 of 30; the window is 5 rows high
    s = run(s, { type: 'scroll', view: 'diff', move: { type: 'by', delta: 12 }, count: 30, height: 5, hunkStarts: [0, 10, 20] });
    const nav = s.screen.kind === 'detail' ? s.screen.nav : null;
    expect(nav?.offsets.diff).toBe(12);
    expect(nav?.hunk).toBe(1);
    s = run(s, { type: 'scroll', view: 'report', move: { type: 'bottom' }, count: 8, height: 5 });
    expect(s.screen.kind === 'detail' && s.screen.nav.offsets.report).toBe(3);
  });

  it('cycles the dialog highlight both ways and closes it', () => {
    const options = [{ label: 'Yes' }, { label: 'No' }];
    let s = run(initialReviewState(three(), LEDGER), { type: 'ask', dialog: { title: 't', body: [], options, initial: 1 } });
    expect(s.dialog?.selected).toBe(1);
    s = run(s, { type: 'dialogMove', by: 1 });
    expect(s.dialog?.selected).toBe(0);
    s = run(s, { type: 'dialogMove', by: -1 });
    expect(s.dialog?.selected).toBe(1);
    expect(run(s, { type: 'dialogClose' }).dialog).toBeNull();
  });

  it('types into the text box and erases by whole characters', () => {
    let s = run(initialReviewState(three(), LEDGER), { type: 'prompt', text: { label: 'Filter: ', initial: 'ab', onSubmit: () => {} } });
    s = run(s, { type: 'type', chars: 'c👍' }, { type: 'erase' });
    expect(s.text?.value).toBe('abc');
    // keys with no text box open change nothing
    const closed = run(s, { type: 'promptClose' });
    expect(run(closed, { type: 'type', chars: 'x' })).toBe(closed);
  });

  it('scrolls help between its top and the last row that fits', () => {
    let s = run(initialReviewState(three(), LEDGER), { type: 'help', open: true }, { type: 'helpScroll', by: -1, max: 2 });
    expect(s.help).toEqual({ offset: 0 });
    s = run(s, { type: 'helpScroll', by: 1, max: 2 }, { type: 'helpScroll', by: 1, max: 2 }, { type: 'helpScroll', by: 1, max: 2 });
    expect(s.help).toEqual({ offset: 2 });
    expect(run(s, { type: 'help', open: false }, { type: 'help', open: true }).help).toEqual({ offset: 0 });
  });

  it('undo picks the proposal applied in this session, else the latest applied', () => {
    const ps = [makeProposal({ id: 'a', status: 'applied' }), makeProposal({ id: 'b', status: 'applied' })];
    ps[0].decidedAt = 200;
    ps[1].decidedAt = 100;
    const s = initialReviewState(ps, LEDGER);
    expect(lastAppliedProposal(s)?.id).toBe('a');
    expect(lastAppliedProposal(run(s, { type: 'applied', id: 'b' }))?.id).toBe('b');
  });
});

describe('followHunk', () => {
  const starts = [0, 10, 20];
  it('keeps the current hunk while any of it is on screen', () => {
    expect(followHunk(0, starts, 8, 13, 30)).toBe(0);
  });
  it('takes the hunk under the top row once the current one is gone', () => {
    expect(followHunk(0, starts, 12, 17, 30)).toBe(1);
  });
  it('takes the first hunk that starts on screen when scrolling back up', () => {
    expect(followHunk(2, starts, 0, 5, 30)).toBe(0);
  });
});
