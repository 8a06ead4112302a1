import React from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { App } from '../../src/tui/App.js';
import { SleepError } from '../../src/core/errors.js';
import { makeHugeProposal, makeProposal, makeServices } from '../fixtures/tui-fixtures.js';

const tick = (ms = 25) => new Promise((r) => setTimeout(r, ms));
const KEYS: Record<string, string> = { enter: '\r', esc: '\u001B', tab: '\t', down: '\u001B[B', up: '\u001B[A', space: ' ' };

async function press(r: ReturnType<typeof render>, ...keys: string[]) {
  for (const k of keys) {
    r.stdin.write(KEYS[k] ?? k);
    await tick();
  }
}

function twoProposals() {
  return [
    makeProposal({ id: 'p-old', name: 'vitest-style', createdAt: Date.UTC(2026, 10, 27, 3) }),
    makeProposal({ id: 'p-new', name: 'changelog', createdAt: Date.UTC(2026, 10, 28, 3) }),
  ];
}

const frame = (r: ReturnType<typeof render>) => r.lastFrame() ?? '';

afterEach(() => cleanup());

describe('list', () => {
  it('lists proposals newest first with scores, readers and what left the machine', async () => {
    const { services } = makeServices(twoProposals());
    const r = render(<App services={services} size={{ columns: 120, rows: 30 }} />);
    await tick();
    const f = frame(r);
    expect(f).toContain('2 waiting · 0 decided');
    expect(f).toContain('What left this machine last night: 41 calls (claude ×41)');
    const lines = f.split('\n');
    const first = lines.findIndex((l) => l.includes('changelog'));
    const second = lines.findIndex((l) => l.includes('vitest-style'));
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first);
    expect(lines[first]).toMatch(/❯ changelog .*claude,codex,copilot .*ledgerline .*0\.40→0\.85 +0\.50→0\.83 +3 +staged/);
  });

  it('shows what happens tonight when nothing waits', async () => {
    const { services } = makeServices([makeProposal({ status: 'applied' })]);
    const r = render(<App services={services} size={{ columns: 100, rows: 30 }} />);
    await tick();
    const f = frame(r);
    expect(f).toContain('No proposals waiting for review.');
    expect(f).toContain('schedule.cron "0 3 * * *"');
    expect(f).toContain('skillopt-sleep night');
    expect(f).toContain('skillopt-sleep start');
    expect(f).toContain('applied'); // decided proposals stay listed below
  });

  it('shows the empty state with no proposals at all', async () => {
    const { services } = makeServices([]);
    const r = render(<App services={services} size={{ columns: 60, rows: 15 }} />);
    await tick();
    expect(frame(r)).toContain('No proposals waiting');
    await press(r, 'j', 'enter', 'a'); // nothing to act on, nothing breaks
    expect(frame(r)).toContain('No proposals waiting');
  });

  it('filters with / and clears with Esc', async () => {
    const { services } = makeServices(twoProposals());
    const r = render(<App services={services} size={{ columns: 100, rows: 24 }} />);
    await tick();
    await press(r, '/', 'v', 'i', 't');
    expect(frame(r)).toContain('Filter: vit');
    expect(frame(r)).not.toMatch(/❯ changelog/);
    await press(r, 'enter');
    expect(frame(r)).toContain('filter "vit" (1)');
    await press(r, '/', 'esc');
    await tick(80);
    expect(frame(r)).toContain('changelog');
    expect(frame(r)).toContain('vitest-style');
  });

  it('opens help with ? and closes it with Esc', async () => {
    const { services } = makeServices(twoProposals());
    const r = render(<App services={services} size={{ columns: 100, rows: 30 }} />);
    await tick();
    await press(r, '?');
    expect(frame(r)).toContain('Keys — Proposal list');
    expect(frame(r)).toContain('open the proposal');
    await press(r, 'esc');
    await tick(80);
    expect(frame(r)).not.toContain('Keys — Proposal list');
    expect(frame(r)).toContain('changelog');
  });
});

