/**
 * Redaction corpus: secrets in the shapes they take in real transcripts (shell output, .env files,
 * YAML, kubectl, connection strings, logs), and look-alikes that must survive untouched (ids and
 * hashes a session is full of). Every positive must lose its secret whole: no 12-char run of it may
 * remain in the redacted text, so a partial match does not count as found.
 */
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/core/redact.js';
import { CORPUS_LOOKALIKES, CORPUS_SECRETS } from '../fixtures/secret-corpus.js';

function survives(secret: string, text: string): boolean {
  if (secret.length <= 12) return text.includes(secret);
  for (let i = 0; i + 12 <= secret.length; i++) if (text.includes(secret.slice(i, i + 12))) return true;
  return false;
}

describe('redaction corpus', () => {
  for (const [name, text, secret] of CORPUS_SECRETS) {
    it(`removes ${name}`, () => {
      const r = redactSecrets(text);
      expect(survives(secret, r.text), r.text).toBe(false);
      expect(r.text).toContain('[REDACTED:');
    });
  }
  for (const [name, text] of CORPUS_LOOKALIKES) {
    it(`keeps ${name}`, () => {
      expect(redactSecrets(text).text).toBe(text);
    });
  }
  it('is idempotent on its own output', () => {
    for (const [, text] of CORPUS_SECRETS) {
      const once = redactSecrets(text).text;
      expect(redactSecrets(once).text).toBe(once);
    }
  });
});
