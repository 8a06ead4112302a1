import { describe, expect, it } from 'vitest';
import { KEYMAP, BINDINGS, statusHints, type HintContext, type Keymap } from '../../src/tui/keymap.js';

describe('status hints come from the keymap', () => {
  // the texts the status line showed when they were written by hand: derivation keeps them
  const wide: Record<Exclude<HintContext, 'help'>, string> = {
    list: '↑/↓ move · Enter open · a apply · x reject · u undo · F forget · / search · ? help · q quit',
    diff: 'Tab view · ]/[ hunk · Enter expand · Space edit · a apply · x reject · e edit · s skip · d layout · ? help · q back',
    evidence: 'Tab view · ↑/↓ edit · Enter expand · Space include · a apply · x reject · e edit · ? help · q back',
    report: 'Tab view · ↑/↓ scroll · a apply · x reject · / search · ? help · q back',
    busy: 'Esc / q cancel · Ctrl+c quit',
  };
  const narrow: Record<'list' | 'diff' | 'evidence' | 'report', string> = {
    list: '↑↓ Enter · a apply · x reject · u undo · ? help',
    diff: 'Tab · ]/[ hunk · Space · a · x · e · s · ? help',
    evidence: 'Tab · ↑↓ · Space · a · x · e · ? help',
    report: 'Tab · ↑↓ · a · x · / · ? help',
  };
  it.each(Object.entries(wide))('%s, wide terminal', (ctx, text) => {
    expect(statusHints(ctx as HintContext, 120)).toBe(text);
  });
  it.each(Object.entries(narrow))('%s, narrow terminal', (ctx, text) => {
    expect(statusHints(ctx as HintContext, 80)).toBe(text);
  });
  it('help names every key that closes it, and its scroll keys', () => {
    expect(statusHints('help', 120)).toBe('Esc / q / ? close help · j/k scroll');
  });

  it('a rebound key changes the hint with it', () => {
    const apply = KEYMAP.apply[0] as { keys: readonly string[] };
    const keys = apply.keys;
    try {
      apply.keys = ['y'];
      expect(statusHints('list', 120)).toContain('y apply');
    } finally {
      apply.keys = keys;
    }
  });
});

describe('the keymap is a record over every command', () => {
  it('lists each binding once, in the order of the record', () => {
    const counted = Object.values(KEYMAP).reduce((n, bs) => n + bs.length, 0);
    expect(BINDINGS).toHaveLength(counted);
    expect(BINDINGS[0].command).toBe('up');
  });

  it('an unbound command does not compile', () => {
    // typecheck (tsc covers tests/) fails if this stops being an error: a Keymap needs every command
    // @ts-expect-error -- 'confirm' has no binding
    const missing: Keymap = { ...KEYMAP, confirm: undefined };
    // @ts-expect-error -- a command with an empty list of bindings is unbound too
    const empty: Keymap = { ...KEYMAP, confirm: [] };
    // @ts-expect-error -- and a key that is not a command is refused
    const stray: Keymap = { ...KEYMAP, launch: [{ keys: ['L'], contexts: ['list'], help: 'x' }] };
    expect([missing, empty, stray].every((k) => typeof k === 'object')).toBe(true);
  });
});
