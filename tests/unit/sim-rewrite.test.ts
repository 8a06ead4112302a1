/**
 * Issue 41 item 4 in the sim optimizer: where the target keeps failing, the optimizer rewrites what
 * the skill states instead of adding a line beside it. A stated clause that puts another value in
 * the slot a kept-outcome rule fills (and that value shows in the failing replies) leaves its line;
 * a rule for one job goes first in that job's section; a vague rule the attempts keep failing is
 * rewritten with its example and moved to the top; each rule is stated once.
 */
import { describe, expect, it } from 'vitest';
import { perform } from '../../src/llm/sim/target.js';
import { commandRule, reflect, withoutProvenance, DEFAULT_HARM } from '../../src/llm/sim/reflect.js';
import { clausesOf, findRivals, sectionRewrite, showsIn } from '../../src/llm/sim/rewrite.js';
import { induceFromOutcomes } from '../../src/llm/sim/kept-diff.js';
import { applyEdits } from '../../src/skilldoc/edits.js';
import { Rng } from '../../src/llm/sim/rng.js';
import type { ReflectPayload, RolloutDigest } from '../../src/core/protocol.js';
import type { Edit } from '../../src/core/records.js';

const NO_HARM = { ...DEFAULT_HARM, harmfulEditRate: 0, irrelevantEditRate: 0, bloatRate: 0, catastrophicRate: 0, wrongLiteralRate: 0, scopeDropRate: 0, hardcodeRate: 0 };
const payload = (skill: string, rollouts: RolloutDigest[]): ReflectPayload => ({ skill, mode: 'failures', rollouts, rejectedEdits: [], metaSkill: '', maxEdits: 6 });
const apply = (skill: string, edits: Edit[]): string => applyEdits(skill, edits, { scope: 'document' }).content;

