/**
 * The start draft's composer (issue 41): each rule once, imperative, no complaint wording, the newer
 * correction winning a contradiction, one-off asks left out — from what the user said only.
 */
import { describe, expect, it } from 'vitest';
import { cleanCorrection, composeRules } from '../../src/trainer/passes/start-draft-compose.js';
import { staleByKept } from '../../src/skilldoc/stale-value.js';
import { correctionsDraft, draftJobs } from '../../src/trainer/passes/start-draft.js';
import { lintWording } from '../../src/skilldoc/wording-lint.js';
import type { Task } from '../../src/core/records.js';
import { makeTask } from '../helpers/tasks.js';

const judge = { checks: [], reference: { kind: 'rule' as const } };
const DAY = 86_400_000;
/** a task whose corrections were said in session `s` on day `day` */
const said = (id: string, family: string, intent: string, corrections: string[], day: number, extra: Partial<Task> = {}): Task =>
  makeTask({ id, family, intent, corrections, correctionSources: corrections.map(() => ({ session: `s-${id}`, at: day * DAY })), judge, split: 'train', ...extra });

describe('the start draft composer', () => {
  it("states each of the issue's complaints as the rule it carried, once", () => {
    const tasks = [
      said('c1', 'fc', 'give me a commit message: drop Node 18', ['you forgot the trailer: end with Signed-off-by: Name <name@example.com>', 'way too long - keep it at most 500 characters'], 1),
      said('c2', 'fc', 'write the commit message for the importer fix', ['end it with the Signed-off-by: Name <name@example.com> line', 'keep commit messages at most 500 characters'], 2),
      said('r1', 'fr', 'draft the release notes for v1.2.0', ['too thin - it should be at least 600 characters'], 1),
      said('r2', 'fr', 'write release notes for v1.3.0', ['too thin - it should be at least 600 characters'], 2),
    ];
    const jobs = draftJobs(tasks);
    const rules = jobs.flatMap((j) => j.corrections);
    expect(rules).toHaveLength(3);
    expect(rules.join('\n')).not.toMatch(/you forgot|too long|too thin/i);
    expect(jobs.find((j) => /release/.test(j.phrase))?.corrections).toEqual(['Make it at least 600 characters.']);
    const d = correctionsDraft('# learned\n', tasks, 'document')!;
    expect(lintWording(d.content).ok).toBe(true);
  });

  it('resolves a changed mind by recency: the newer value wins and the older leaves', () => {
    const tasks = [
      said('r1', 'fr', 'draft the release notes for v1.2.0', ['too thin - release notes should be at least 500 characters'], 1),
      said('r2', 'fr', 'write release notes for v1.3.0', ['release notes must be at least 500 characters'], 2),
      said('r3', 'fr', 'we are cutting v1.4.0, write the release notes', ['release notes can be longer now: at least 1000 characters'], 10),
      said('r4', 'fr', 'release notes for version 1.5.0 please', ['make release notes at least 1000 characters from now on, 500 is too thin'], 11),
      said('l1', 'fl', 'add a changelog entry for PR #12: fix rounding', ['new entries go under a `## Unreleased` heading at the top'], 1),
      said('l2', 'fl', 'write the CHANGELOG entry for the json flag (#40)', ['put it under `## Unreleased`'], 2),
      said('l3', 'fl', 'log the sync rename (#41) in the changelog', ['the heading is `## [Unreleased]` now, with brackets'], 9),
    ];
    const text = correctionsDraft('# learned\n', tasks, 'document')!.content;
    expect(text).toMatch(/at least 1000 characters/);
    expect(text).not.toMatch(/\b500\s*char/);
    expect(text).toContain('`## [Unreleased]`');
    expect(text).not.toMatch(/##\s*Unreleased(?!\])/);
    // the order the corrections were said in, not the order they are listed in, decides
    expect(composeRules([{ rule: 'Make them at least 1000 characters.', n: 1, at: 5 }, { rule: 'Make them at least 500 characters.', n: 3, at: 1 }]).map((r) => r.text)).toEqual(['Make them at least 1000 characters.']);
  });

  it('leaves out a stated value the kept versions have since spelled another way (the newer correction held out)', () => {
    // the month: `## Unreleased` said and kept for two weeks, then `## [Unreleased]` kept (said only in
    // held-out sessions); the family's tasks carry the older corrections with no date of their own
    const keptOn = (day: number, heading: string) => ({ kind: 'file' as const, file: 'CHANGELOG.md', agent: '# Changelog\n\n## Upcoming\n- x 🎉', kept: `# Changelog\n\n${heading}\n### Changed\n- x (#${day})`, commit: `c${day}abcdef`, at: day * DAY, session: `s${day}` });
    const older = ['new entries go under a `## Unreleased` heading at the top', 'reference the PR number in parentheses after the item, like `(#123)`'];
    const task = (id: string, day: number, heading: string) => makeTask({ id, family: 'fl', intent: `add a changelog entry for PR #${day}: change ${day}`, corrections: older, judge, split: 'train', lastSeen: day * DAY + 1, kept: [keptOn(day, heading)] });
    const tasks = [task('l1', 2, '## Unreleased'), task('l2', 6, '## Unreleased'), task('l3', 16, '## [Unreleased]'), task('l4', 20, '## [Unreleased]'), task('l5', 26, '## [Unreleased]')];
    const rules = draftJobs(tasks).flatMap((j) => j.corrections);
    expect(rules.join('\n')).not.toMatch(/##\s*Unreleased(?!\])/);
    // the rest of what was said stays: the PR reference is kept in every version, no respelling of it
    expect(rules).toEqual(['Reference the PR number in parentheses after the item, like `(#123)`.']);

    const kept = tasks.flatMap((t) => t.kept!);
    const rule = 'New entries go under a `## Unreleased` heading at the top.';
    expect(staleByKept(rule, kept, null)).toBe(true);
    // said (with a known date) after the user switched: the correction is the newer word, it stays
    expect(staleByKept(rule, kept, 21 * DAY)).toBe(false);
    expect(staleByKept(rule, kept, 10 * DAY)).toBe(true);
    // one version under the new spelling is no switch yet; nor is a switch the user went back on
    expect(staleByKept(rule, kept.filter((k) => k.at !== 20 * DAY && k.at !== 26 * DAY), null)).toBe(false);
    expect(staleByKept(rule, [...kept, keptOn(27, '## Unreleased')], null)).toBe(false);
  });

  it('two spellings of one heading are one slot: the newer spelling wins', () => {
    const rules = composeRules([
      { rule: 'Put new entries under `## Unreleased`.', n: 3, at: 1 },
      { rule: 'Use `## [Unreleased]` with the brackets from now on.', n: 2, at: 9 },
    ]);
    expect(rules.map((r) => r.text)).toEqual(['Use `## [Unreleased]` with the brackets from now on.']);
    expect(rules[0].replaced).toEqual(['Put new entries under `## Unreleased`.']);
    // two different headings are two rules
    expect(composeRules([{ rule: 'Add a `## Risk` section.', n: 1, at: 1 }, { rule: 'Add a `## Testing` section.', n: 1, at: 2 }])).toHaveLength(2);
  });

  it('on a later night, a correction that changes an earlier night\'s rule replaces it', () => {
    const before = [said('r1', 'fr', 'draft the release notes for v1.2.0', ['release notes must be at least 500 characters'], 1), said('r2', 'fr', 'write release notes for v1.3.0', ['release notes must be at least 500 characters'], 2)];
    const first = correctionsDraft('# learned\n', before, 'document')!.content;
    expect(first).toContain('Make release notes at least 500 characters.');
    const after = [...before, said('r3', 'fr', 'we are cutting v1.4.0, write the release notes', ['make release notes at least 1000 characters from now on, 500 is too thin'], 10)];
    const next = correctionsDraft(first, after, 'document')!;
    expect(next.edits[0]).toMatchObject({ op: 'replace', anchor: 'Make release notes at least 500 characters.' });
    expect(next.content).toContain('Make release notes at least 1000 characters.');
    expect(next.content).not.toMatch(/500 char/);
  });

  it('leaves a one-off ask out, keeps a general correction said once', () => {
    const tasks = [
      said('r1', 'fr', 'draft the release notes for v1.2.0', ['for this one, also mention CVE-2026-1234 since this release fixes it', 'add a `## Highlights` section for the top features'], 1),
      said('r2', 'fr', 'write release notes for v1.3.0', ['add a `## Highlights` section for the top features'], 2),
      said('c1', 'fc', 'write the commit message for the cache fix', ["don't write WIP in it"], 2),
    ];
    const text = correctionsDraft('# learned\n', tasks, 'document')!.content;
    expect(text).not.toContain('CVE-2026-1234');
    expect(text).toContain('Add a `## Highlights` section for the top features.');
    expect(text).toContain("Don't write WIP in it.");
  });

  it('reads only what the user said: kept outcomes and procedures never reach the draft', () => {
    const kept = [{ kind: 'commit_message' as const, agent: 'Update: fix rounding', kept: 'fix(cli): fix rounding\n\nRefs: #12', commit: 'a1b2c3d', at: DAY, session: 's1' }];
    const procedures = [{ failed: 'npm test', worked: 'pnpm vitest run', purpose: 'test', sessions: 3, at: DAY }];
    const tasks = [said('c1', 'fc', 'write the commit message for the cache fix', ["don't write WIP in it"], 1, { kept, procedures }), said('c2', 'fc', 'commit msg for the sync rename please', [], 2, { kept, procedures })];
    const text = correctionsDraft('# learned\n', tasks, 'document')!.content;
    expect(text).not.toMatch(/fix\(cli\)|Refs:|pnpm|npm test/);
  });

  it('drops a complaint with no rule in it, and rewrites a conversational correction as an imperative', () => {
    expect(cleanCorrection('you used jest again')).toBeNull();
    expect(cleanCorrection('you forgot the PR reference, put it after the item like `(#123)`')).toBe('Put the PR reference after the item like `(#123)`.');
    expect(cleanCorrection('the title line must be `# Release vX.Y.Z`')).toBe('Start with `# Release vX.Y.Z` as the title line.');
  });
});
