/** Transcript text shown in a terminal cannot act on it. */
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../src/core/terminal-text.js';

describe('terminalSafe', () => {
  it('removes OSC 52 clipboard writes, clear-screen, colours and hyperlinks; keeps the text', () => {
    const osc52 = 'before\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007after';
    expect(terminalSafe(osc52)).toBe('beforeafter');
    expect(terminalSafe('x\u001b[2J\u001b[Hy')).toBe('xy');
    expect(terminalSafe('\u001b[31mred\u001b[0m')).toBe('red');
    expect(terminalSafe('\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\')).toBe('click');
    expect(terminalSafe('bell\u0007 and \u009b2J c1')).toBe('bell\ufffd and  c1');
    expect(terminalSafe('tabs\tand\nnewlines stay, ünïcode too')).toBe('tabs\tand\nnewlines stay, ünïcode too');
  });
});