// a changelog the user keeps under `### Changed`, while the agent (following "the Keep a Changelog way") writes `### Added`
const changelogKept = (n: number) => ({ kind: 'file' as const, file: 'CHANGELOG.md', agent: `# Changelog\n\n## [Unreleased]\n\n- Change ${n} (#${n})`, kept: `# Changelog\n\n## [Unreleased]\n\n### Changed\n\n- Change ${n} (#${n})`, commit: `d${n}abcdef`, at: 1_700_000_000_000 + n });
const changelogSkill = '# learned\n\n## When writing a CHANGELOG entry\n\n- Reference the PR number in parentheses after the item, like `(#123)`.\n- Use `## [Unreleased]` with the brackets, the Keep a Changelog way.\n\n## When writing release notes\n\n- Release notes need a `## Highlights` section.\n';
const changelogAsk = (n: number) => ({ intent: `Add a CHANGELOG entry for: change ${n}.`, context: `This is PR #${500 + n}.` });
const failing = (response: string) => [1, 2, 3].map((n): RolloutDigest => ({ taskId: `c${n}`, intent: changelogAsk(n).intent, response, score: 0.5, passed: false, feedback: '', kept: [changelogKept(n)] }));
const changedRate = (skill: string): number => {
  let hits = 0;
  for (let sample = 0; sample < 200; sample++) if (/^### Changed$/m.test(perform({ ...changelogAsk(sample), skill: { name: 's', content: skill }, sample }, 3).text)) hits++;
  return hits / 200;
};

describe('a reflected rule replaces the stated clause that competes for its slot', () => {
  it('drops "the Keep a Changelog way" (which the replies show as `### Added`), keeps the line\'s heading, and puts `### Changed` first', () => {
    const edits = reflect(payload(changelogSkill, failing('## [Unreleased]\n\n### Added\n\n- change 1 (#501)')), NO_HARM, new Rng('r', 1));
    const rewrite = edits.find((e) => e.op === 'replace' && /### Changed/.test(e.content));
    expect(rewrite).toBeDefined();
    expect(rewrite!.anchor).toContain('the Keep a Changelog way');
    const after = apply(changelogSkill, edits);
    expect(after).not.toMatch(/Keep a Changelog/);
    expect(after).toContain('- Use `## [Unreleased]` with the brackets.');
    // the new rule leads its section
    expect(after).toMatch(/## When writing a CHANGELOG entry\n\n- File each entry under a `### Changed` subheading\.\n/);
    // and nothing was added beside it: one line asks for a subheading
    expect(after.match(/###/g)).toHaveLength(1);
    // the target now writes the kept subheading far more often than with both lines
    const beside = changelogSkill.replace('- Reference', '- File each entry under a `### Changed` subheading.\n- Reference');
    expect(changedRate(after)).toBeGreaterThan(0.85);
    expect(changedRate(after) - changedRate(beside)).toBeGreaterThan(0.25);
  });

  it('needs the rival value in the failing replies: a clause that does not show is left alone', () => {
    expect(findRivals(changelogSkill, '- File each entry under a `### Changed` subheading.', 'changelog', ['## [Unreleased]\n\n- change 1'])).toEqual([]);
    const shown = findRivals(changelogSkill, '- File each entry under a `### Changed` subheading.', 'changelog', ['### Added\n- change 1']);
    expect(shown.map((r) => r.clause)).toEqual(['the Keep a Changelog way.']);
    expect(shown[0].remainder).toBe('Use `## [Unreleased]` with the brackets.');
  });

  it('never takes a rival from another job\'s section', () => {
    const skill = '## When writing release notes\n\n- Use the Keep a Changelog way.\n\n## When writing a CHANGELOG entry\n\n- Reference the PR number.\n';
    expect(findRivals(skill, '- File each entry under a `### Changed` subheading.', 'changelog', ['### Added'])).toEqual([]);
  });

  it('replaces a line that says the rule less fully (`Refs:` for `Refs: #<number>`), and two lines on one describe block with the specific one', () => {
    const commit = '## When writing a commit message\n\n- End the commit message with a `Refs:` footer line, e.g. `Refs: #124`.\n';
    expect(findRivals(commit, '- End with a `Refs: #<number>` trailer line.', 'commit', ['x'])).toHaveLength(1);
    const tests = '## When writing unit tests\n\n- Use `it.each` for the input variants.\n- Wrap the cases in a describe block named after the function.\n';
    const rivals = findRivals(tests, "- Wrap the cases in a describe block named after the function, e.g. `describe('<function>'`.", 'tests', ['x']);
    expect(rivals.map((r) => r.line)).toEqual(['- Wrap the cases in a describe block named after the function.']);
  });
});

describe('where the rule goes', () => {
  it('an add anchored on a job heading lands first in that section, one bullet per rule', () => {
    const skill = '# s\n\n## When writing a commit message\n\n- Never write WIP.\n';
    const out = apply(skill, [{ op: 'add', anchor: '## When writing a commit message', content: '- End with a `Refs: #<number>` trailer line.\n- Start with `fix(<scope>): `.', rationale: '', evidence: [] }]);
    expect(out).toBe('# s\n\n## When writing a commit message\n\n- End with a `Refs: #<number>` trailer line.\n- Start with `fix(<scope>): `.\n- Never write WIP.\n');
  });

  it('a rule for one job is proposed under its section with no scope label', () => {
    const rollouts = failing('## [Unreleased]\n\n- change 1 🎉').map((r) => ({ ...r, kept: [changelogKept(1), changelogKept(2)].map((k) => ({ ...k, agent: `${k.agent} 🎉` })) }));
    const skill = '# s\n\n## When writing a CHANGELOG entry\n\n- Reference the PR number in parentheses after the item, like `(#123)`.\n';
    const edits = reflect(payload(skill, rollouts), NO_HARM, new Rng('r', 2));
    const add = edits.find((e) => e.op === 'add');
    expect(add).toMatchObject({ anchor: '## When writing a CHANGELOG entry' });
    expect(add!.content.split('\n').every((l) => /^- (?!For )/.test(l))).toBe(true);
  });

  it('sectionRewrite moves a rewritten rule to the top of its section and keeps the rest in order', () => {
    const skill = '## Unit tests\n\n- Use `it.each`.\n- Wrap them in a describe block.\n\n## PR\n\n- Keep it short.\n';
    const r = sectionRewrite(skill, "- Wrap the cases in a `describe('<function>'` block.", [{ line: '- Wrap them in a describe block.', becomes: null }])!;
    expect(r.anchor).toBe('- Use `it.each`.\n- Wrap them in a describe block.');
    expect(r.content).toBe("- Wrap the cases in a `describe('<function>'` block.\n- Use `it.each`.");
  });

  it('a vague stated line the new rule makes redundant is replaced by it, at the top of its section', () => {
    const skill = '# s\n\n## When writing a commit message\n\n- Never write WIP.\n- you forgot to end with the Refs trailer and the PR number\n';
    const kept = (n: number) => ({ kind: 'commit_message' as const, agent: `Update: c${n}`, kept: `Update: c${n}\n\nRefs: #${n}`, commit: `c${n}abcdef`, at: 1_700_000_000_000 + n });
    const rollouts = [1, 2].map((n): RolloutDigest => ({ taskId: `t${n}`, intent: `Write the commit message for change ${n}`, response: `Update: c${n}`, score: 0.5, passed: false, feedback: '', kept: [kept(n), kept(n + 10)] }));
    const after = apply(skill, reflect(payload(skill, rollouts), NO_HARM, new Rng('r', 4)));
    expect(after).toBe('# s\n\n## When writing a commit message\n\n- End with a `Refs: #<number>` trailer line (the PR number of the change).\n- Never write WIP.\n');
  });
});

describe('each rule once, in its own words', () => {
  it('leaves the judge\'s provenance out of the rule and drops a sentence cut inside a literal', () => {
    expect(withoutProvenance("Put a `### Changed` heading in `CHANGELOG.md` (kept in 12 of 14 versions; the agent's drafts lacked it).")).toBe('Put a `### Changed` heading in `CHANGELOG.md`.');
    expect(withoutProvenance('Never add `jest.fn` in `tests/*.test.ts` (the user deleted it in 9 of 13).')).toBe('Never add `jest.fn` in `tests/*.test.ts`.');
    expect(withoutProvenance('Put a `### Changed` heading in `CHANGELOG.md` (kept in 12 of 14 versions; t')).toBe('Put a `### Changed` heading in `CHANGELOG.md`.');
    expect(withoutProvenance('Run the linter first. Execute the tests with `pnpm vi')).toBe('Run the linter first.');
    // the procedure's count is evidence too; left in, "failed" beside two commands reads as a note about what not to run
    expect(withoutProvenance('Execute the tests with `pnpm vitest run`, not `npm test` (which failed in 12 sessions of this job).')).toBe('Execute the tests with `pnpm vitest run`, not `npm test`.');
    // and "X, not Y" is stated as the command to run beside the one that fails (a bare "not" reads as a prohibition)
    const rule = commandRule('Execute the tests with `pnpm vitest run`, not `npm test`.');
    expect(rule).toBe('Run the tests with `pnpm vitest run`; `npm test` fails here.');
    expect(perform({ intent: 'Write unit tests for the `parseAmount` function in src/amount.ts.', context: '', skill: { name: 's', content: `## When writing unit tests\n\n- ${rule}\n` }, sample: 0 }, 1).commandsRun).toContain('pnpm vitest run');
    expect(withoutProvenance('Execute the tests with `pnpm vi')).toBe('');
  });

  it('a literal one kept version left in (it landed as the agent wrote it) does not hide what the others took out', () => {
    const testsKept = (n: number, edited: boolean) => ({ kind: 'file' as const, file: `tests/f${n}.test.ts`, agent: `const spy = jest.fn();\nit('works ${n}', () => {});`, kept: edited ? `const spy = vi.fn();\nit('works ${n}', () => {});` : `const spy = jest.fn();\nit('works ${n}', () => {});`, commit: `e${n}abcdef`, at: 1_700_000_000_000 + n });
    const rollouts: RolloutDigest[] = [{ taskId: 't1', intent: 'Write unit tests for the `parseAmount` function.', response: 'jest.fn()', score: 0.5, passed: false, feedback: '', kept: [1, 2, 3, 4, 5].map((n) => testsKept(n, n !== 3)) }];
    expect(induceFromOutcomes(rollouts).map((r) => r.rule)).toContain('Never put `jest.fn` in unit tests; use `vi.fn` instead.');
    // the user adding it back somewhere is a different story: no rule
    const added = [...rollouts[0].kept!, { ...testsKept(9, true), agent: "it('x', () => {});", kept: "const spy = jest.fn();\nit('x', () => {});" }];
    expect(induceFromOutcomes([{ ...rollouts[0], kept: added }]).map((r) => r.rule)).not.toContain('Never put `jest.fn` in unit tests; use `vi.fn` instead.');
  });

  it('clauses split at commas outside literals; placeholders match an instance value', () => {
    expect(clausesOf('Use `## [Unreleased]` with the brackets, the Keep a Changelog way.')).toEqual(['Use `## [Unreleased]` with the brackets', 'the Keep a Changelog way.']);
    expect(clausesOf('Use `a, b` here.')).toEqual(['Use `a, b` here.']);
    expect(showsIn('fix: x\n\nRefs: #512', 'Refs: #<number>')).toBe(true);
    expect(showsIn('fix: x\n\nRefs:', 'Refs: #<number>')).toBe(false);
  });
});
