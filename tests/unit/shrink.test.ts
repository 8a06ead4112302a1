/** Cutting long JSON strings before parsing keeps every key, flag and short value exactly. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shrinkLongStrings, shrinkLongStringsUtf8 } from '../../src/harvest/shrink.js';

// strings rich in characters that need escaping, so cuts land next to escapes
const nasty = fc.string({ unit: fc.constantFrom('a', 'b', '"', '\\', '\n', '\t', 'é', '😀', '\u0001', '/', ' '), minLength: 0, maxLength: 400 });

describe('shrinkLongStrings', () => {
  it('always yields valid JSON with the same structure and short values', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ maxLength: 8 }), nasty), { maxLength: 6 }), fc.integer({ min: 10, max: 120 }), (pairs, threshold) => {
        const obj = { id: 'x', flag: true, n: 3, items: pairs.map(([k, v]) => ({ k, v, is_error: v.length % 2 === 0 })) };
        const line = JSON.stringify(obj);
        const shrunk = shrinkLongStrings(line, threshold, Math.floor(threshold / 2), 5);
        const back = JSON.parse(shrunk) as typeof obj;
        expect(back.id).toBe('x');
        expect(back.flag).toBe(true);
        expect(back.items.map((i) => i.is_error)).toEqual(obj.items.map((i) => i.is_error));
        back.items.forEach((it, i) => {
          const orig = obj.items[i];
          if (JSON.stringify(orig.k).length - 2 <= threshold) expect(it.k).toBe(orig.k);
          if (JSON.stringify(orig.v).length - 2 <= threshold) expect(it.v).toBe(orig.v);
          else expect(it.v).toContain('[…]');
        });
      }),
      { numRuns: 400 },
    );
  });

  it('leaves short lines untouched and keeps head and tail of long strings', () => {
    expect(shrinkLongStrings('{"a":"b"}', 100, 10, 5)).toBe('{"a":"b"}');
    const long = JSON.stringify({ content: `HEAD${'x'.repeat(5000)}<exited with exit code 1>`, id: 'toolu_1' });
    const out = JSON.parse(shrinkLongStrings(long, 100, 20, 30)) as { content: string; id: string };
    expect(out.id).toBe('toolu_1');
    expect(out.content.startsWith('HEAD')).toBe(true);
    expect(out.content.endsWith('<exited with exit code 1>')).toBe(true);
    expect(out.content.length).toBeLessThan(80);
  });

  it('on raw UTF-8 bytes: valid JSON, same structure, never a split character', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ maxLength: 8 }), nasty), { maxLength: 6 }), fc.integer({ min: 10, max: 120 }), (pairs, threshold) => {
        const obj = { id: 'x', flag: true, items: pairs.map(([k, v]) => ({ k, v, is_error: v.length % 2 === 0 })) };
        const line = JSON.stringify(obj);
        // surrounded by other bytes, as in a read buffer
        const buf = Buffer.concat([Buffer.from('junk\n'), Buffer.from(line), Buffer.from('\nmore')]);
        const start = 5;
        const view = buf.toString('latin1', start, start + Buffer.byteLength(line));
        const shrunk = shrinkLongStringsUtf8(buf, start, view, threshold, Math.floor(threshold / 2), 5);
        expect(shrunk).not.toContain('\uFFFD'); // no replacement character: no UTF-8 sequence was cut
        const back = JSON.parse(shrunk) as typeof obj;
        expect(back.id).toBe('x');
        expect(back.items.map((i) => i.is_error)).toEqual(obj.items.map((i) => i.is_error));
        back.items.forEach((it, i) => {
          const orig = obj.items[i];
          if (Buffer.byteLength(JSON.stringify(orig.v)) - 2 <= threshold) expect(it.v).toBe(orig.v);
          else expect(it.v).toContain('[…]');
        });
        // ASCII-only lines: exactly the string version
        if (/^[\x00-\x7f]*$/.test(line)) expect(shrunk).toBe(shrinkLongStrings(line, threshold, Math.floor(threshold / 2), 5));
      }),
      { numRuns: 400 },
    );
  });
});
