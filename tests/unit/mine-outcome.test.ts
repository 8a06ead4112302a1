import { describe, expect, it } from 'vitest';
import { classifyReaction, correctionsOf, extractIntents, type MinedEvent } from '../../src/mine/outcome.js';
import { synthesizeJudge } from '../../src/mine/judge-synth.js';
import { evaluateCheck } from '../../src/core/checks.js';

let seq = 0;
const ev = (role: string, kind: string, text: string, extra: Partial<MinedEvent> = {}): MinedEvent => ({
  seq: seq++,
  ts: 1000 + seq,
  role,
  kind,
  toolName: null,
  isError: false,
  text,
  meta: {},
  ...extra,
});
const user = (t: string) => ev('user', 'prompt', t);
const tool = (name: string, error = false) => [ev('assistant', 'tool_call', '', { toolName: name }), ev('tool', 'tool_result', error ? 'Error' : 'ok', { toolName: name, isError: error })];
const final = (t: string) => ev('assistant', 'text', t, { meta: { final: true } });

describe('reaction classification', () => {
  it.each([
    ['no, Keep a Changelog format', 'correction'],
    ['wrong format - use Keep a Changelog', 'correction'],
    ['still failing', 'correction'],
    ["don't disable the rule, fix the code", 'correction'],
    ['use it.each for the cases', 'correction'],
    ['link the PR', 'refinement'],
    ['add a Testing section', 'refinement'],
    ['thanks!', 'praise'],
    ['lgtm', 'praise'],
    ['thanks, but the date is wrong', 'correction'],
    ['write release notes for v2', null],
  ])('%s → %s', (text, kind) => {
    expect(classifyReaction(text, 'write a changelog entry')).toBe(kind);
  });

  it('"also …" about the same job refines the answer; about another job it is a new ask', () => {
    expect(classifyReaction('also update the lockfile', 'bump zod to the latest version')).toBe('refinement');
    expect(classifyReaction('also update the lockfile', 'write a changelog entry')).toBeNull();
  });

  it('a re-ask of the same thing is a retry; nothing is a reaction without a previous ask', () => {
    expect(classifyReaction('write a changelog entry for the fix', 'write a changelog entry for the fix please')).toBe('retry');
    expect(classifyReaction('no, Keep a Changelog format', null)).toBeNull();
  });
});

describe('outcome inference', () => {
  it('folds reactions into the ask they react to and keeps corrections as evidence', () => {
    seq = 0;
    const events = [
      user('Write a changelog entry for the rounding fix'),
      ...tool('Read'),
      ...tool('Bash', true),
      ...tool('Edit'),
      final('Added an entry.'),
      user('no, Keep a Changelog format'),
      final('Fixed.'),
      user('link the PR'),
      final('Linked.'),
      user('thanks!'),
      user('bump zod to the latest version'),
      ...tool('Bash'),
      final('Bumped.'),
      user('[Request interrupted by user]'),
    ];
    const intents = extractIntents(events);
    expect(intents.map((i) => i.norm.clean)).toEqual(['Write a changelog entry for the rounding fix', 'bump zod to the latest version']);
    const [a, b] = intents;
    expect(a.outcome.tools).toEqual(['Read', 'Bash', 'Edit']);
    expect(a.outcome.toolErrors).toBe(1);
    expect(a.outcome.final).toBe('Linked.');
    expect(a.outcome.reactions.map((r) => r.kind)).toEqual(['correction', 'refinement', 'praise', 'next_task']);
    expect(a.outcome.label).toBe('corrected');
    expect(correctionsOf(a.outcome)).toEqual(['no, Keep a Changelog format', 'link the PR']);
    expect(b.outcome.reactions.map((r) => r.kind)).toEqual(['interruption']);
    expect(b.outcome.label).toBe('failed');
  });

  it('praise without corrections is a success; trivial prompts are not asks', () => {
    seq = 0;
    const intents = extractIntents([user('write the PR description for this branch'), final('Here it is.'), user('perfect, thank you'), user('continue')]);
    expect(intents).toHaveLength(1);
    expect(intents[0].outcome.label).toBe('success');
  });
});

describe('judge synthesis from corrections', () => {
  const keep = `## [Unreleased]\n\n### Fixed\n- Rounding now uses banker's rounding (#412).\n`;

  it('derives Keep a Changelog, PR link and it.each checks, with sealed stricter forms', () => {
    const { judge, preferences } = synthesizeJudge({
      intent: 'Write a changelog entry for the rounding fix',
      prompts: ['Write a changelog entry for the rounding fix', 'add an entry to the changelog'],
      corrections: ['no, Keep a Changelog format', 'link the PR', 'use it.each for the cases'],
    });
    expect(preferences).toEqual(expect.arrayContaining(['keep-a-changelog', 'link-pr', 'it-each']));
    const ops = judge.checks.map((c) => c.op);
    expect(ops).toEqual(expect.arrayContaining(['regex', 'contains', 'no_refusal', 'min_chars', 'max_chars']));
    expect(judge.checks.some((c) => c.sealed)).toBe(true);
    expect(judge.checks.some((c) => !c.sealed && c.op === 'regex' && /unreleased/i.test(String(c.value)))).toBe(true);
    expect(judge.reference.kind).toBe('rubric');
    // the checks mean what they say: a good answer passes the changelog and PR checks, a bad one fails
    const byDesc = (d: string) => judge.checks.find((c) => (c.description ?? '').includes(d))!;
    expect(evaluateCheck(byDesc('Unreleased'), keep, []).passed).toBe(true);
    expect(evaluateCheck(byDesc('change-type'), keep, []).passed).toBe(true);
    expect(evaluateCheck(byDesc('pull request'), keep, []).passed).toBe(true);
    expect(evaluateCheck(byDesc('pull request'), 'Added an entry.', []).passed).toBe(false);
    expect(evaluateCheck(byDesc('Unreleased'), '* fixed rounding', []).passed).toBe(false);
  });

  it('turns "use X instead of Y" into contains/not-contains without forbidding the wanted word', () => {
    const { judge } = synthesizeJudge({ intent: 'install deps', prompts: ['install deps'], corrections: ['use pnpm, not npm'] });
    const contains = judge.checks.find((c) => c.op === 'contains' && c.value === 'pnpm');
    expect(contains).toBeDefined();
    const avoid = judge.checks.find((c) => c.description === 'does not use npm')!;
    expect(evaluateCheck(avoid, 'run `pnpm install`', []).passed).toBe(true);
    expect(evaluateCheck(avoid, 'run `npm install`', []).passed).toBe(false);
  });

  it('always includes a refusal guard and length bounds, even without preferences', () => {
    const { judge } = synthesizeJudge({ intent: 'explain the build', prompts: ['explain the build'], corrections: [] });
    expect(judge.checks.map((c) => c.op).sort()).toEqual(['max_chars', 'min_chars', 'no_refusal']);
  });
});
