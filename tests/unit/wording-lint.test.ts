/**
 * The wording lint (issue 41): no duplicate rule, no complaint phrasing, within the token budget.
 * The texts are the shapes a real night staged (the issue's quoted skill, the demo's duplicated
 * changelog rule), and the fix is shown to turn each into a passing one.
 */
import { describe, expect, it } from 'vitest';
import { complaintIn, DEFAULT_SKILL_TOKEN_BUDGET, estimateTokens, fixWording, lintWording, ruleOfComplaint, sameRule } from '../../src/skilldoc/wording-lint.js';

const ISSUE_SKILL = `## When writing a commit message
- you forgot the trailer: end with Signed-off-by: Name <name@example.com>
- end it with the Signed-off-by: Name <name@example.com> line
- keep commit messages at most 500 characters
- way too long - keep it at most 500 characters
## When writing release notes
- too thin - it should be at least 600 characters
`;

const DEMO_SKILL = `---
name: skillopt-sleep-learned
description: Use when writing a CHANGELOG entry.
---

## When writing a CHANGELOG entry

- Use Keep a Changelog format: place it under ## [Unreleased] in a ### Fixed or ### Added section.

## When writing unit tests

- use it.each for the table cases instead of repeating test()

## Rules for every job

- For changelog entries: Remember to keep a Changelog: entries go under an [Unreleased] header. For example: \`##    [unreleased]\`.
`;

describe('wording lint', () => {
  it('finds every complaint and every duplicate of the skill the issue quotes', () => {
    const r = lintWording(ISSUE_SKILL);
    expect(r.ok).toBe(false);
    expect(r.issues.filter((i) => i.kind === 'complaint').map((i) => i.line)).toEqual([
      '- you forgot the trailer: end with Signed-off-by: Name <name@example.com>',
      '- way too long - keep it at most 500 characters',
      '- too thin - it should be at least 600 characters',
    ]);
    expect(r.issues.filter((i) => i.kind === 'duplicate').map((i) => i.line)).toEqual([
      '- end it with the Signed-off-by: Name <name@example.com> line',
      '- way too long - keep it at most 500 characters',
    ]);
  });

  it('fixes it into a skill that passes: each rule once, imperative, no complaint', () => {
    const f = fixWording(ISSUE_SKILL);
    expect(f.lint.ok).toBe(true);
    expect(f.content).toBe(`## When writing a commit message
- End with Signed-off-by: Name <name@example.com>.
- keep commit messages at most 500 characters
## When writing release notes
- Make it at least 600 characters.
`);
    expect(f.changes.map((c) => c.kind).sort()).toEqual(['complaint', 'complaint', 'complaint', 'duplicate', 'duplicate']);
  });

  it('takes the changelog rule repeated under "Rules for every job" out, and keeps the job\'s own', () => {
    const r = lintWording(DEMO_SKILL);
    expect(r.issues.map((i) => [i.kind, i.section])).toEqual([['duplicate', 'Rules for every job']]);
    const f = fixWording(DEMO_SKILL);
    expect(f.lint.ok).toBe(true);
    expect(f.content).toContain('- Use Keep a Changelog format: place it under ## [Unreleased]');
    expect(f.content).not.toContain('Remember to keep a Changelog');
  });

  it('does not call different rules on one subject duplicates, nor a contradiction a copy', () => {
    expect(sameRule('- Start with `fix(<scope>):`', '- Never start with `Fix:`')).toBeNull();
    expect(sameRule('- Keep it at most 500 characters.', '- Keep it at most 300 characters.')).toBeNull();
    expect(sameRule('- Put entries under `## [Unreleased]`.', '- Use a `### Fixed` subheading for fixes.')).toBeNull();
    expect(lintWording('## When writing a commit message\n\n- Start with `fix(<scope>):`.\n- End with a `Refs: #<number>` trailer.\n').ok).toBe(true);
  });

  it('reads plain rules as rules, complaints as complaints', () => {
    for (const t of ['you forgot the trailer', 'No, put it under Unreleased', 'I said no emojis', 'you used jest again', 'way too long - trim it', 'you didn\'t run the linter'])
      expect(complaintIn(t), t).not.toBeNull();
    for (const t of ['End every commit message with a `Refs: #<number>` trailer.', 'If you changed the public API, say so in a `### Changed` subheading.', 'Keep the body under 72 characters per line.'])
      expect(complaintIn(t), t).toBeNull();
    expect(ruleOfComplaint('you used jest again')).toBeNull();
    expect(ruleOfComplaint('No, apply Keep a Changelog format')).toBe('Apply Keep a Changelog format.');
  });

  it('holds a skill to its token budget, dropping the last rules the user does not hold', () => {
    const rules = Array.from({ length: 80 }, (_, i) => `- Rule number ${i} says to mention the subsystem \`name${i}\` in the summary line of the reply.`);
    const text = `## When writing a commit message\n\n- The user's own rule stays.\n${rules.join('\n')}\n`;
    expect(estimateTokens(text)).toBeGreaterThan(DEFAULT_SKILL_TOKEN_BUDGET);
    expect(lintWording(text).issues.some((i) => i.kind === 'over-budget')).toBe(true);
    const f = fixWording(text, { tokenBudget: 400, keep: new Set(["- The user's own rule stays."]) });
    expect(f.lint.ok).toBe(true);
    expect(estimateTokens(f.content)).toBeLessThanOrEqual(400);
    expect(f.content).toContain("- The user's own rule stays.");
    expect(f.content).toContain('- Rule number 0 says');
    expect(f.changes.every((c) => c.kind === 'over-budget')).toBe(true);
  });
});
