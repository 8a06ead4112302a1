/**
 * Corrections the end-to-end arm found mined as asks, and what reaches a family's judge: the
 * user's reaction right after an answer is a correction whatever its words, each correction is
 * its own rubric criterion, and stated limits, headings and openings become checks.
 */
import { describe, expect, it } from 'vitest';
import { askContext, classifyReaction } from '../../src/mine/outcome.js';
import { rubricFor, synthesizeJudge } from '../../src/mine/judge-synth.js';
import { evaluateCheck } from '../../src/core/checks.js';

const react = (said: string, ask: string) => classifyReaction(said, askContext(ask));

describe('reactions after an answer', () => {
  it.each([
    ['please no emojis, keep it plain', 'add a changelog entry for PR #125: fix the rounding of half cents'],
    ['start the notes with a `# Release vX.Y.Z` title line', 'draft the release notes for v1.8.1'],
    ['add a `## Testing` section saying how to verify it locally', 'write the PR description for #222: fix the memory leak'],
    ['state the risk level in a `## Risk` section', 'write the PR description for #222: fix the memory leak'],
    ['cover the variants with a table-driven `it.each`', 'add a unit test for parseAmount in src/amount.ts'],
    ['wrap the cases in a describe block named after the function', 'add a unit test for parseAmount in src/amount.ts'],
    // the artefact as the subject ("release notes need …") is a statement, even after "cutting a release"
    ['release notes need a `## Highlights` section', 'write up the changes for the 1.0.0 release'],
    ['release notes must be at least 600 characters, this is too short', 'time to release ledgerline v4.6.5, draft the notes'],
  ])('%s is a correction or refinement, not an ask', (said, ask) => {
    expect(['correction', 'refinement']).toContain(react(said, ask));
  });

  it.each([
    ['now write the commit message for it too', 'add a changelog entry for PR #125: fix the rounding of half cents'],
    ['also fix the null handling in src/cli/add.ts', 'write the PR description for #222: fix the memory leak'],
    ['write a spec for formatBytes', 'add a unit test for parseAmount in src/amount.ts'],
    // new code work on the very file the ask named is still a new ask
    ['also fix the null handling in src/slug.ts', 'I need vitest coverage for slugify in src/slug.ts'],
  ])('%s stays a new ask', (said, ask) => {
    expect(react(said, ask)).toBeNull();
  });
});

describe("what reaches a family's judge", () => {
  it('lists every correction as its own criterion in the user’s words (not the first five in one sentence)', () => {
    const corrections = Array.from({ length: 7 }, (_, i) => `rule number ${i + 1}`);
    const rubric = rubricFor('draft the release notes', corrections);
    for (const c of corrections) expect(rubric).toContain(`- The user said: "${c}"`);
  });

  it('stated limits, quoted headings and openings become checks with the user’s values', () => {
    const { judge } = synthesizeJudge({
      intent: 'x',
      prompts: ['x'],
      corrections: ['keep it under 300 characters', 'too thin - it should be at least 600 characters', 'put it under the `## [Unreleased]` heading', 'the title line must be `# Release vX.Y.Z`', 'it should start with a type like `fix:` or `feat:`'],
    });
    const byOp = (op: string) => judge.checks.filter((c) => c.op === op);
    expect(byOp('max_chars').map((c) => c.value)).toEqual([300]);
    expect(byOp('min_chars').map((c) => c.value)).toEqual([600]);
    expect(byOp('section_present').map((c) => c.value)).toContain('Unreleased');
    const run = (text: string) => byOp('regex').filter((c) => evaluateCheck(c, text, []).passed).length;
    // the placeholder matches the instance's own version; the alternatives are one pattern
    expect(judge.checks.some((c) => c.op === 'regex' && evaluateCheck(c, '# Release v2.4.1\n\nbody', []).passed)).toBe(true);
    expect(judge.checks.some((c) => c.op === 'regex' && evaluateCheck(c, 'feat: add x', []).passed)).toBe(true);
    expect(run('Release notes for 2.4.1')).toBe(0);
  });

  it('a forbidden heading is no section_present check', () => {
    const { judge } = synthesizeJudge({ intent: 'x', prompts: ['x'], corrections: ['never add a `## Notes` section'] });
    expect(judge.checks.some((c) => c.op === 'section_present' && c.value === 'Notes')).toBe(false);
  });
});
