import React from 'react';
import { describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { Text } from 'ink';
import { BINDINGS, canonicalKeys, chosenOption, helpFor, resolveCommand, type Command, type KeyContext } from '../../src/tui/keymap.js';
import { dispatchKey, useKeymap } from '../../src/tui/hooks/useKeymap.js';

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

describe('canonicalKeys', () => {
  it('names special keys and keeps printable keys case-sensitive', () => {
    expect(canonicalKeys('', { upArrow: true })).toEqual(['up']);
    expect(canonicalKeys('', { tab: true, shift: true })).toEqual(['shift+tab']);
    expect(canonicalKeys('\r', { return: true })).toEqual(['enter']);
    expect(canonicalKeys('', { escape: true })).toEqual(['esc']);
    expect(canonicalKeys('d', { ctrl: true })).toEqual(['ctrl+d']);
    expect(canonicalKeys(' ', {})).toEqual(['space']);
    expect(canonicalKeys('G', { shift: true })).toEqual(['G']);
    expect(canonicalKeys('abc', {})).toEqual([]); // a paste is not a command
  });
});

describe('resolveCommand', () => {
  const cases: Array<[KeyContext, string, Record<string, boolean>, Command | null]> = [
    ['list', 'j', {}, 'down'],
    ['list', '', { downArrow: true }, 'down'],
    ['list', 'k', {}, 'up'],
    ['list', '\r', { return: true }, 'open'],
    ['list', 'q', {}, 'quit'],
    ['list', '', { escape: true }, 'quit'],
    ['diff', 'q', {}, 'back'],
    ['evidence', '', { escape: true }, 'back'],
    ['diff', ' ', {}, 'toggleEdit'],
    ['evidence', ' ', {}, 'toggleEdit'],
    ['report', ' ', {}, null],
    ['list', ' ', {}, null],
    ['diff', ']', {}, 'nextHunk'],
    ['diff', '[', {}, 'prevHunk'],
    ['evidence', ']', {}, null],
    ['diff', '\t', { tab: true }, 'nextView'],
    ['report', '', { tab: true, shift: true }, 'prevView'],
    ['list', 'a', {}, 'apply'],
    ['diff', 'x', {}, 'reject'],
    ['diff', 'e', {}, 'editCandidate'],
    ['list', 'e', {}, null],
    ['list', 'u', {}, 'revertLast'],
    ['list', '/', {}, 'search'],
    ['list', '?', {}, 'help'],
    ['dialog', '1', {}, 'choose1'],
    ['dialog', '2', {}, 'choose2'],
    ['list', '1', {}, null],
    ['dialog', '', { escape: true }, 'back'],
    ['dialog', '\r', { return: true }, 'confirm'],
    ['dialog', 'a', {}, null],
    ['help', '?', {}, 'back'],
    ['diff', 'c', { ctrl: true }, 'quit'],
    ['dialog', 'c', { ctrl: true }, 'quit'],
  ];
  it.each(cases)('%s: %j %j → %s', (ctx, input, key, expected) => {
    expect(resolveCommand(ctx, input, key)).toBe(expected);
  });

  it('no key means two different commands in the same context', () => {
    const contexts: KeyContext[] = ['list', 'diff', 'evidence', 'report', 'dialog', 'help'];
    for (const ctx of contexts) {
      const owner = new Map<string, Command>();
      for (const b of BINDINGS.filter((x) => x.contexts.includes(ctx))) {
        for (const k of b.keys) {
          const prev = owner.get(k);
          expect(prev === undefined || prev === b.command, `${ctx}: ${k} bound to ${prev} and ${b.command}`).toBe(true);
          owner.set(k, b.command);
        }
      }
    }
  });

  it('maps digits to dialog options', () => {
    expect(chosenOption('choose1')).toBe(0);
    expect(chosenOption('choose4')).toBe(3);
    expect(chosenOption('apply')).toBeNull();
  });
});

describe('helpFor', () => {
  it('documents every command that works in a context, from the same table', () => {
    const diff = helpFor('diff');
    const text = diff.map((r) => `${r.keys} ${r.help}`).join('\n');
    expect(text).toContain('Space');
    expect(text).toContain('next hunk');
    expect(text).toContain('$EDITOR');
    expect(text).toContain('undo');
    const list = helpFor('list').map((r) => r.help);
    expect(list).toContain('open the proposal');
    expect(list).not.toContain('next hunk');
    expect(helpFor('dialog')[0].keys).toBe('1 2 3 4');
  });
});

function Probe({ context, log, active = true }: { context: KeyContext; log: string[]; active?: boolean }) {
  useKeymap(active ? { context, onCommand: (c) => log.push(c) } : null);
  return <Text>probe</Text>;
}

describe('useKeymap', () => {
  it('turns key presses into commands for its context', async () => {
    const log: string[] = [];
    const r = render(<Probe context="diff" log={log} />);
    await tick();
    for (const k of ['j', ']', ' ', 'q']) {
      r.stdin.write(k);
      await tick();
    }
    r.stdin.write('\u001B[B'); // arrow down
    await tick();
    expect(log).toEqual(['down', 'nextHunk', 'toggleEdit', 'back', 'down']);
    r.unmount();
  });

  it('ignores keys when there is no route', async () => {
    const log: string[] = [];
    const r = render(<Probe context="list" log={log} active={false} />);
    await tick();
    r.stdin.write('j');
    await tick();
    expect(log).toEqual([]);
    r.unmount();
  });
});

describe('dispatchKey in text mode', () => {
  it('sends printable keys to the text box and Enter/Esc/Backspace to their handlers', () => {
    const got: string[] = [];
    const route = {
      context: 'list' as const,
      onCommand: (c: string) => got.push(`cmd:${c}`),
      text: { onChar: (ch: string) => got.push(`char:${ch}`), onBackspace: () => got.push('bs'), onSubmit: () => got.push('submit'), onCancel: () => got.push('cancel') },
    };
    dispatchKey(route, 'q', {}); // q types a q, it does not quit
    dispatchKey(route, 'line1\nline2\u0007', {}); // a paste: one line, no control characters
    dispatchKey(route, '', { backspace: true });
    dispatchKey(route, '\r', { return: true });
    dispatchKey(route, '', { escape: true });
    dispatchKey(route, '', { upArrow: true });
    dispatchKey(route, 'c', { ctrl: true });
    expect(got).toEqual(['char:q', 'char:line1 line2', 'bs', 'submit', 'cancel', 'cmd:quit']);
  });
});
