/** The detail views' command handler, on a hand-made model: what each command dispatches and says. */
import { describe, expect, it } from 'vitest';
import { detailCommand } from '../../src/tui/screens/detail-keys.js';
import type { DetailModel } from '../../src/tui/screens/detail-model.js';
import { acceptedEdits } from '../../src/tui/evidence-model.js';
import { freshNav, type DetailNav, type ReviewAction } from '../../src/tui/review-state.js';
import type { Command } from '../../src/tui/keymap.js';
import { makeProposal } from '../fixtures/tui-fixtures.js';

function setup(nav: Partial<DetailNav> = {}, hunk = 0) {
  const proposal = makeProposal();
  const accepted = acceptedEdits(proposal);
  const win = { start: 0, end: 10, count: 40 };
  const model = {
    bodyHeight: 10,
    accepted,
    mode: 'unified',
    hunkStarts: [0, 20],
    hunk,
    hunkEdits: [[0], []],
    evidence: { lines: [], editStarts: accepted.map((_, i) => i * 15) },
    windows: { diff: win, evidence: win, report: win },
    matches: { diff: [], evidence: [], report: [] },
  } as unknown as DetailModel;
  const actions: ReviewAction[] = [];
  const said: string[] = [];
  const passed: Command[] = [];
  const run = (c: Command, included = new Set(accepted.map((e) => e.id))) =>
    detailCommand(c, { proposal, model, nav: { ...freshNav(), ...nav }, included, query: '', dispatch: (a) => actions.push(a), say: (t) => said.push(t), forget: () => passed.push('forget'), other: (x) => passed.push(x) });
  return { proposal, accepted, actions, said, passed, run };
}

describe('detailCommand', () => {
  it('Tab and Shift+Tab cycle Diff → Evidence → Report, both ways', () => {
    const t = setup({ view: 'report' });
    t.run('nextView');
    t.run('prevView');
    expect(t.actions).toEqual([{ type: 'view', view: 'diff' }, { type: 'view', view: 'evidence' }]);
  });

  it('Space in the Evidence view excludes the edit under the cursor and says how many stay', () => {
    const t = setup({ view: 'evidence', editCursor: 1 });
    expect(t.accepted.length).toBeGreaterThan(1);
    t.run('toggleEdit');
    const include = t.actions.find((a) => a.type === 'include');
    expect(include && include.type === 'include' && [...include.editIds]).toEqual(t.accepted.filter((_, i) => i !== 1).map((e) => e.id));
    expect(t.said[0]).toBe(`edit 2 excluded · ${t.accepted.length - 1} of ${t.accepted.length} will be applied`);
  });

  it('] reveals the next hunk, then names it current (so the reveal cannot re-pick the one above)', () => {
    const t = setup({ view: 'diff' });
    t.run('nextHunk');
    expect(t.actions).toEqual([
      { type: 'scroll', view: 'diff', move: { type: 'reveal', index: 20 }, count: 40, height: 10, hunkStarts: [0, 20] },
      { type: 'hunk', hunk: 1 },
    ]);
  });

  it('a hunk with no edit of its own cannot be toggled, and says where to go instead', () => {
    const t = setup({ view: 'diff' }, 1);
    t.run('toggleEdit');
    expect(t.actions).toEqual([]);
    expect(t.said[0]).toContain('Evidence view');
  });

  it('decisions, search and back go to the app', () => {
    const t = setup();
    for (const c of ['apply', 'reject', 'back', 'search', 'help'] as Command[]) t.run(c);
    expect(t.passed).toEqual(['apply', 'reject', 'back', 'search', 'help']);
    expect(t.actions).toEqual([]);
  });
});
