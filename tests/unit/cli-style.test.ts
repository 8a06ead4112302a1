/** The plain CLI's colour decision (src/cli/style.ts): the terminal, NO_COLOR and FORCE_COLOR decide; CI does not. */
import { describe, expect, it } from 'vitest';
import { colourEnabled, paintDiffLine, painter, wrappedRows } from '../../src/cli/style.js';

const tty = { isTTY: true, hasColors: () => true };
const mono = { isTTY: true, hasColors: () => false };
const pipe = { isTTY: false };

describe('colourEnabled', () => {
  it('follows the terminal, NO_COLOR and FORCE_COLOR, never CI', () => {
    expect(colourEnabled(tty, {})).toBe(true);
    expect(colourEnabled(tty, { CI: 'true' })).toBe(true);
    expect(colourEnabled(mono, {})).toBe(false);
    expect(colourEnabled(pipe, {})).toBe(false);
    expect(colourEnabled(tty, { NO_COLOR: '1' })).toBe(false);
    expect(colourEnabled(tty, { NO_COLOR: '' })).toBe(true); // an empty NO_COLOR is not set (no-color.org)
    expect(colourEnabled(tty, { TERM: 'dumb' })).toBe(false);
    expect(colourEnabled(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(colourEnabled(tty, { FORCE_COLOR: '0' })).toBe(false);
    expect(colourEnabled(tty, { FORCE_COLOR: 'false', NO_COLOR: '' })).toBe(false);
    expect(colourEnabled(pipe, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true); // FORCE_COLOR wins, as chalk documents
  });

  it('paints a diff only when on', () => {
    expect(paintDiffLine('+added', painter(true))).toBe('\u001b[32m+added\u001b[39m');
    expect(paintDiffLine('@@ -1 +1 @@', painter(true))).toBe('\u001b[36m@@ -1 +1 @@\u001b[39m');
    expect(paintDiffLine('+added', painter(false))).toBe('+added');
  });

  it('wraps under the label on a terminal and prints whole lines in a pipe', () => {
    expect(wrappedRows('why: ', 'alpha beta gamma delta epsilon zeta eta theta iota kappa', 30)).toEqual(['why: alpha beta gamma delta', '     epsilon zeta eta theta', '     iota kappa']);
    expect(wrappedRows('why: ', 'one\ntwo', undefined)).toEqual(['why: one', '     two']);
  });
});
