import { describe, expect, it } from 'vitest';
import { buildDiffModel, buildSplitRows, editsForHunk, hunkAt, mapHunksToEdits } from '../../src/tui/diff-model.js';
import { clampWindow, moveWindow } from '../../src/tui/scroll-window.js';
import { listColumns, matchesQuery, cellText } from '../../src/tui/list-model.js';
import { evidenceLines } from '../../src/tui/evidence-model.js';
import { plainText } from '../../src/tui/components/Line.js';
import { ledgerLine, nightLabel, whenLabel } from '../../src/tui/format.js';
import { sanitize } from '../../src/tui/text.js';
import { splitCommand } from '../../src/core/editor.js';
import { nextNightFrom } from '../../src/tui/store-services.js';
import { EVIDENCE, LEDGER, makeHugeProposal, makeProposal } from '../fixtures/tui-fixtures.js';

describe('buildDiffModel', () => {
  it('parses a unified diff into numbered rows and hunks', () => {
    const p = makeProposal();
    const m = buildDiffModel(p.diff);
    expect(m.hunkStarts.length).toBe(1);
    expect(m.added).toBe(3);
    expect(m.removed).toBe(1);
    const add = m.rows.find((r) => r.kind === 'add' && r.text.startsWith('Use the Keep'));
    expect(add?.newNo).toBe(9);
    const del = m.rows.find((r) => r.kind === 'del');
    expect(del?.text).toBe('Mention the issue.');
    expect(del?.oldNo).toBe(11);
  });

  it('shows text it cannot parse as a diff rather than nothing', () => {
    const m = buildDiffModel('not a diff\n+added\n-removed\n');
    expect(m.rows.map((r) => r.kind)).toEqual(['ctx', 'add', 'del']);
  });

  it('makes control characters visible instead of sending them to the terminal', () => {
    expect(sanitize('a\u001b[2Jb\tc')).toBe('a\\x1b[2Jb    c');
  });

  it('handles a 5,000-line diff with one hunk every 10 lines', () => {
    const m = buildDiffModel(makeHugeProposal(5000).diff);
    expect(m.added).toBe(500);
    expect(m.hunkStarts.length).toBeGreaterThan(100);
    expect(hunkAt(m, m.hunkStarts[3] + 1)).toBe(3);
    expect(hunkAt(m, 0)).toBe(-1);
  });
});

describe('buildSplitRows', () => {
  it('pairs a removed line with the line that replaces it', () => {
    const m = buildDiffModel(makeProposal().diff);
    const split = buildSplitRows(m);
    const pair = split.find((r) => r.left?.kind === 'del');
    expect(pair?.left?.text).toBe('Mention the issue.');
    expect(pair?.right?.text).toBe('Link the pull request as [#123](url).');
    const addOnly = split.find((r) => r.right?.text === 'Always write in the imperative mood.');
    expect(addOnly?.left).toBeUndefined();
    // every unified row is represented once
    expect(split.every((r) => r.source >= 0 && r.source < m.rows.length)).toBe(true);
  });
});

describe('editsForHunk', () => {
  it('finds the edits that produced a hunk by their content and anchors', () => {
    const p = makeProposal();
    const m = buildDiffModel(p.diff);
    expect(editsForHunk(m, 0, p.edits)).toEqual([0, 1, 2]); // e4 was rejected by the gate: never toggled
    expect(mapHunksToEdits(m, p.edits)).toEqual([[0, 1, 2]]);
  });

  it('separates edits that land in different hunks', () => {
    const base = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const edits = makeProposal().edits.slice(0, 2).map((e, i) => ({ ...e, op: 'add' as const, anchor: i === 0 ? 'line 2' : 'line 35', content: i === 0 ? 'first addition' : 'second addition' }));
    const p = makeProposal({ base, edits });
    const m = buildDiffModel(p.diff);
    expect(m.hunkStarts.length).toBe(2);
    expect(mapHunksToEdits(m, p.edits)).toEqual([[0], [1]]);
  });
});

describe('windowed scrolling', () => {
  it('keeps the cursor inside the window', () => {
    let s = { offset: 0, cursor: 0 };
    s = moveWindow(s, { type: 'by', delta: 12 }, 50, 10, true);
    expect(s).toEqual({ offset: 3, cursor: 12 });
    s = moveWindow(s, { type: 'by', delta: -5 }, 50, 10, true);
    expect(s).toEqual({ offset: 3, cursor: 7 });
    s = moveWindow(s, { type: 'bottom' }, 50, 10, true);
    expect(s).toEqual({ offset: 40, cursor: 49 });
    s = moveWindow(s, { type: 'page', dir: -1 }, 50, 10, true);
    expect(s).toEqual({ offset: 31, cursor: 40 });
  });

  it('clamps a plain scroll position to the content', () => {
    expect(moveWindow({ offset: 0, cursor: 0 }, { type: 'by', delta: -3 }, 100, 10, false).offset).toBe(0);
    expect(moveWindow({ offset: 0, cursor: 0 }, { type: 'bottom' }, 100, 10, false).offset).toBe(90);
    expect(moveWindow({ offset: 0, cursor: 0 }, { type: 'reveal', index: 95 }, 100, 10, false).offset).toBe(90);
    expect(clampWindow({ offset: 50, cursor: 50 }, 5, 10, false)).toEqual({ offset: 0, cursor: 0 });
    expect(clampWindow({ offset: 5, cursor: 5 }, 0, 10, true)).toEqual({ offset: 0, cursor: 0 });
  });
});

