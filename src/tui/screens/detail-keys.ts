/**
 * What a command does in the Diff, Evidence and Report views: moves through the detail model, and
 * changes the review state by actions. Decisions, search, help and back go to the app (`other`).
 */
import type { Dispatch } from 'react';
import type { Proposal } from '../../core/records.js';
import type { Command } from '../keymap.js';
import type { Tone } from '../theme.js';
import { scrollMoveFor } from '../scroll-window.js';
import { VIEWS, type DetailNav, type ReviewAction } from '../review-state.js';
import { scroll, stepMatch, type DetailModel } from './detail-model.js';

export interface DetailContext {
  proposal: Proposal;
  model: DetailModel;
  nav: DetailNav;
  included: ReadonlySet<string>;
  query: string;
  dispatch: Dispatch<ReviewAction>;
  say(text: string, tone?: Tone): void;
  /** F in the Evidence view: forget the rejection of the edit under the cursor */
  forget(editIds: string[]): void;
  /** what the detail views do not handle themselves (decisions, search, help, back) */
  other(c: Command): void;
}

/** What a command does in the Diff, Evidence and Report views. */
export function detailCommand(c: Command, ctx: DetailContext): void {
  const { proposal: p, model: m, nav, included, dispatch, say } = ctx;
  const { view } = nav;
  const accepted = m.accepted;
  const editCursor = Math.min(nav.editCursor, accepted.length - 1);

  /** toggles a group of edits together: any included → all excluded, else all included */
  const toggle = (editIds: string[]) => {
    const next = new Set(included);
    const on = editIds.some((id) => next.has(id));
    for (const id of editIds) {
      if (on) next.delete(id);
      else next.add(id);
    }
    dispatch({ type: 'include', id: p.id, editIds: next });
    const names = editIds.map((id) => accepted.findIndex((e) => e.id === id) + 1).join(', ');
    say(`edit${editIds.length > 1 ? 's' : ''} ${names} ${on ? 'excluded' : 'included'} · ${next.size} of ${accepted.length} will be applied`, 'info');
  };

  const moveEdit = (delta: number) => {
    if (accepted.length === 0) return scroll(m, 'evidence', { type: 'by', delta }, dispatch);
    const to = Math.min(accepted.length - 1, Math.max(0, nav.editCursor + delta));
    dispatch({ type: 'editCursor', index: to });
    const at = m.evidence.editStarts[to] ?? 0;
    const win = m.windows.evidence;
    if (at < win.start || at >= win.end - 2) scroll(m, 'evidence', { type: 'reveal', index: Math.max(0, at - 1) }, dispatch);
  };

  switch (c) {
    case 'up':
    case 'down': {
      const d = c === 'up' ? -1 : 1;
      return view === 'evidence' ? moveEdit(d) : scroll(m, view, { type: 'by', delta: d }, dispatch);
    }
    case 'pageUp':
    case 'pageDown':
    case 'top':
    case 'bottom':
      return scroll(m, view, scrollMoveFor(c)!, dispatch);
    case 'nextView':
    case 'prevView': {
      const i = VIEWS.indexOf(view);
      return dispatch({ type: 'view', view: VIEWS[(i + (c === 'nextView' ? 1 : VIEWS.length - 1)) % VIEWS.length] });
    }
    case 'nextHunk':
    case 'prevHunk': {
      if (m.hunkStarts.length === 0) return say('this diff has no hunks', 'info');
      const h = Math.min(m.hunkStarts.length - 1, Math.max(0, m.hunk + (c === 'nextHunk' ? 1 : -1)));
      // reveal first, then name the hunk: the reveal would otherwise re-pick the hunk at the top row
      scroll(m, 'diff', { type: 'reveal', index: m.hunkStarts[h] }, dispatch);
      return dispatch({ type: 'hunk', hunk: h });
    }
    case 'cycleDiffMode':
      return dispatch({ type: 'diffMode', mode: m.mode === 'unified' ? 'split' : 'unified' });
    case 'expand': {
      if (accepted.length === 0) return say('this proposal has no separate edits to expand', 'info');
      // in the diff: the current hunk's first edit, opened in the Evidence view
      const at = view === 'evidence' ? editCursor : accepted.findIndex((e) => e.id === p.edits[(m.hunkEdits[m.hunk] ?? [])[0] ?? -1]?.id);
      if (at < 0) return say('no edit matches this hunk: Tab to the Evidence view and pick one', 'warning');
      const id = accepted[at].id;
      const next = new Set(nav.expanded);
      const open = view !== 'evidence' || !next.has(id);
      if (open) next.add(id);
      else next.delete(id);
      dispatch({ type: 'expanded', ids: next });
      if (view !== 'evidence') {
        dispatch({ type: 'editCursor', index: at });
        dispatch({ type: 'view', view: 'evidence' });
      }
      return;
    }
    case 'forget':
      if (view === 'evidence' && accepted.length > 0 && p.status === 'rejected') return ctx.forget([accepted[editCursor].id]);
      return ctx.other(c);
    case 'toggleEdit': {
      if (accepted.length === 0) return say('this proposal has no separate edits to choose from', 'info');
      if (view === 'evidence') return toggle([accepted[editCursor].id]);
      const eis = m.hunkEdits[m.hunk] ?? [];
      if (eis.length === 0) return say('no edit matches this hunk: toggle edits one by one in the Evidence view (Tab)', 'warning');
      return toggle(eis.map((ei) => p.edits[ei].id));
    }
    case 'includeAll':
      dispatch({ type: 'include', id: p.id, editIds: new Set(accepted.map((e) => e.id)) });
      return say(`all ${accepted.length} edits included`, 'info');
    case 'excludeAll':
      dispatch({ type: 'include', id: p.id, editIds: new Set() });
      return say('all edits excluded: Space includes the ones you want', 'info');
    case 'searchNext':
      return stepMatch(m, view, 1, ctx.query, dispatch, say);
    case 'searchPrev':
      return stepMatch(m, view, -1, ctx.query, dispatch, say);
    default:
      return ctx.other(c);
  }
}