describe('detail', () => {
  it('opens a proposal, switches views with Tab and goes back with q', async () => {
    const { services } = makeServices(twoProposals());
    const r = render(<App services={services} size={{ columns: 100, rows: 30 }} />);
    await tick();
    await press(r, 'j', 'enter');
    expect(frame(r)).toContain('vitest-style · /home/dana/src/ledgerline/.claude/skills/vitest-style/SKILL.md');
    expect(frame(r)).toContain('read by Claude Code, Codex, Copilot');
    expect(frame(r)).toContain('+Use the Keep a Changelog sections');
    expect(frame(r)).toContain('-Mention the issue.');
    await press(r, 'tab');
    expect(frame(r)).toContain('Edits: 3 of 3 included');
    expect(frame(r)).toContain('why: The user corrected the agent three times');
    await press(r, 'tab');
    expect(frame(r)).toContain('gate');
    expect(frame(r)).toContain('passed after 3 trial(s)');
    expect(frame(r)).toContain('thin night');
    await press(r, 'tab');
    expect(frame(r)).toContain('hunk 1/1');
    await press(r, 'q');
    await tick(80);
    expect(frame(r)).toContain('2 waiting');
    expect(frame(r)).toMatch(/❯ vitest-style/); // the cursor kept its place
  });

  it('shows the diff side by side on a wide terminal and unified on a narrow one (resize)', async () => {
    const { services } = makeServices(twoProposals());
    const r = render(<App services={services} size={{ columns: 100, rows: 30 }} initialId="p-new" />);
    await tick();
    expect(frame(r)).toContain('unified');
    r.rerender(<App services={services} size={{ columns: 160, rows: 30 }} initialId="p-new" />);
    await tick(60);
    expect(frame(r)).toContain('side-by-side');
    expect(frame(r)).toMatch(/-Mention the issue\.\s+│\s+12 \+Link the pull request/);
    await press(r, 'd');
    expect(frame(r)).toContain('unified');
  });

  it('scrolls a 5,000-line diff by window and jumps between hunks', async () => {
    const { services } = makeServices([makeHugeProposal(5000)]);
    const r = render(<App services={services} size={{ columns: 100, rows: 24 }} initialId="p-huge" />);
    await tick(100);
    const f = frame(r);
    expect(f.split('\n').length).toBeLessThanOrEqual(23);
    expect(f).toMatch(/hunk 1\/\d{3}/);
    await press(r, ']', ']');
    expect(frame(r)).toMatch(/hunk 3\/\d{3}/);
    await press(r, 'G');
    expect(frame(r)).toContain('line 4993 of the skill'); // the last context line of the last hunk
    expect(frame(r)).not.toContain('line 5 of the skill');
  });
});

describe('review --id', () => {
  it('opens the proposal directly; back lands the list cursor on it', async () => {
    const { services } = makeServices(twoProposals());
    const r = render(<App services={services} size={{ columns: 100, rows: 30 }} initialId="p-old" />);
    await tick();
    expect(frame(r)).toContain('vitest-style · ');
    await press(r, 'esc');
    await tick(60);
    expect(frame(r)).toMatch(/❯ vitest-style/);
  });
});

describe('search and skip in the detail', () => {
  it('/ finds text in the diff and n steps through the matches', async () => {
    const { services } = makeServices([makeHugeProposal(2000)]);
    const r = render(<App services={services} size={{ columns: 100, rows: 24 }} initialId="p-huge" />);
    await tick(60);
    await press(r, '/');
    r.stdin.write('line 1500 changed');
    await tick();
    await press(r, 'enter');
    await tick(40);
    expect(frame(r)).toContain('match 1 of 1 for "line 1500 changed"');
    expect(frame(r)).toMatch(/»\s+1501 \+line 1500 changed/);
    await tick(60);
    expect(frame(r)).toMatch(/hunk 151\/200/); // the current hunk follows the jump
    await press(r, 'n');
    expect(frame(r)).toContain('match 1 of 1');
  });

  it('s skips to the next waiting proposal without deciding', async () => {
    const { services, rec } = makeServices(twoProposals());
    const r = render(<App services={services} size={{ columns: 100, rows: 30 }} initialId="p-new" />);
    await tick();
    await press(r, 's');
    expect(frame(r)).toContain('vitest-style · ');
    expect(frame(r)).toContain('skipped changelog: it stays staged');
    expect(rec.applied).toEqual([]);
  });
});