describe('list columns', () => {
  it('fits the terminal width, dropping the least useful columns first', () => {
    for (const width of [60, 80, 100, 120, 200]) {
      const cols = listColumns(width);
      const used = 2 + cols.reduce((n, c) => n + c.width + 1, 0);
      expect(used, `width ${width}`).toBeLessThanOrEqual(width);
      expect(cols.map((c) => c.id)).toEqual(expect.arrayContaining(['skill', 'val', 'status']));
    }
    expect(listColumns(60).map((c) => c.id)).not.toContain('night');
    expect(listColumns(120).map((c) => c.id)).toEqual(['skill', 'readers', 'project', 'night', 'val', 'test', 'edits', 'status']);
  });

  it('shows the cells the morning needs', () => {
    const item = { proposal: makeProposal(), status: 'staged' as const };
    expect(cellText(item, 'val', 0)).toBe('0.40→0.85');
    expect(cellText(item, 'test', 0)).toBe('0.50→0.83');
    expect(cellText(item, 'readers', 0)).toBe('claude,codex,copilot');
    expect(cellText(item, 'project', 0)).toBe('ledgerline');
    expect(cellText(item, 'edits', 0)).toBe('3');
  });

  it('filters by every word of the query', () => {
    const item = { proposal: makeProposal(), status: 'staged' as const };
    expect(matchesQuery(item, 'changelog ledgerline')).toBe(true);
    expect(matchesQuery(item, 'CODEX')).toBe(true);
    expect(matchesQuery(item, 'vitest')).toBe(false);
    expect(matchesQuery(item, '')).toBe(true);
  });
});

describe('evidence lines', () => {
  it('shows each edit with its rationale, effect, tasks, corrections and excerpts', () => {
    const p = makeProposal();
    const { lines, editStarts } = evidenceLines(p, EVIDENCE, new Set(['e2', 'e3']), 1, 100, Date.UTC(2026, 10, 29));
    const text = lines.map(plainText);
    expect(text[0]).toContain('2 of 3 included');
    expect(text[editStarts[0]]).toContain('[ ] 1. add after "Write one line per change."');
    expect(text[editStarts[0]]).toContain('+0.25');
    expect(text[editStarts[1]]).toMatch(/^❯ \[x\] 2\. replace/);
    const all = text.join('\n');
    expect(all).toContain('why: The user asked to link the PR');
    expect(all).toContain('correction › "no, Keep a Changelog format"');
    expect(all).toContain('"please link the pull request too"  claude-code:s1#4');
    expect(all).toContain('val   0.30 → 0.90 ▲ write a changelog entry for the parser fix');
    expect(all).toContain('test  0.50 → 0.83 ▲ changelog for the release');
    expect(all).toContain('Turned down by the gate (1)');
    expect(all).toContain('not measured');
  });
});

describe('formatting', () => {
  it('summarises what left the machine', () => {
    const morning = Date.UTC(2026, 10, 29, 8);
    expect(ledgerLine(LEDGER, morning)).toBe('What left this machine last night: 41 calls (claude ×41), 176 KB sent, $0 API cost.');
    expect(ledgerLine({ ...LEDGER, calls: 0, destinations: [], window: '24h' }, morning)).toBe('What left this machine in the last 24 h: nothing (0 model calls).');
    // the night it describes, named: one still running, or one from days ago
    expect(ledgerLine({ ...LEDGER, running: true }, morning)).toContain('during the night running now: 41 calls');
    expect(ledgerLine(LEDGER, morning + 3 * 24 * 3600_000)).toContain('during the last night (2026-11-29): 41 calls');
  });

  it('labels times relative to now', () => {
    const now = new Date(2026, 10, 29, 9, 0);
    expect(whenLabel(new Date(2026, 10, 30, 3, 0), now)).toBe('tomorrow 03:00');
    expect(whenLabel(new Date(2026, 10, 29, 23, 0), now)).toBe('today 23:00');
    expect(nightLabel(now.getTime() - 5 * 3600_000, now.getTime())).toBe('5h ago');
  });

  it('computes the next night from schedule.cron', () => {
    const n = nextNightFrom('0 3 * * *', undefined);
    expect(n.error).toBeUndefined();
    expect(n.at!.getHours()).toBe(3);
    expect(n.at!.getMinutes()).toBe(0);
    expect(n.at!.getTime()).toBeGreaterThan(Date.now());
    expect(n.at!.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    expect(nextNightFrom('not cron', undefined).error).toBeTruthy();
  });

  it('splits an editor command line', () => {
    expect(splitCommand('code --wait')).toEqual(['code', '--wait']);
    expect(splitCommand(`'/opt/my editor/bin' -f`)).toEqual(['/opt/my editor/bin', '-f']);
  });
});
