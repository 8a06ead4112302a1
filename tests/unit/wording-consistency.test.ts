/**
 * Issue 41's rule quality, defects seen in the outcome world's staged skills (seeds 1-30): a rule
 * written beside its own negation (seed 12: "Do not group them in a `describe` block named after
 * the function." under "## Rules for every job"), paraphrase duplicates the lint let through, lines
 * that are no rule, and an example sampled from a check's regex instead of a real one.
 */
import { describe, expect, it } from 'vitest';
import { fixWording, fragmentIn, lintWording, negates, sameRule } from '../../src/skilldoc/wording-lint.js';
import { contradictedRule, dropContradictions } from '../../src/trainer/optimizer/consistency.js';
import { parseFeedbackLine, realExample } from '../../src/llm/sim/feedback.js';
import type { ProposedEdit } from '../../src/trainer/optimizer/reflect.js';

const SEED_12 = `## When writing unit tests

- Use \`it.each\` for the input variants.
- Group them in a \`describe\` block named after the function.

## Rules for every job

- Do not group them in a \`describe\` block named after the function.
`;

describe('a rule and its opposite', () => {
  it('reads a negation or a permission of the same words as the opposite, and a prohibition with its alternative as no such thing', () => {
    expect(negates('Group them in a `describe` block named after the function.', 'Do not group them in a `describe` block named after the function.')).not.toBeNull();
    expect(negates('Never put WIP in a commit message.', 'It is fine to put WIP in a commit message.')).not.toBeNull();
    // "never X; use Y instead" beside "use Y": the prohibition names another thing
    expect(negates('Never put `jest.fn` in unit tests; use `vi.fn` instead.', 'Remember to apply `vi.fn` in `tests/*.test.ts`, e.g. `const spy = vi.fn();`.')).toBeNull();
    expect(negates('Run the tests with `pnpm vitest run`; `npm test` fails here.', 'Do not run the linter without `--cache`.')).toBeNull();
    expect(negates('Keep it under 500 characters.', 'Do not exceed 500 characters.')).toBeNull();
  });

  it('lints the seed-12 skill and the fix drops the negation, never the user\'s own rule', () => {
    const r = lintWording(SEED_12);
    expect(r.issues.map((i) => i.kind)).toEqual(['contradiction']);
    const user = '- Group them in a `describe` block named after the function.';
    const fixed = fixWording(SEED_12, { keep: new Set([user]) });
    expect(fixed.content).toContain(user);
    expect(fixed.content).not.toContain('Do not group');
    expect(fixed.changes.map((c) => c.kind)).toEqual(['contradiction']);
    // with nothing marked as the user's, the line that only turns the other around goes
    expect(fixWording(SEED_12).content).not.toContain('Do not group');
    expect(fixWording(SEED_12).lint.ok).toBe(true);
  });

  it('drops an optimizer edit that writes the opposite beside a rule, and keeps one that replaces it', () => {
    const harmful: ProposedEdit = { edit: { op: 'add', content: '- Do not group them in a `describe` block named after the function.', rationale: 'r', evidence: [] }, source: 'failure', support: 8, level: 0 };
    const helpful: ProposedEdit = { edit: { op: 'add', anchor: '## When writing unit tests', content: '- Run the tests with `pnpm vitest run`; `npm test` fails here.', rationale: 'r', evidence: [] }, source: 'failure', support: 8, level: 0 };
    const changedMind: ProposedEdit = { edit: { op: 'replace', anchor: '- Group them in a `describe` block named after the function.', content: '- Do not group them in a `describe` block named after the function.', rationale: 'r', evidence: [] }, source: 'failure', support: 1, level: 0 };
    const { kept, contradicting } = dropContradictions(SEED_12.replace(/## Rules for every job[\s\S]*$/, ''), [harmful, helpful, changedMind]);
    expect(kept).toEqual([helpful, changedMind]);
    expect(contradicting).toHaveLength(1);
    expect(contradicting[0].why).toContain('Group them in a `describe` block');
    expect(contradictedRule(SEED_12, helpful.edit)).toBeNull();
  });

  it('takes only the bad line out of a bundle of related rules', () => {
    const bundle: ProposedEdit = { edit: { op: 'add', anchor: '## When writing a commit message', content: '- End with a `Refs: #<number>` trailer line.\n- e.g. `Refs: #254`.\n- Run the linter with `npx eslint --cache .`; `npm run lint` fails here.', rationale: 'r', evidence: [] }, source: 'failure', support: 3, level: 0 };
    const { kept, contradicting } = dropContradictions('## When writing a commit message\n\n- Never put WIP in a commit message.\n', [bundle]);
    expect(kept.map((p) => p.edit.content)).toEqual(['- End with a `Refs: #<number>` trailer line.\n- Run the linter with `npx eslint --cache .`; `npm run lint` fails here.']);
    expect(contradicting[0].why).toContain('an example with no rule');
  });
});

describe('each rule once', () => {
  it('finds the paraphrase duplicates the staged skills held', () => {
    // a keyword written as a literal is a value, not a word: these two are read differently (kept, both)
    expect(sameRule('Wrap the cases in a describe block named after the function.', 'Group them in a `describe` block named after the function.')).toBeNull();
    expect(sameRule('Apply no emoji in `CHANGELOG.md`.', 'Never put emoji such as `🎉` in changelog entries.')).not.toBeNull();
    expect(sameRule('End with a `Refs: #<number>` trailer line (the PR number of the change).', 'Be sure to end the commit message with a `Refs:` footer line, e.g. `Refs: #143`.')).toContain('end');
    // a bound is not a duplicate of the prohibition beside it, nor two spellings of one heading of each other
    expect(sameRule('Keep it no more than 500 characters.', 'Never put WIP in a commit message.')).toBeNull();
    expect(sameRule('Put new entries under a `## Unreleased` heading.', 'Put new entries under a `## [Unreleased]` heading.')).toBeNull();
  });

  it('keeps the copy that states the slot in full', () => {
    const skill = '## When writing a commit message\n\n- Be sure to end the commit message with a `Refs:` footer line, e.g. `Refs: #143`.\n- End with a `Refs: #<number>` trailer line (the PR number of the change).\n';
    const fixed = fixWording(skill);
    expect(fixed.content).toContain('`Refs: #<number>`');
    expect(fixed.content).not.toContain('footer');
  });
});

describe('a line that is no rule', () => {
  it('names an example alone and a sentence cut short, and passes real rules', () => {
    expect(fragmentIn('- e.g. `Refs: #254`.')).toContain('example');
    expect(fragmentIn('- `const spy = vi.fn();`.')).toContain('example');
    expect(fragmentIn('- Remember to execute the.')).toContain('cut short');
    expect(fragmentIn('- Use `it.each` for the input variants.')).toBeNull();
    expect(fragmentIn('- Keep PR descriptions under 500 characters.')).toBeNull();
    const fixed = fixWording('## When writing a commit message\n\n- e.g. `Refs: #254`.\n- Remember to execute the.\n- Never put WIP in a commit message.\n');
    expect(fixed.content).toBe('## When writing a commit message\n\n- Never put WIP in a commit message.\n');
  });
});

describe('an example is a real one', () => {
  it('takes a check pattern\'s example from what the user kept or said, never from the pattern', () => {
    expect(realExample('^## \\[Unreleased\\]', 'm', ['# Changelog\n\n## [Unreleased]\n\n### Fixed\n- x'])).toBe('## [Unreleased]');
    // the user's own words hold it mid-sentence
    expect(realExample('^## \\[Unreleased\\]', 'm', ['put it under ## [Unreleased] in a ### Fixed or ### Added section'])).toBe('## [Unreleased]');
    expect(realExample('^## \\[Unreleased\\]', 'm', ['nothing like it here'])).toBeNull();
    const line = 'Failed check "c1": Keep a Changelog: entries go under an [Unreleased] heading — the response must match the pattern /^##\\s+\\[unreleased\\]/im';
    expect(parseFeedbackLine(line, [])?.example).toBeNull();
    expect(parseFeedbackLine(line, ['## [Unreleased]\n- fixed a thing'])?.example).toBe('For example: `## [Unreleased]`.');
    // a kept commit's PR number is that commit's own: the example shows where a number goes
    expect(realExample('^Refs: #\\d+$', 'm', [], ['fix(cli): drop node 18\n\nRefs: #350'])).toBe('Refs: #<number>');
  });

  it('writes a literal the example states in full into the rule, once', async () => {
    const { withExample } = await import('../../src/llm/sim/reflect.js');
    expect(withExample('End the commit message with a `Refs:` footer line', '`Refs: #<number>`')).toBe('End the commit message with a `Refs: #<number>` footer line.');
    expect(withExample('Add a `## Risk` section', '`## Risk`')).toBe('Add a `## Risk` section.');
    expect(withExample('Start the subject with a type and scope', '`fix(cli): `')).toBe('Start the subject with a type and scope, e.g. `fix(cli): `.');
  });
});

describe('a rule as a person writes it', () => {
  it('states a need as the imperative, and a title line as the start it is', async () => {
    const { imperativeOf } = await import('../../src/skilldoc/wording-lint.js');
    expect(imperativeOf('release notes need a `## Highlights` section')).toBe('Add a `## Highlights` section to release notes');
    expect(imperativeOf('PR descriptions need a Testing section')).toBe('Add a Testing section to PR descriptions');
    expect(imperativeOf('the title line must be `# Release vX.Y.Z`')).toBe('Start with `# Release vX.Y.Z` as the title line');
    // a pronoun subject is no artifact to add to; a bound stays a bound
    expect(imperativeOf('it needs a trailer')).toBe('It needs a trailer');
    expect(imperativeOf('release notes must be at least 500 characters')).toBe('Make release notes at least 500 characters');
  });

  it('never replaces the user\'s line by a rule that says less (the demo\'s `### Fixed`/`### Added` part)', async () => {
    const { saysMoreThan } = await import('../../src/llm/sim/reflect.js');
    const user = '- Use Keep a Changelog format: put it under ## [Unreleased] in a ### Fixed or ### Added section.';
    expect(saysMoreThan(user, '- Be sure to keep a Changelog: entries go under an [Unreleased] header.')).toBe(true);
    expect(saysMoreThan('- Entries go under an [Unreleased] header.', '- Put new entries under an `## [Unreleased]` heading.')).toBe(false);
  });
});

describe('a changed mind', () => {
  it('reads a check that quotes the value the user has since changed as stale, by the dates beside it', async () => {
    const { supersededIn } = await import('../../src/llm/sim/reflect.js');
    const rollout = (corrections: Array<[string, number]>, kept: Array<[string, number]>) =>
      ({ taskId: 't', intent: 'add a changelog entry', response: '', score: 0, passed: false, feedback: '', corrections: corrections.map(([text, at]) => ({ text, at, session: null })), kept: kept.map(([k, at]) => ({ kind: 'file' as const, file: 'CHANGELOG.md', agent: '', kept: k, commit: 'c', at })) });
    const stale = 'New entries go under a `## Unreleased` heading at the top.';
    // said first, then changed: the old spelling is stale
    expect(supersededIn(stale, [rollout([['new entries go under a `## Unreleased` heading at the top', 1], ['use `## [Unreleased]` with the brackets from now on', 2]], [])])).toBe(true);
    // the kept versions say it too: the newest commit keeps the brackets
    expect(supersededIn(stale, [rollout([], [['# Changelog\n\n## Unreleased\n- a', 1], ['# Changelog\n\n## [Unreleased]\n- b', 3]])])).toBe(true);
    // the newest is the old spelling (a mind changed back), or nothing else is said: current
    expect(supersededIn(stale, [rollout([['use `## [Unreleased]` with the brackets', 1], ['put it under `## Unreleased`', 2]], [])])).toBe(false);
    expect(supersededIn(stale, [rollout([], [])])).toBe(false);
  });
});

describe('a literal said once, in full', () => {
  it('folds an example that states the rule\'s literal in full into the rule, with its number as a placeholder', async () => {
    const { foldExample } = await import('../../src/llm/sim/reflect.js');
    expect(foldExample('End the commit message with a `Refs:` footer line, e.g. `Refs: #350`.')).toBe('End the commit message with a `Refs: #<number>` footer line.');
    // an example of another value, or of the same literal, stays as it is
    expect(foldExample('Start the subject with a type and scope, e.g. `chore(sync): `, then a lower-case summary.')).toBe('Start the subject with a type and scope, e.g. `chore(sync): `, then a lower-case summary.');
    expect(foldExample('Put the PR reference after the item like `(#123)`.')).toBe('Put the PR reference after the item like `(#123)`.');
  });
});

describe('the user\'s own rule', () => {
  it('is never deleted with nothing in its place; a replacement is a change of mind and stays', async () => {
    const { draftedRules } = await import('../../src/trainer/optimizer/consistency.js');
    const draft = [{ op: 'add' as const, content: '## When writing release notes\n\n- Start the notes with a `# Release vX.Y.Z` title line.\n', rationale: 'r', evidence: [] }];
    const skill = `${draft[0].content}- Make release notes at least 1000 characters.\n`;
    const del: ProposedEdit = { edit: { op: 'delete', anchor: '- Start the notes with a `# Release vX.Y.Z` title line.', content: '', rationale: 'this rule looks redundant', evidence: [] }, source: 'failure', support: 1, level: 0 };
    const other: ProposedEdit = { edit: { op: 'delete', anchor: '- Make release notes at least 1000 characters.', content: '', rationale: 'r', evidence: [] }, source: 'failure', support: 1, level: 0 };
    const rewrite: ProposedEdit = { edit: { op: 'replace', anchor: '- Start the notes with a `# Release vX.Y.Z` title line.', content: '- Start with a `# Release vX.Y.Z` title line, e.g. `# Release v1.4.0`.', rationale: 'r', evidence: [] }, source: 'failure', support: 1, level: 0 };
    const { kept, contradicting } = dropContradictions(skill, [del, other, rewrite], draftedRules(draft));
    expect(kept).toEqual([other, rewrite]);
    expect(contradicting.map((c) => c.why)).toEqual([expect.stringContaining('your own rule')]);
  });

  it('reads an opener with no verb after it as no rule', () => {
    expect(fragmentIn('- Make sure to the title line must be `# Release vX.Y.Z`.')).toContain('opener');
    expect(fragmentIn('- Make sure to end the commit message with a `Refs: #<number>` trailer.')).toBeNull();
  });
});
