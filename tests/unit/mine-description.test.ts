import { describe, expect, it } from 'vitest';
import { MAX_DESCRIPTION_CHARS, familyPhrase, skillDescription } from '../../src/mine/skill-description.js';

describe('learned skill description', () => {
  it('names each job in general words, uncut', () => {
    const d = skillDescription('/home/dana/src/ledgerline', [
      { intents: ['Write a changelog entry for the rounding fix (#412)', 'add a CHANGELOG.md entry for PR #9'] },
      { intents: ['give me a commit message: fix the memory leak'] },
      { intents: ['draft the release notes for v2.4.0, user-facing'] },
    ]);
    expect(d).toBe('Use when writing a CHANGELOG entry, a commit message or release notes in ledgerline.');
    expect(d).not.toMatch(/…|412|rounding/);
  });

  it('one phrase per job; a review job name wins; an unknown job is its ask without the specifics', () => {
    expect(familyPhrase({ intents: ['add a unit test for parseAmount: negative numbers'], jobName: 'Writing property-based tests' })).toBe('writing property-based tests');
    expect(familyPhrase({ intents: ['sketch an architecture for src/core/queue.ts in v1.2.0'] })).toBe('asked to sketch an architecture');
    const d = skillDescription(null, [{ intents: ['write vitest cases for parseAmount'] }, { intents: ['we need tests for formatDate'] }]);
    expect(d).toBe('Use when writing unit tests in any of your projects.');
  });

  it('says a shared gerund once, jobs of one gerund together, most frequent jobs first', () => {
    const d = skillDescription('/home/dana/src/ledgerline', [
      { intents: ['fix the eslint errors in src/a.ts'] },
      { intents: ['write a changelog entry for PR #12'] },
      { intents: ['tsc fails on src/b.ts'] },
      { intents: ['write vitest cases for parseAmount'] },
    ]);
    expect(d).toBe('Use when fixing lint errors or TypeScript type errors, writing a CHANGELOG entry or unit tests in ledgerline.');
  });

  it('stays within the Agent Skills limit however many families there are', () => {
    const families = Array.from({ length: 200 }, (_, i) => ({ intents: [`explain how the zx${i} scheduler interacts with kafka`] }));
    const d = skillDescription('/p/x', families);
    expect(d.length).toBeLessThanOrEqual(MAX_DESCRIPTION_CHARS);
    expect(d.endsWith('in x.')).toBe(true);
    expect(d.split(' or ').length).toBe(2); // as many jobs as fit, joined as one sentence
    expect(d.split(', ').length).toBeGreaterThan(10);
  });
});