describe('decisions', () => {
  it('applies after a numbered confirmation', async () => {
    const { services, rec } = makeServices(twoProposals());
    const r = render(<App services={services} size={{ columns: 100, rows: 30 }} />);
    await tick();
    await press(r, 'a');
    expect(frame(r)).toContain('Apply changelog to');
    expect(frame(r)).toContain('1. Yes, apply');
    expect(frame(r)).toContain('2. No');
    await press(r, '1');
    await tick(60);
    expect(rec.applied).toEqual([{ id: 'p-new', force: false }]);
    expect(frame(r)).toContain('Applied p-new');
    expect(frame(r)).toMatch(/changelog .* applied/);
  });

  it('does nothing when the dialog is answered No or Esc', async () => {
    const { services, rec } = makeServices(twoProposals());
    const r = render(<App services={services} size={{ columns: 100, rows: 30 }} />);
    await tick();
    await press(r, 'a', '2');
    await press(r, 'a', 'esc');
    await tick(80);
    await press(r, 'a', 'down', 'enter');
    expect(rec.applied).toEqual([]);
    expect(frame(r)).not.toContain('Apply changelog');
  });

  it('rejects with a reason', async () => {
    const { services, rec } = makeServices(twoProposals());
    const r = render(<App services={services} size={{ columns: 100, rows: 30 }} />);
    await tick();
    await press(r, 'j', 'x');
    expect(frame(r)).toContain('Reject vitest-style?');
    await press(r, '2');
    expect(frame(r)).toContain('Reason:');
    r.stdin.write('too noisy');
    await tick();
    await press(r, 'enter');
    await tick(60);
    expect(rec.rejected).toEqual([{ id: 'p-old', reason: 'too noisy' }]);
    expect(frame(r)).toMatch(/vitest-style .* rejected/);
  });

  it('partial apply: Space excludes an edit, the rest is re-scored, the new score is shown, then applied', async () => {
    const { services, rec } = makeServices(twoProposals(), { rescoreScore: 0.81 });
    const r = render(<App services={services} size={{ columns: 110, rows: 32 }} initialId="p-new" />);
    await tick();
    await press(r, 'tab', 'space');
    expect(frame(r)).toContain('Edits: 2 of 3 included');
    expect(frame(r)).toContain('2 of 3 edits');
    await press(r, 'a');
    await tick(60);
    expect(rec.rescored).toEqual([{ id: 'p-new', editIds: ['e2', 'e3'] }]);
    expect(frame(r)).toContain('Apply 2 of 3 edits to');
    expect(frame(r)).toContain('validation 0.40 → 0.81 with these edits (all 3: 0.85) · scored from cache');
    await press(r, '1');
    await tick(60);
    expect(rec.applied).toEqual([{ id: 'p-new', editIds: ['e2', 'e3'], force: false }]);
  });

  it('Space on a diff hunk excludes its edits and marks the hunk', async () => {
    const { services } = makeServices(twoProposals());
    const r = render(<App services={services} size={{ columns: 100, rows: 30 }} initialId="p-new" />);
    await tick();
    await press(r, 'space');
    expect(frame(r)).toContain('(excluded)');
    expect(frame(r)).toContain('0 of 3 will be applied');
    await press(r, 'a');
    expect(frame(r)).toContain('no edits included');
    await press(r, 'A');
    expect(frame(r)).not.toContain('(excluded)');
  });

  it('explains a stale proposal and offers to re-run or apply anyway', async () => {
    const { services, rec } = makeServices(twoProposals(), { stale: new Set(['p-new']) });
    const r = render(<App services={services} size={{ columns: 110, rows: 32 }} />);
    await tick();
    expect(frame(r)).toMatch(/changelog .* stale/);
    await press(r, 'a');
    expect(frame(r)).toContain('The live file changed since this proposal was made');
    expect(frame(r)).toContain('1. Re-run training for this skill now');
    await press(r, '1');
    await tick(60);
    expect(rec.reran).toEqual(['p-new']);
    await press(r, 'a', '2');
    expect(frame(r)).toContain('Apply changelog to');
    await press(r, '1');
    await tick(60);
    expect(rec.applied).toEqual([{ id: 'p-new', force: true }]);
  });

  it('shows the stale explanation when the service refuses a stale base', async () => {
    const { services } = makeServices(twoProposals(), { failApply: new SleepError('STALE', 'SKILL.md changed since this proposal was trained') });
    const r = render(<App services={services} size={{ columns: 110, rows: 32 }} />);
    await tick();
    await press(r, 'a', '1');
    await tick(60);
    expect(frame(r)).toContain('The live file changed since this proposal was made');
  });

  it('reports a failed apply in the status line', async () => {
    const { services } = makeServices(twoProposals(), { failApply: new SleepError('PATH_ESCAPE', 'refusing to write outside the skill roots', { hint: 'check the skill name' }) });
    const r = render(<App services={services} size={{ columns: 120, rows: 30 }} />);
    await tick();
    await press(r, 'a', '1');
    await tick(60);
    expect(frame(r)).toContain('refusing to write outside the skill roots — check the skill name');
  });

  it('e edits the candidate in $EDITOR and applies the edited text after confirming', async () => {
    const { services, rec } = makeServices(twoProposals(), { editResult: 'my own version\n' });
    const r = render(<App services={services} size={{ columns: 110, rows: 30 }} initialId="p-new" />);
    await tick();
    await press(r, 'e');
    await tick(40);
    expect(rec.edited[0]).toContain('Keep a Changelog');
    expect(frame(r)).toContain('Apply your edited version');
    await press(r, '1');
    await tick(60);
    expect(rec.applied).toEqual([{ id: 'p-new', content: 'my own version\n' }]);
  });

  it('u reverts the last apply', async () => {
    const { services, rec } = makeServices(twoProposals());
    const r = render(<App services={services} size={{ columns: 100, rows: 30 }} />);
    await tick();
    await press(r, 'u');
    expect(frame(r)).toContain('nothing to undo');
    await press(r, 'a', '1');
    await tick(60);
    await press(r, 'u');
    expect(frame(r)).toContain('Revert changelog?');
    await press(r, '1');
    await tick(60);
    expect(rec.reverted).toEqual(['p-new']);
    expect(frame(r)).toMatch(/changelog .* reverted/);
  });
});

