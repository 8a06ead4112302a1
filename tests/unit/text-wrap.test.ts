/**
 * Wrapping for the terminal (core/text-wrap.ts, tui wrapStyled): rows never exceed the width, and
 * nothing but the spaces at a break is lost — so a wrapped line shows all of its text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wrapText } from '../../src/core/text-wrap.js';
import { plainText, seg, wrapStyled } from '../../src/tui/components/Line.js';

const strip = (s: string) => s.replace(/ /g, '');

describe('wrapText', () => {
  it('keeps every non-space character, in order, and no row is wider than the width', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'é', '—', 'x'), maxLength: 300 }), fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 10 }), (text, width, indent) => {
        const rows = wrapText(text, width, indent);
        expect(strip(rows.join(''))).toBe(strip(text));
        rows.forEach((r, i) => expect(Array.from(r).length + (i > 0 ? Math.min(indent, width - 1) : 0)).toBeLessThanOrEqual(width));
      }),
    );
  });

  it('breaks at spaces, through a word only when it is longer than a row', () => {
    expect(wrapText('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrapText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapText('short', 80)).toEqual(['short']);
  });
});

describe('wrapStyled', () => {
  it('keeps each segment\'s style across rows and indents continuations under the text', () => {
    const line = [seg('    why: ', { dim: true }), seg('the user corrected the agent three times about the changelog format', { color: 'green' })];
    const rows = wrapStyled(line, 30);
    expect(rows.length).toBeGreaterThan(2);
    for (const r of rows) expect(plainText(r).length).toBeLessThanOrEqual(30);
    expect(rows.slice(1).every((r) => plainText(r).startsWith('    ') && r.some((s) => s.color === 'green'))).toBe(true);
    expect(strip(rows.map(plainText).join(''))).toBe(strip(plainText(line)));
  });
});
