/**
 * The staging guard: only rules reach a live skill file (issue 38). Each kind of line the guard
 * refuses is shown once from the shapes a real night produced, and what it keeps is shown beside it.
 */
import { describe, expect, it } from 'vitest';
import { describeRemovals, guardPartialContent, guardSkillContent, isInstanceSpecific, normalizeRule } from '../../src/proposals/staging-guard.js';
import { GUIDANCE_END, GUIDANCE_START } from '../../src/skilldoc/document.js';
import { lintWording } from '../../src/skilldoc/wording-lint.js';
import { renderProposalReport } from '../../src/proposals/staging-report.js';

const FRONT = '---\nname: skillopt-sleep-learned\ndescription: Use when writing a CHANGELOG entry.\n---\n';
const SCAFFOLD = `${FRONT}\n# skillopt-sleep-learned\n\nLearned by skillopt-sleep from your recurring tasks.\n`;

describe('staging guard', () => {
  it('moves the epoch review and other run notes out of the skill, into runNotes', () => {
    const text = `${SCAFFOLD}\n## When writing a CHANGELOG entry\n\n- Put entries under [Unreleased].\n\n${GUIDANCE_START}\n## Notes from past nights\n\n- Epoch review: 0 task(s) improved, 0 regressed, 5 still failing; 0 rule(s) were added this epoch.\n- Still failing: focus on add a unit test for parseAmount (negative numbers, thousa...\n${GUIDANCE_END}\n- Regressed: writing a changelog; re-read the rules.\n`;
    const g = guardSkillContent(text, { start: SCAFFOLD });
    expect(g.content).not.toMatch(/Epoch review|Still failing|Regressed|skillopt:guidance|thousa/);
    expect(g.content).toContain('- Put entries under [Unreleased].');
    expect(g.runNotes.join('\n')).toMatch(/Epoch review: 0 task\(s\) improved/);
    expect(g.runNotes.join('\n')).toMatch(/Regressed: writing a changelog/);
    expect(g.content.startsWith(FRONT)).toBe(true);
  });

  it('takes out text cut mid-word and clip markers, keeps a full sentence that ends in an ellipsis after a space', () => {
    const text = `${SCAFFOLD}\n## Rules for every job\n\n- Add a unit test for parseAmount (negative numbers, thousa....\n- Quote the log …[297 more characters]\n- Name the command you ran.\n`;
    const g = guardSkillContent(text, { start: SCAFFOLD });
    expect(g.removed.map((r) => r.why)).toEqual(['cut-text', 'cut-text']);
    expect(g.content).toContain('- Name the command you ran.');
    expect(g.content).not.toMatch(/thousa|more characters/);
  });

  it('drops generic padding the user never asked for, in every wording it reached a file in', () => {
    const padding = ['- does the task instead of refusing', '- Gives a substantive answer.', '- Stays within a plausible length.', '- Always attempt the task; do not refuse.', '- Be detailed: at least 20 characters.'];
    const text = `${SCAFFOLD}\n## When writing a CHANGELOG entry\n\n${padding.join('\n')}\n- Keep each entry under 100 characters.\n`;
    const g = guardSkillContent(text, { start: SCAFFOLD });
    expect(g.removed.filter((r) => r.why === 'padding')).toHaveLength(padding.length);
    expect(g.content).toContain('- Keep each entry under 100 characters.');
  });

  it('drops a one-off correction, keeps one said in several sessions, and a leading "No," goes', () => {
    const text = `${SCAFFOLD}\n## When writing a CHANGELOG entry\n\n- Also call out that this changes output for existing callers.\n- No, apply Keep a Changelog format: entries under [Unreleased].\n`;
    const oneOff = new Set([normalizeRule('Also call out that this changes output for existing callers.')]);
    const g = guardSkillContent(text, { start: SCAFFOLD, oneOffCorrections: oneOff });
    expect(g.content).not.toContain('Also call out');
    expect(g.content).toContain('- Apply Keep a Changelog format: entries under [Unreleased].');
    expect(g.content).not.toMatch(/No, apply/);
  });

  it('calls a correction one-off by its wording about that one output, not by being said once', () => {
    // remarks about the output in front of the user
    for (const t of ['Also call out that this changes output for existing callers.', 'For this one, mention the CVE', 'just this time, skip the migration note', 'this release is a hotfix, say so'])
      expect(isInstanceSpecific(t), t).toBe(true);
    // general preferences, however often they were said: a rule the user had no reason to repeat
    for (const t of ['you forgot the trailer: end with Signed-off-by: Name <name@example.com>', 'too thin - it should be at least 600 characters', 'No, apply Keep a Changelog format', 'keep commit messages at most 500 characters', 'mention breaking changes in the release notes'])
      expect(isInstanceSpecific(t), t).toBe(false);
  });

  it('removes a heading left with nothing under it, and its parent when that was all it held', () => {
    const text = `${SCAFFOLD}\n## When fixing failing tests\n\n- Use it.each for the suffix cases.\n\n## Rules for every job\n\n## When writing docs\n\n### Examples\n`;
    const g = guardSkillContent(text, { start: SCAFFOLD });
    expect(g.content).not.toMatch(/Rules for every job|When writing docs|### Examples/);
    expect(g.content).toContain('## When fixing failing tests\n\n- Use it.each for the suffix cases.\n');
    expect(g.removed.filter((r) => r.why === 'empty-section')).toHaveLength(3);
  });

  it('never touches the user\'s own lines (what the start already held), nor code blocks', () => {
    const start = `${FRONT}\n# Mine\n\n## Placeholder\n\n- No, this is my own rule.\n\n\`\`\`\n- Epoch review: inside a fence is an example\n\`\`\`\n`;
    const text = `${start}\n- Run the tests before committing.\n`;
    const g = guardSkillContent(text, { start });
    expect(g.content).toBe(text);
    expect(g.removed).toEqual([]);
  });

  it('returns the text unchanged when there is nothing to take out', () => {
    const text = `${SCAFFOLD}\n## Rules for every job\n\n- Name the command you ran.\n`;
    expect(guardSkillContent(text, { start: SCAFFOLD }).content).toBe(text);
  });

  it('refuses a candidate that lost, broke or renamed the front matter', () => {
    expect(() => guardSkillContent('# x\n\n- a rule\n', { start: SCAFFOLD })).toThrow(/lost the skill's front matter/);
    expect(() => guardSkillContent('---\n: [\n---\n- a rule\n', { start: SCAFFOLD })).toThrow(/not a YAML mapping/);
    expect(() => guardSkillContent(SCAFFOLD.replace('name: skillopt-sleep-learned', 'name: other'), { start: SCAFFOLD })).toThrow(/renamed the skill/);
  });

  it('a partial apply keeps out what staging refused and the heading its other edits would have filled', () => {
    const candidate = `${SCAFFOLD}\n## When writing a CHANGELOG entry\n\n- Put entries under [Unreleased].\n`;
    const partial = `${SCAFFOLD}\n## When writing a CHANGELOG entry\n\n- Put entries under [Unreleased].\n- Also call out the behaviour change.\n\n## Rules for every job\n`;
    const out = guardPartialContent(partial, SCAFFOLD, [{ line: '- Also call out the behaviour change.', why: 'one-off' }]);
    expect(out).toBe(candidate);
  });
});

describe('the proposal report', () => {
  it('says "no gain" first when the held-out test score did not rise', () => {
    const report = {
      schema: 'skillopt-sleep.proposal.v1' as const,
      id: 'p_1',
      runId: null,
      nightId: null,
      createdAt: '2026-12-05T03:00:00.000Z',
      target: { agent: 'claude-code' as const, path: '/x/SKILL.md', name: 'x', kind: 'managed' as const, readBy: [], project: null },
      baseHash: '',
      candidateHash: 'h',
      editScope: 'document' as const,
      gate: { accepted: true, baselineScore: 0.58, candidateScore: 0.71, trials: [] },
      test: { before: 0.88, after: 0.88 },
      perTask: [],
      edits: { accepted: [], rejected: [], unmatched: [] },
      budget: null,
      backends: {},
      notes: [],
    };
    const lines = renderProposalReport(report).split('\n');
    expect(lines[2]).toBe('**NO GAIN on held-out tasks: test 0.88 → 0.88; only validation, which training was tuned on, improved**');
    expect(renderProposalReport({ ...report, test: { before: 0.5, after: 0.6 } })).not.toContain('NO GAIN');
  });

  it('stages no skill that fails the wording lint: a complaint becomes its rule, a copy in "every job" goes, and the proposal says why', () => {
    const text = `${SCAFFOLD}\n## When writing a CHANGELOG entry\n\n- Use Keep a Changelog format: place it under ## [Unreleased] in a ### Fixed section.\n- way too long - keep each entry under 100 characters\n- you used jest again\n\n## Rules for every job\n\n- For changelog entries: Remember to keep a Changelog: entries go under an [Unreleased] header.\n`;
    const g = guardSkillContent(text, { start: SCAFFOLD });
    expect(lintWording(g.content).ok).toBe(true);
    expect(g.content).toContain('- Keep each entry under 100 characters.');
    expect(g.content).not.toMatch(/Remember to keep|jest again|## Rules for every job/);
    expect(g.removed.map((r) => r.why).sort()).toEqual(['complaint', 'duplicate', 'empty-section']);
    const notes = describeRemovals(g.removed, g.rewrites).join('\n');
    expect(notes).toMatch(/took out 1 rule\(s\) the skill already states .*Remember to keep a Changelog.* — repeats "- Use Keep a Changelog format/);
    expect(notes).toMatch(/rewrote "- way too long - keep each entry under 100 characters" as "- Keep each entry under 100 characters\."/);
  });

  it("never rewrites the user's own lines, and holds the night's additions to the token budget", () => {
    const start = `${SCAFFOLD}\n## When writing a commit message\n\n- no, I said keep it short\n`;
    const added = Array.from({ length: 30 }, (_, i) => `- Mention the \`area${i}\` subsystem by its full name in the subject line.`).join('\n');
    const g = guardSkillContent(`${start}${added}\n`, { start, tokenBudget: 300 });
    expect(g.content).toContain('- no, I said keep it short');
    expect(g.removed.filter((r) => r.why === 'over-budget').length).toBeGreaterThan(10);
    expect(g.content).toContain('`area0`');
  });
});
