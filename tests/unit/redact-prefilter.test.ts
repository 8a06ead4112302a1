/**
 * The pair-table prefilter of redaction (`hintsIn`) gives the same answer as the plain union of
 * the rules' hints, for strings generated from every hint (so a hint whose first two characters
 * the table misses fails here), for the secret corpus and for ordinary text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hintsIn, hintsInByRegex } from '../../src/core/redact.js';
import { PROVIDER_RULES } from '../../src/core/secret-rules.js';
import { CORPUS_LOOKALIKES, CORPUS_SECRETS } from '../fixtures/secret-corpus.js';

const KEY_VALUE_HINT = /(?:pass|pwd|secret|token|key|credential)[A-Za-z0-9_.-]*["']?[ \t]*[:=]/i;
const filler = fc.string({ unit: fc.constantFrom(...'ab xyzQ9_-=:/."\n'.split('')), maxLength: 12 });

describe('hintsIn', () => {
  it.each(PROVIDER_RULES.map((r) => [r.kind, r.hint] as const))('%s: finds every string its hint matches (%s)', (_kind, hint) => {
    const re = new RegExp(hint.replace(/\\b/g, '')); // (the generator has no \b: the reference regex still decides)
    fc.assert(
      fc.property(filler, fc.stringMatching(re), filler, (a, m, b) => {
        const text = a + m + b;
        expect(hintsIn(text)).toBe(hintsInByRegex(text));
      }),
      { numRuns: 300 },
    );
  });

  it('finds every string the key-name hint matches, in any case', () => {
    fc.assert(
      fc.property(filler, fc.stringMatching(new RegExp(KEY_VALUE_HINT.source)), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), filler, (a, m, upper, b) => {
        const text = a + [...m].map((ch, i) => (upper[i % upper.length] ? ch.toUpperCase() : ch)).join('') + b;
        expect(hintsIn(text)).toBe(hintsInByRegex(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('agrees on the corpus and on random text', () => {
    for (const [, text] of [...CORPUS_SECRETS.map(([n, t]) => [n, t] as const), ...CORPUS_LOOKALIKES]) expect(hintsIn(text)).toBe(hintsInByRegex(text));
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (t) => hintsIn(t) === hintsInByRegex(t)), { numRuns: 2000 });
    expect(hintsIn('')).toBe(0);
    expect(hintsIn('x')).toBe(0);
  });
});
