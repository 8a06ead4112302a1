/** JSON extraction from model replies: linear in the reply, capped in size, tolerant of what models get wrong. */
import { describe, expect, it } from 'vitest';
import { extractJson, MAX_JSON_REPLY_CHARS } from '../../src/llm/json.js';

describe('extractJson', () => {
  it('finds JSON bare, fenced, after prose, and objects before arrays', () => {
    expect(extractJson('{"a":1}')).toEqual({ a: 1 });
    expect(extractJson('Sure:\n```json\n{"a":2}\n```')).toEqual({ a: 2 });
    expect(extractJson('Here are [2] edits: {"edits":[1,2]} done')).toEqual({ edits: [1, 2] });
    expect(extractJson('an unclosed [ bracket, then {"ok":true}')).toEqual({ ok: true });
  });

  it('repairs trailing commas and single quotes, never completes a reply cut off mid-object', () => {
    expect(extractJson("result: {'score': 0.5, 'notes': ['x',],}")).toEqual({ score: 0.5, notes: ['x'] });
    expect(() => extractJson('{"score": 0.5, "feedback": "good')).toThrow(/never closes/);
  });

  it('says why when there is no JSON', () => {
    expect(() => extractJson('')).toThrow(/empty/);
    expect(() => extractJson('no json here')).toThrow(/no JSON/);
    expect(() => extractJson('x'.repeat(MAX_JSON_REPLY_CHARS + 1))).toThrow(/too long/);
  });

  it('a 50 KB reply full of unclosed brackets takes milliseconds, not seconds', () => {
    const shapes = ['['.repeat(50_000), '{"a":['.repeat(8_000), 'see [1] and {x: [ '.repeat(2_800), '{"k": "[{[{"} ['.repeat(3_500)];
    for (const text of shapes) {
      const t0 = performance.now();
      try {
        extractJson(text);
      } catch {
        /* unusable is fine: it must only be fast */
      }
      const ms = performance.now() - t0;
      expect(ms, `${text.slice(0, 20)}… took ${ms.toFixed(0)} ms`).toBeLessThan(1500);
    }
  });
});