describe('small terminals', () => {
  it('scrolls the help when it does not fit, decisions listed first', async () => {
    const { services } = makeServices(twoProposals());
    const r = render(<App services={services} size={{ columns: 60, rows: 15 }} initialId="p-new" />);
    await tick();
    await press(r, '?');
    expect(frame(r)).toContain('Keys — Diff view');
    expect(frame(r).split('\n')[2]).toContain('apply');
    expect(frame(r)).toMatch(/↓ \d+ more \(j\/k scroll\)/);
    await press(r, 'j', 'j');
    expect(frame(r)).toContain('↑ 2 above');
    await press(r, 'q');
    await tick(60);
    expect(frame(r)).toContain('hunk 1/1');
  });

  it('fits 60×15 on every screen', async () => {
    const { services } = makeServices([...twoProposals(), ...Array.from({ length: 48 }, (_, i) => makeProposal({ id: `p-${i}`, name: `skill-${i}`, createdAt: Date.UTC(2026, 9, 1) + i }))]);
    const r = render(<App services={services} size={{ columns: 60, rows: 15 }} />);
    const check = () => {
      const lines = frame(r).split('\n');
      expect(lines.length).toBeLessThanOrEqual(15);
      for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(60);
    };
    await tick();
    check();
    await press(r, 'G');
    check();
    expect(frame(r)).toMatch(/❯ skill-0/); // oldest, at the bottom
    await press(r, 'g', 'enter');
    check();
    for (const k of ['tab', 'tab', 'a']) {
      await press(r, k);
      check();
    }
  });
});
