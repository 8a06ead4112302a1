import { describe, expect, it } from 'vitest';
import { matchConcepts, VOCABULARY } from '../../src/mine/vocabulary.js';
import { keyOf } from '../../src/mine/normalize.js';
import { classifyReaction } from '../../src/mine/outcome.js';

const job = (ask: string) => matchConcepts(keyOf(ask)).artefacts[0] ?? null;

describe('software-work vocabulary', () => {
  it('a tool named next to a version change is the package upgraded, not the tool\'s job', () => {
    for (const ask of ['update typescript to its newest release', 'vitest needs a version bump', 'migrate to eslint 9.1.0', 'can we get on the latest prettier', 'upgrade vitest and fix what breaks'])
      expect(job(ask), ask).toBe('dependency');
    // the tool's own setup or output stays the tool's job
    expect(job('update the eslint config')).toBe('lint');
    expect(job('fix the typescript errors in src/a.ts')).toBe('types');
    expect(job('write vitest cases for parseAmount')).toBe('test');
    // the package stays in the object, so two upgrades of different packages still differ a little
    expect(matchConcepts(keyOf('update typescript to its newest release')).rest).toContain('typescript');
  });

  it('"bump" alone is an upgrade; "bump to 2.4.0" and "bump the version" cut a release', () => {
    expect(job('bump zod please')).toBe('dependency');
    expect(job('make a release: bump to 2.4.4')).toBe('release');
    expect(job('bump the version to 1.2.0 and tag it')).toBe('release');
  });

  it('words that name an artefact together, whatever sits between', () => {
    expect(job('put together the notes for the 1.6.7 release')).toBe('release-notes');
    expect(job('write the release announcement for v2.7.5')).toBe('release-notes');
    expect(job('cut a patch release')).toBe('release');
  });

  it('a lint rule id names a lint failure', () => {
    expect(job('there are no-unused-vars errors in src/a.ts')).toBe('lint');
    expect(job('prefer-const warnings everywhere in the parser')).toBe('lint');
  });

  it('a part of a job\'s work is not a new instance of it', () => {
    const m = matchConcepts(keyOf('also regenerate the lockfile'));
    expect(m.artefacts[0]).toBe('dependency');
    expect(m.products).toEqual([]);
    expect(matchConcepts(keyOf('then add it to the changelog')).products).toEqual(['changelog']);
  });

  it('every group says why it is one group', () => {
    for (const g of VOCABULARY) expect(g.reason.length, g.concept).toBeGreaterThan(10);
  });
});

describe('reactions and follow-ups', () => {
  it('one thing set against another is a correction of the answer', () => {
    expect(classifyReaction('the logs say the cache step failed, not the tests', 'the CI check on #689 is failing, diagnose it')).toBe('correction');
    expect(classifyReaction('past tense, not present', 'write the changelog entry for the leak fix')).toBe('correction');
  });

  it('a short statement right after the answer that asks for nothing new reacts to it; a new request does not', () => {
    expect(classifyReaction('pin the exact version', 'migrate to axios 2.3.6')).toBe('correction');
    expect(classifyReaction('highlights go at the top', 'write the notes for the v1.2.7 release')).toBe('correction');
    // a new request (a request verb, or a job named) is an ask, and so is a long problem report
    expect(classifyReaction('brainstorm caching strategies for the search page', 'write release notes for v2.4.0')).toBeNull();
    expect(classifyReaction('bump zod please', 'write release notes for v2.4.0')).toBeNull();
    expect(classifyReaction('the login page takes eleven seconds to render on older android phones over a slow connection', 'write release notes for v2.4.0')).toBeNull();
    expect(classifyReaction('continue', 'write release notes for v2.4.0')).toBeNull();
  });

  it('another instance of a job asked as a follow-up is a new ask, even of the same job', () => {
    expect(classifyReaction('ok now the commit message', 'summarize the staged diff as a git commit message')).toBeNull();
    expect(classifyReaction('then add it to the changelog', 'write a changelog item about the billing service')).toBeNull();
    expect(classifyReaction('can you also bump zod', 'bump react to the latest version')).toBeNull();
    // a part of the same work refines the answer
    expect(classifyReaction('also update the lockfile', 'upgrade react and fix what breaks')).toBe('refinement');
  });
});
