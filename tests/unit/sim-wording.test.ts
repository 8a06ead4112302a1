/**
 * Issue 41 in the sim: the target follows rules by their wording (a complaint least, a precise
 * imperative with an example most; a copy is no second chance; long skills dilute) and runs the
 * command a rule names; the optimizer induces rules from the kept diffs and procedures its prompt
 * carries, and rewrites a stated rule that keeps failing instead of adding another.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPLIANCE, perform } from '../../src/llm/sim/target.js';
import { parseSkill, wordingOf } from '../../src/llm/sim/skill-rules.js';
import { induceFromOutcomes } from '../../src/llm/sim/kept-diff.js';
import { reflect, labelFailures, DEFAULT_HARM } from '../../src/llm/sim/reflect.js';
import { Rng } from '../../src/llm/sim/rng.js';
import type { ReflectPayload, RolloutDigest } from '../../src/core/protocol.js';

const commitAsk = { intent: 'Write the git commit message for: drop Node 18 support.', context: 'This is PR #512.' };
const testsAsk = { intent: 'Write unit tests for the `parseAmount` function in src/amount.ts.', context: '' };
const followRate = (content: string, ask: { intent: string; context: string }, pass: (r: ReturnType<typeof perform>) => boolean, n = 200): number =>
  Array.from({ length: n }, (_, sample) => pass(perform({ ...ask, skill: { name: 's', content }, sample }, 7))).filter(Boolean).length / n;

describe('the sim target: compliance by wording', () => {
  it('classifies a complaint, a plain statement and a precise imperative', () => {
    expect(wordingOf('way too long - keep it at most 500 characters')).toBe('complaint');
    expect(wordingOf('release notes must be at least 500 characters')).toBe('plain');
    expect(wordingOf('Start the subject with a type and scope, e.g. `fix(cli): `.')).toBe('precise');
    expect(DEFAULT_COMPLIANCE.complaint).toBeLessThan(DEFAULT_COMPLIANCE.plain);
    expect(DEFAULT_COMPLIANCE.plain).toBeLessThan(DEFAULT_COMPLIANCE.precise);
  });

  it('follows a precise rule more often than the same rule pasted as a complaint', () => {
    const starts = (r: ReturnType<typeof perform>) => r.text.startsWith('fix(cli): ');
    const precise = followRate('## When writing a commit message\n\n- Start the subject with `fix(cli): `.', commitAsk, starts);
    const complaint = followRate('## When writing a commit message\n\n- no, you forgot the prefix again, start with `fix(cli): `', commitAsk, starts);
    expect(precise).toBeGreaterThan(0.88);
    expect(complaint).toBeLessThan(0.7);
    expect(precise - complaint).toBeGreaterThan(0.2);
  });

  it('a rule said twice is one intention, followed less, not a second chance', () => {
    const ends = (r: ReturnType<typeof perform>) => /Refs: #512$/.test(r.text);
    const once = followRate('## When writing a commit message\n\n- End with a `Refs: #<number>` trailer line.', commitAsk, ends);
    const twice = followRate('## When writing a commit message\n\n- End with a `Refs: #<number>` trailer line.\n- End every message with the `Refs: #<number>` trailer.', commitAsk, ends);
    expect(twice).toBeLessThan(once);
  });

  it('runs the command a rule names instead of its habit, and knows a note about a failing command is no directive', () => {
    const empty = perform({ ...testsAsk, skill: { name: 's', content: '' }, sample: 0 }, 1);
    expect(empty.commandsRun).toEqual(['npm test']);
    const skill = '## When writing unit tests\n\n- Run the tests with `pnpm vitest run`; `npm test` fails here.';
    expect(parseSkill(skill).rules.flatMap((r) => r.directives.map((d) => d.kind))).toEqual(['command', 'tool']);
    const rate = followRate(skill, testsAsk, (r) => r.commandsRun.includes('pnpm vitest run') && !r.commandsRun.includes('npm test'));
    expect(rate).toBeGreaterThan(0.85);
  });
});

const digest = (id: string, intent: string, extra: Partial<RolloutDigest>): RolloutDigest => ({ taskId: id, intent, response: 'Update: x', score: 0.5, passed: false, feedback: '', ...extra });
const commitKept = (n: number, scope: string, change: string) => ({ kind: 'commit_message' as const, agent: `Update: ${change}\nWIP - more cleanup to follow.`, kept: `fix(${scope}): ${change}\n\nRefs: #${n}`, commit: `c${n}abcdef`, at: 1_700_000_000_000 + n });
const payload = (skill: string, rollouts: RolloutDigest[]): ReflectPayload => ({ skill, mode: 'failures', rollouts, rejectedEdits: [], metaSkill: '', maxEdits: 6 });

describe('the sim optimizer learns from what the user kept', () => {
  const rollouts = [
    digest('t1', 'give me a commit message: drop Node 18 support', { kept: [commitKept(12, 'cli', 'drop node 18 support'), commitKept(14, 'store', 'rename the cache')] }),
    digest('t2', 'write the commit message for the importer fix', { kept: [commitKept(20, 'importer', 'handle empty rows')], procedures: [{ failed: 'npx eslint .', worked: 'npx eslint --cache .', purpose: 'lint', sessions: 3 }] }),
  ];

  it('induces imperative rules with short examples from the diffs and the procedure', () => {
    const rules = induceFromOutcomes(rollouts).map((r) => r.rule);
    expect(rules).toContain('Start the subject with a type and scope, e.g. `fix(importer): `, then a lower-case summary.');
    expect(rules).toContain('End with a `Refs: #<number>` trailer line (the PR number of the change).');
    expect(rules).toContain('Never put `WIP` in commit messages.');
    expect(rules).toContain('Run the linter with `npx eslint --cache .`; `npx eslint .` fails here.');
  });

  it('reads only the failing attempts, and needs the same difference twice', () => {
    expect(induceFromOutcomes(rollouts.map((r) => ({ ...r, passed: true })))).toEqual([]);
    expect(induceFromOutcomes([digest('t1', 'give me a commit message: x', { kept: [commitKept(12, 'cli', 'drop node 18 support')] })])).toEqual([]);
  });

  it('proposes them as edits scoped to the job, and the rules it wrote are followed by the target', () => {
    const edits = reflect(payload('# learned\n', rollouts), { harmfulEditRate: 0, irrelevantEditRate: 0 }, new Rng('r', 1));
    const text = edits.map((e) => e.content).join('\n');
    expect(text).toMatch(/fix\(importer\): /);
    expect(text).toMatch(/Refs: #<number>/);
    expect(edits.every((e) => e.op === 'add')).toBe(true);
    const skill = `## When writing a commit message\n\n${edits.map((e) => e.content).join('\n')}`;
    const r = perform({ intent: 'Write the git commit message for: drop Node 18 support.', context: 'This is PR #512.', skill: { name: 's', content: skill }, sample: 0 }, 2);
    expect(r.commandsRun).toContain('npx eslint --cache .');
  });

  it('rewrites a stated rule the attempts keep failing instead of adding another, and calls that failure a defect', () => {
    const skill = '## When writing a commit message\n\n- you forgot the trailer again: `Refs: #<number>`\n';
    const p = payload(skill, rollouts);
    const edits = reflect(p, { ...DEFAULT_HARM, harmfulEditRate: 0, irrelevantEditRate: 0, bloatRate: 0, catastrophicRate: 0, wrongLiteralRate: 0, scopeDropRate: 0 }, new Rng('r', 2));
    const rewrite = edits.find((e) => e.op === 'replace');
    expect(rewrite).toMatchObject({ anchor: '- you forgot the trailer again: `Refs: #<number>`', content: '- End with a `Refs: #<number>` trailer line (the PR number of the change).' });
    expect(edits.filter((e) => e.op === 'add' && /Refs:/.test(e.content))).toEqual([]);
    expect(labelFailures(p, new Rng('l', 1)).map((l) => l.kind)).toEqual(['defect', 'defect']);
  });

  it('a stated rule with an older spelling of the kept value is rewritten, never left beside the new one', () => {
    const changelogKept = (n: number, heading: string) => ({ kind: 'file' as const, file: 'CHANGELOG.md', agent: `# Changelog\n\n- Change ${n}`, kept: `# Changelog\n\n${heading}\n\n- Change ${n}`, commit: `d${n}abcdef`, at: 1_700_000_000_000 + n });
    const failing = [1, 2, 3].map((n) => digest(`c${n}`, `add a changelog entry for change ${n}`, { kept: [changelogKept(n, '## [Unreleased]')] }));
    const skill = '## Changelog entries\n\n- Put it under `## Unreleased`.\n';
    const edits = reflect(payload(skill, failing), { ...DEFAULT_HARM, harmfulEditRate: 0, irrelevantEditRate: 0, bloatRate: 0, catastrophicRate: 0, wrongLiteralRate: 0, scopeDropRate: 0 }, new Rng('r', 3));
    const unreleased = edits.filter((e) => /Unreleased/.test(e.content));
    expect(unreleased).toHaveLength(1);
    expect(unreleased[0]).toMatchObject({ op: 'replace', anchor: '- Put it under `## Unreleased`.' });
    expect(unreleased[0].content).toContain('`## [Unreleased]`');
  });

  it('a heading the user respelled halfway through the month: the newer spelling is read over the versions since it landed, and replaces the stated older one', () => {
    // six kept CHANGELOG.md versions, the first three under `## Unreleased`, the last three (dated later)
    // under `## [Unreleased]`: over all six the newer spelling is in half (short of the agreement), but
    // every version kept since it first landed has it (outcome world seeds 5 and 6 shipped the older one)
    const kept = (n: number) => ({ kind: 'file' as const, file: 'CHANGELOG.md', agent: `# Changelog\n\n## Upcoming\n\n- Change ${n}`, kept: `# Changelog\n\n${n <= 3 ? '## Unreleased' : '## [Unreleased]'}\n\n- Change ${n}`, commit: `e${n}abcdef`, at: 1_700_000_000_000 + n * 86_400_000 });
    const failing = [1, 2, 3, 4, 5, 6].map((n) => digest(`c${n}`, `add a changelog entry for change ${n}`, { kept: [kept(n)] }));
    const headings = induceFromOutcomes(failing).filter((r) => /Unreleased/.test(r.rule));
    expect(headings.map((r) => r.rule)).toEqual(['Put new entries under an `## [Unreleased]` heading.']);
    expect(headings[0].basis).toContain("in 3 of the 3 kept versions since it replaced an older spelling");
    const skill = '## Changelog entries\n\n- New entries go under a `## Unreleased` heading at the top.\n';
    const edits = reflect(payload(skill, failing), { ...DEFAULT_HARM, harmfulEditRate: 0, irrelevantEditRate: 0, bloatRate: 0, catastrophicRate: 0, wrongLiteralRate: 0, scopeDropRate: 0 }, new Rng('r', 4));
    const unreleased = edits.filter((e) => /Unreleased/.test(e.content));
    expect(unreleased).toHaveLength(1);
    expect(unreleased[0]).toMatchObject({ op: 'replace', anchor: '- New entries go under a `## Unreleased` heading at the top.' });
    expect(unreleased[0].content).toContain('`## [Unreleased]`');
  });

  it('a heading kept in a minority of versions with no older spelling beside it is still no rule', () => {
    const kept = (n: number) => ({ kind: 'file' as const, file: 'CHANGELOG.md', agent: `# Changelog\n\n- Change ${n}`, kept: `# Changelog\n\n${n > 4 ? '## [Unreleased]\n\n' : ''}- Change ${n}`, commit: `f${n}abcdef`, at: 1_700_000_000_000 + n * 86_400_000 });
    const failing = [1, 2, 3, 4, 5, 6].map((n) => digest(`c${n}`, `add a changelog entry for change ${n}`, { kept: [kept(n)] }));
    expect(induceFromOutcomes(failing).filter((r) => /Unreleased/.test(r.rule))).toEqual([]);
  });

  it('never rewrites a line that says more than the failing rule: the rest would be lost', () => {
    const skill = '## When writing a commit message\n\n- you forgot the trailer again: `Refs: #<number>`, then sign off with `Signed-off-by: Name <email>`\n';
    const edits = reflect(payload(skill, rollouts), { harmfulEditRate: 0, irrelevantEditRate: 0 }, new Rng('r', 3));
    expect(edits.filter((e) => e.op === 'replace')).toEqual([]);
  });
});
