import { describe, it, expect } from 'vitest';
import { scopeDropped, scoped, wrongLiteral, hardcoded, generalized } from '../../src/llm/sim/reflect.js';
import { perform } from '../../src/llm/sim/target.js';
import { parseSkill } from '../../src/llm/sim/skill-rules.js';
import { evaluateCheck } from '../../src/core/checks.js';
import type { Check } from '../../src/core/records.js';

const release = { intent: 'Draft the release notes for version 2.3.1 of the logpipe package.', context: 'Merged since the last release: drop Node 18 support; PR #512.' };
const commit = { intent: 'Write the git commit message for: drop Node 18 support.', context: '' };
const changelog = { intent: 'Write the CHANGELOG.md entry for this change: drop Node 18 support (PR #512).', context: '' };
const rate = (check: Check, skill: string, ask: { intent: string; context: string }): number =>
  Array.from({ length: 30 }, (_, sample) => {
    const r = perform({ ...ask, skill: { name: 's', content: skill }, sample }, 2);
    return evaluateCheck(check, r.text, r.toolsCalled).passed;
  }).filter(Boolean).length / 30;

describe('sim optimizer harm knobs bite the way real harm does', () => {
  it('a scope-dropped rule applies to every job: a commit limit truncates release notes', () => {
    const rule = '- Keep commit messages brief: at most 50 characters.';
    expect(parseSkill(scoped(rule, 'commit')).rules[0].scope).toEqual(['commit']);
    const dropped = scopeDropped(rule);
    expect(parseSkill(dropped).rules[0].scope).toBeNull();
    const highlights: Check = { id: 'h', op: 'section_present', value: 'Highlights', weight: 1, sealed: false };
    const skill = (extra: string) => `- Add a \`## Highlights\` section to release notes for the top features.\n${extra}`;
    expect(rate(highlights, skill(rule), release)).toBeGreaterThan(0.8);
    expect(rate(highlights, skill(dropped), release)).toBeLessThan(0.5);
  });

  it('right topic, wrong literal: the heading and the bracket style come out wrong', () => {
    expect(wrongLiteral('- Put new changelog entries under an `## [Unreleased]` heading.')).toContain('`## Upcoming`');
    expect(wrongLiteral('- Reference the PR after each item, e.g. `(#123)`.')).toContain('[#123]');
    const ref: Check = { id: 'r', op: 'regex', value: '\\(#\\d+\\)', weight: 1, sealed: false };
    expect(rate(ref, wrongLiteral('- Reference the PR after each changelog item, e.g. `(#123)`.'), changelog)).toBe(0);
  });

  it('a hard-coded train value passes the loose check and fails the instance on test', () => {
    const rule = '- Reference the pull request number in parentheses after each changelog item, e.g. `(#123)`.';
    const fixed = hardcoded(rule, { change: '', pr: '482', version: null, fn: null, pkg: null, issue: null, author: null, email: null }) as string;
    expect(fixed).toContain('(#482)');
    const loose: Check = { id: 'l', op: 'regex', value: '\\(#\\d+\\)', weight: 1, sealed: false };
    const strict: Check = { id: 's', op: 'contains', value: '(#512)', weight: 1, sealed: false };
    expect(rate(strict, rule, changelog)).toBeGreaterThan(0.8);
    expect(rate(loose, fixed, changelog)).toBeGreaterThan(0.8);
    expect(rate(strict, fixed, changelog)).toBe(0);
  });

  it('without the hard-code harm, a value the failing ask holds becomes a placeholder that each instance fills', () => {
    const visible = { change: '', pr: '482', version: '2.4.0', fn: 'slugify', pkg: 'logpipe', issue: null, author: null, email: null };
    const rule = '- Reference the pull request in parentheses: `(#482)`; title `# Release v2.4.0`; `npm install logpipe`; `describe(\'slugify\'`; keep #7 in prose.';
    const general = generalized(rule, visible);
    expect(general).toBe("- Reference the pull request in parentheses: `(#<number>)`; title `# Release vX.Y.Z`; `npm install <package>`; `describe('<function>'`; keep #7 in prose.");
    // a literal the ask does not hold stays as written
    expect(generalized('- use `(#99)`', visible)).toBe('- use `(#99)`');
    const strict: Check = { id: 's', op: 'contains', value: '(#512)', weight: 1, sealed: false };
    expect(rate(strict, '- Reference the pull request number in parentheses after each changelog item: `(#<number>)`.', changelog)).toBeGreaterThan(0.8);
  });

  it('a catastrophic format rule wrecks every job', () => {
    const prefix: Check = { id: 'p', op: 'regex', value: '^feat: ', weight: 1, sealed: false };
    const skill = '- Start commit messages with a Conventional Commits type prefix such as `feat:`.';
    expect(rate(prefix, skill, commit)).toBeGreaterThan(0.8);
    expect(rate(prefix, `${skill}\n- Reply only with JSON: a single object with the result and nothing else.`, commit)).toBeLessThan(0.6);
  });
});
