import { describe, expect, it } from 'vitest';
import { keyOf, normalizePrompt, stripEnvelopes, stripGreetings } from '../../src/mine/normalize.js';
import { contentWords, featuresOf, stem } from '../../src/mine/features.js';

describe('intent normalization', () => {
  it('strips IDE and agent envelope blocks but keeps a wrapped user request', () => {
    const claude = '<system-reminder>secret internal stuff</system-reminder>\n<ide_selection>const x = 1</ide_selection>Write a changelog entry';
    expect(normalizePrompt(claude).clean).toBe('Write a changelog entry');
    const codex = '<environment_context>\n  <cwd>/home/dana/src/app</cwd>\n</environment_context>\nfix the lint errors';
    expect(normalizePrompt(codex).clean).toBe('fix the lint errors');
    const vscode = '<context>The current date is today.</context><editorContext>file a.ts</editorContext><userRequest>add tests for parseAmount</userRequest>';
    expect(normalizePrompt(vscode).clean).toBe('add tests for parseAmount');
    // a truncated envelope (no closing tag) is dropped to the end, not leaked into the ask
    expect(stripEnvelopes('bump zod <system-reminder>half written').trim()).toBe('bump zod');
  });

  it('moves code blocks out of the ask and keeps them as context', () => {
    const n = normalizePrompt('explain this stack trace:\n```\nTypeError: x is undefined\n    at foo (a.ts:1:2)\n```\nthanks!');
    expect(n.clean).toBe('explain this stack trace:');
    expect(n.codeBlocks).toHaveLength(1);
    expect(n.codeBlocks[0]).toContain('TypeError');
    expect(n.key).not.toContain('typeerror');
  });

  it('strips greetings and politeness', () => {
    expect(stripGreetings('Hi Claude, please write the release notes, thanks!')).toBe('write the release notes');
    expect(stripGreetings('hey there! ok so bump zod')).toBe('bump zod');
  });

  it('removes paths, numbers, ids, urls, identifiers from the similarity key', () => {
    const k = keyOf(
      'Fix parseAmount in src/lib/parse.ts (see https://x.io/a/1) for PR #412, commit 3fa9c1b2e, ticket ABC-123, v2.3.1, id 123e4567-e89b-12d3-a456-426614174000, col tenant_id',
    );
    for (const gone of ['src', 'parse.ts', 'https', '412', '3fa9c1b2e', 'abc-123', '2.3.1', '123e4567', 'parseamount', 'tenant_id']) expect(k).not.toContain(gone);
    expect(k).toContain('fix');
    expect(k).toContain('pr');
    // a bare file name keeps its stem: it often names the thing asked about
    expect(keyOf('update CHANGELOG.md')).toBe('update changelog');
    expect(keyOf('use it.each please')).toContain('it.each');
  });

  it('makes paraphrases of the same ask share their words', () => {
    const a = new Set(contentWords(keyOf('bump zod to the latest version')));
    const b = new Set(contentWords(keyOf('Upgrade the zod dependency')));
    expect(a.has('upgrade') && b.has('upgrade')).toBe(true); // bump → upgrade
    expect(contentWords(keyOf('fix the tsc errors'))).toEqual(contentWords(keyOf('fix the TypeScript errors')));
    expect(contentWords(keyOf('write the pull request description'))).toEqual(contentWords(keyOf('write the PR description')));
    expect(stem('tests')).toBe(stem('test'));
    expect(stem('entries')).toBe('entry');
  });

  it('features are words plus weighted character grams', () => {
    const f = featuresOf('changelog entry for the rounding fix');
    // the job's artefact outweighs the object it applies to
    expect(f.get('@changelog')).toBeGreaterThan(f.get('round')!);
    expect([...f.keys()].some((k) => typeof k === 'number')).toBe(true);
    expect(featuresOf('explain the rounding').get('round')).toBe(1); // no artefact: the words are the ask
    expect(featuresOf('please do it').size).toBe(0);
  });
});
