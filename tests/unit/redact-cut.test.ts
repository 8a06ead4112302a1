/**
 * Redacting only the windows a cut keeps stores exactly what redacting the whole text and then
 * cutting it stores: property-tested on texts built from the secret corpus (secrets with their
 * key names, URLs, headers), look-alikes, words, blank lines and long unbroken runs, at the caps
 * the harvest uses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactForCut } from '../../adapters/kit/redact-cut.js';
import { cap, capEnds, TEXT_CAP } from '../../adapters/kit/session-builder.js';
import { redactSecrets } from '../../src/core/redact.js';
import { CORPUS_LOOKALIKES, CORPUS_SECRETS } from '../fixtures/secret-corpus.js';

const more = (n: number) => `\n[… ${n} more chars]`;
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('the', 'build', 'failed:', 'src/app.ts:12', 'ok', '->', '{"a":1}', 'PASS', 'npm', 'test', 'basic', 'password=', 'Secret') },
  { weight: 5, arbitrary: fc.constantFrom(' ', ' ', '\n', '\n\n', '   ', '\t', '\n  \n') },
  { weight: 2, arbitrary: fc.constantFrom(...CORPUS_SECRETS.map(([, text]) => text)) },
  { weight: 1, arbitrary: fc.constantFrom(...CORPUS_SECRETS.map(([, , secret]) => secret), 'Authorization: Bearer\n\n', 'password:', 'Bearer ') },
  { weight: 1, arbitrary: fc.constantFrom(...CORPUS_LOOKALIKES.map(([, text]) => text)) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('x', 'Ab3', '/'), fc.integer({ min: 20, max: 700 })).map(([c, n]) => c.repeat(n)) },
);
const text = fc.array(piece, { minLength: 10, maxLength: 160 }).map((a) => a.join(''));

/** Where two strings first differ, with some of each around it (for a readable failure). */
function firstDifference(got: string, want: string, t: string): string {
  let i = 0;
  while (i < got.length && got[i] === want[i]) i++;
  return `differs at ${i}: ${JSON.stringify(got.slice(Math.max(0, i - 40), i + 60))} vs ${JSON.stringify(want.slice(Math.max(0, i - 40), i + 60))} in ${JSON.stringify(t)}`;
}

describe('redactForCut', () => {
  for (const [name, max, ends] of [
    ['tool result', TEXT_CAP.toolResult, true],
    ['tool error', TEXT_CAP.toolError, true],
    ['tool call', TEXT_CAP.toolCall, false],
  ] as const) {
    it(`${name} (cap ${max}${ends ? ', head and tail' : ''}): the same stored text as redacting the whole`, () => {
      let windowed = 0;
      fc.assert(
        fc.property(text, (t) => {
          const w = redactForCut(t, max, ends, more);
          if (!w) return true;
          windowed++;
          const whole = redactSecrets(t).text;
          // (head only: the "more chars" count ignores what is redacted past the window)
          const got = ends ? w.cut : w.cut.slice(0, max);
          const want = ends ? capEnds(whole, max) : cap(whole, max).slice(0, max);
          expect(got, firstDifference(got, want, t)).toBe(want);
          // (glued to a neighbour piece a secret may be no secret by its rule: then the whole keeps it too)
          for (const [, , secret] of CORPUS_SECRETS) if (secret.length >= 8 && !whole.includes(secret)) expect(w.cut).not.toContain(secret);
          return true;
        }),
        { numRuns: 1500 },
      );
      expect(windowed).toBeGreaterThan(50); // the windows were used, not only the fallback
    });
  }

  it('a secret shrunk to its placeholder inside the kept tail pulls the window back to the context of what the tail then reaches', () => {
    // found by the property above: the kept tail's `SECRET_KEY=…` shrinks to a placeholder, so the
    // tail reaches the end of a token whose `Bearer` sits lines before the window first placed
    const t =
      'HEAD is now at 3f9c2a7e1b8d4f6a0c5e9b2d7f4a1c8e3b6d0f9a fix: retrydata:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==conn = psycopg2.connect(host="db", password="winter2026") Authorization: Bearer\n\n' +
      'x'.repeat(372) +
      '\n  \nsrc/app.ts:12SECRET_KEY=django-insecure-7q^x2!m9@p3#r8&v4basic thesrc/app.ts:12';
    const whole = capEnds(redactSecrets(t).text, TEXT_CAP.toolResult);
    expect(whole).toContain(':bearer-token]');
    const w = redactForCut(t, TEXT_CAP.toolResult, true, more);
    expect(w === null ? whole : w.cut).toBe(whole);
    expect(w?.cut ?? whole).not.toContain('xxxxxxxxxxxxxxxx');
  });

  it('falls back to the whole text where a window cannot be placed', () => {
    expect(redactForCut('x'.repeat(5000), 320, true, more)).toBeNull(); // no whitespace near the cut
    expect(redactForCut('short text', 320, true, more)).toBeNull();
    const key = '-----BEGIN EC PRIVATE KEY-----\n' + 'MHcCAQEEIBkYq3mP9qR2sT7vW4yZ8aBcDEf1Gh2Ij3Kl4Mn5Op6oAoGCCqGSM49\n'.repeat(30) + '-----END EC PRIVATE KEY-----';
    expect(redactForCut(key, 320, true, more)).toBeNull();
  });
});
