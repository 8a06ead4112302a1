import { describe, it, expect } from 'vitest';
import { createSimBackend } from '../../src/llm/sim/index.js';
import { personaIdealSkill, personaVisibleChecksSkill, personaCorrectionsSkill, personaWorld, PERSONA_FAMILIES, simPersonaTasks } from '../../bench/persona.js';
import { perform, dilution } from '../../src/llm/sim/target.js';
import { parseSkill } from '../../src/llm/sim/skill-rules.js';
import { jobOfAsk, jobsNamed } from '../../src/llm/sim/jobs.js';
import { concepts, isNegated, paraphrase, stem } from '../../src/llm/sim/semantics.js';
import { sampleRegex, regexAnchors } from '../../src/llm/sim/regex-sample.js';
import { Rng } from '../../src/llm/sim/rng.js';
import { scoreSkill } from '../../src/replay/index.js';
import { buildPerformRequest } from '../../src/replay/rollout.js';
import { evaluateCheck } from '../../src/core/checks.js';
import type { Check, Task } from '../../src/core/records.js';
import type { PerformPayload } from '../../src/core/protocol.js';

const world = personaWorld(11, { train: 16, val: 24, test: 48 });
const changelogAsk = { intent: 'Write the CHANGELOG.md entry for this change: drop Node 18 support (PR #512).', context: 'The repository keeps a CHANGELOG.md at the root. Package: logpipe.' };
const unreleased: Check = { id: 'u', op: 'section_present', value: 'Unreleased', weight: 1, sealed: false };
const passRate = (check: Check, content: string, ask = changelogAsk, n = 40): number =>
  Array.from({ length: n }, (_, sample) => {
    const r = perform({ ...ask, skill: { name: 's', content }, sample }, 3);
    return evaluateCheck(check, r.text, r.toolsCalled).passed;
  }).filter(Boolean).length / n;
const soft = async (content: string, ts: Task[]): Promise<number> => {
  const sim = createSimBackend({ seed: 5 });
  return (await scoreSkill({ tasks: ts, skill: { name: 'conventions', content }, target: sim, judge: sim, metric: 'soft' })).mean;
};

describe('sim semantics', () => {
  it('folds phrases, stems and synonyms into shared concepts', () => {
    expect([...concepts('Keep a Changelog format')]).toContain('keepachangelog');
    expect([...concepts('keepachangelog style')]).toContain('keepachangelog');
    const a = concepts('Reference the pull request URL');
    const b = concepts('link the PR');
    expect([...a].sort()).toEqual([...b].sort());
    expect(stem('tests')).toBe(stem('testing'));
    expect(concepts('the and must always')).toEqual(new Set());
  });

  it('tracks polarity, with double negation as positive', () => {
    expect(isNegated('Never use emojis')).toBe(true);
    expect(isNegated("Don't forget to link the PR")).toBe(false);
    expect(isNegated('Never omit the date')).toBe(false);
    expect(isNegated('Link the PR')).toBe(false);
  });

  it('paraphrase keeps the meaning but changes the words, and never touches quoted literals', () => {
    const text = 'Reference the pull request number and explain the root cause under a `## Root cause` heading';
    const outs = new Set(Array.from({ length: 8 }, (_, i) => paraphrase(text, new Rng('p', i))));
    expect(outs.size).toBeGreaterThan(1);
    for (const o of outs) {
      expect([...concepts(o)].sort()).toEqual([...concepts(text)].sort());
      expect(o).toContain('`## Root cause`');
    }
  });
});

describe('the sim target knows only what the prompt says', () => {
  it('the perform payload carries no more than the rendered prompt: intent, context, skill, sample', () => {
    const task = world.test[0];
    const req = buildPerformRequest(task, { name: 'conventions', content: '- Keep it short.' }, 2);
    expect(Object.keys(req.payload).sort()).toEqual(['context', 'intent', 'sample', 'skill']);
    expect(req.prompt).toContain(req.payload.intent);
    expect(req.prompt).toContain(req.payload.context);
    expect(req.system).toContain(req.payload.skill.content);
    // nothing of the judge: no check value, sealed or not, reaches the target
    const json = JSON.stringify(req.payload);
    for (const c of task.judge.checks) if (typeof c.value === 'string' && c.value.length > 3) expect(json).not.toContain(c.value);
  });

  it('the reply is the same from the payload as from its prompt-visible fields, and checks cannot move it', async () => {
    const task = world.test[0];
    const skill = { name: 's', content: personaIdealSkill() };
    const req = buildPerformRequest(task, skill, 1);
    const stripped: PerformPayload = { intent: req.payload.intent, context: req.payload.context, skill: req.payload.skill, sample: req.payload.sample };
    expect(perform(stripped, 4)).toEqual(perform(req.payload, 4));
    const sim = createSimBackend({ seed: 4 });
    const other = { ...task, id: 'another', judge: { checks: [{ ...unreleased, sealed: true }], reference: { kind: 'rule' as const } } };
    const a = await sim.complete(buildPerformRequest(task, skill, 1));
    const b = await sim.complete(buildPerformRequest(other, skill, 1));
    expect(b.text).toBe(a.text);
  });

  it('a skill with the wrong literal fails the check: "Upcoming" is not "Unreleased"', () => {
    expect(passRate(unreleased, '## Changelog entries\n- Put new entries under an `## Upcoming` heading at the top.')).toBe(0);
    expect(passRate(unreleased, '## Changelog entries\n- Put new entries under an `## [Unreleased]` heading at the top.')).toBeGreaterThan(0.85);
    expect(passRate(unreleased, '')).toBe(0);
    // a 10x wrong length limit is followed as written
    const limit: Check = { id: 'm', op: 'max_chars', value: 40, weight: 1, sealed: false };
    expect(passRate(limit, '- Keep changelog entries under 400 characters.')).toBe(0);
    expect(passRate(limit, '- Keep changelog entries under 40 characters.')).toBeGreaterThan(0.85);
  });

  it('a rule that names a job applies to that job; an unscoped rule applies to every job', () => {
    const prefix: Check = { id: 'p', op: 'starts_with', value: 'Fix:', weight: 1, sealed: false };
    const scopedRule = '## Bug fix reports\n- Start the reply with `Fix:`.';
    expect(passRate(prefix, scopedRule)).toBe(0);
    expect(passRate(prefix, scopedRule, { intent: 'Fix the bug reported in issue #12: the cache is broken.', context: '' })).toBeGreaterThan(0.8);
    expect(passRate(prefix, '- Start the reply with `Fix:`.')).toBeGreaterThan(0.8);
    expect(parseSkill(scopedRule).rules[0].scope).toEqual(['bugfix']);
    expect(parseSkill('- For commit messages: keep it short.').rules[0]?.scope ?? ['commit']).toEqual(['commit']);
  });

  it('recognises a unit-test ask that names no "unit test" ("test parseAmount properly", "it has no tests yet")', () => {
    expect(jobOfAsk('test parseAmount properly, the edge cases matter')).toBe('tests');
    expect(jobOfAsk('parseAmount has no tests yet, add some')).toBe('tests');
    // a rule or an ask about another job keeps its job
    expect(jobOfAsk('write the commit message for the test fixes')).toBe('commit');
    expect(jobsNamed('Keep commit messages under 300 characters.')).toEqual(['commit']);
  });

  it('compliance falls as the skill grows (dilution)', () => {
    expect(dilution(100)).toBe(1);
    expect(dilution(1500)).toBeLessThan(0.65);
    const rule = '- Put new changelog entries under an `## [Unreleased]` heading at the top.';
    const bloat = Array.from({ length: 120 }, (_, i) => `- Style note ${i}: prefer calm wording in prose paragraphs.`).join('\n');
    expect(passRate(unreleased, `${rule}\n${bloat}`, changelogAsk, 80)).toBeLessThan(passRate(unreleased, rule, changelogAsk, 80) - 0.15);
  });

  it('conflicting rules resolve like a model: one wins, or neither', () => {
    const a: Check = { id: 'a', op: 'starts_with', value: 'feat:', weight: 1, sealed: false };
    const b: Check = { id: 'b', op: 'starts_with', value: 'Update -', weight: 1, sealed: false };
    const ask = { intent: 'Write the git commit message for: drop Node 18 support.', context: '' };
    const skill = '- Start commit messages with `feat:`.\n- Start commit messages with `Update -`.';
    const ra = passRate(a, skill, ask, 80);
    const rb = passRate(b, skill, ask, 80);
    expect(ra).toBeGreaterThan(0.2);
    expect(rb).toBeGreaterThan(0.2);
    expect(ra + rb).toBeLessThan(1);
  });

  it('draws are independent per evaluated skill unless paired draws are asked for', () => {
    const base = '- Put new changelog entries under an `## [Unreleased]` heading at the top.';
    const variant = `${base}\n- Prefer tabs over spaces in YAML.`;
    const outcome = (content: string, paired: boolean) =>
      Array.from({ length: 60 }, (_, sample) => evaluateCheck(unreleased, perform({ ...changelogAsk, skill: { name: 's', content }, sample }, 9, { pairedDraws: paired }).text, []).passed);
    const differ = (paired: boolean) => outcome(base, paired).filter((x, i) => x !== outcome(variant, paired)[i]).length;
    expect(differ(true)).toBe(0);
    expect(differ(false)).toBeGreaterThan(0);
  });

  it('untrained habits violate the persona: the empty skill writes emoji, jest.fn and WIP', () => {
    const emoji: Check = { id: 'e', op: 'not_contains', value: '🎉', weight: 1, sealed: false };
    expect(passRate(emoji, '')).toBeLessThan(0.4);
    // a plain request is followed less reliably than a precise rule with an example (DEFAULT_COMPLIANCE)
    expect(passRate(emoji, '- please no emojis in the changelog, keep it plain')).toBeGreaterThan(0.7);
    expect(passRate(emoji, '- Never put emoji such as `🎉` in changelog entries.')).toBeGreaterThan(0.85);
  });
});

describe('sim persona world', () => {
  it('has at least 8 jobs, ≥ 20 val and ≥ 40 test instances, and stricter test verifiers', () => {
    expect(PERSONA_FAMILIES.length).toBeGreaterThanOrEqual(8);
    expect(world.val.length).toBeGreaterThanOrEqual(20);
    expect(world.test.length).toBeGreaterThanOrEqual(40);
    // test checks carry the instance's own values (e.g. its PR number) and every correction
    const cl = world.test.find((t) => t.intent.includes('CHANGELOG')) as Task;
    const pr = /PR #(\d+)/.exec(cl.intent)?.[1];
    expect(cl.judge.checks.some((c) => c.value === `(#${pr})`)).toBe(true);
    expect(cl.judge.checks.some((c) => c.id === 'changelog-no-emoji')).toBe(true);
    // train/val see correction-only preferences only as the user's quoted words, in a rubric
    const tv = world.val.find((t) => t.intent.includes('CHANGELOG')) as Task;
    expect(tv.judge.checks.some((c) => c.id === 'changelog-no-emoji')).toBe(false);
    expect(tv.judge.reference.kind === 'rubric' && tv.judge.reference.rubric).toMatch(/no emojis/);
    expect(new Set([...world.train, ...world.val, ...world.test].map((t) => t.id)).size).toBe(16 + 24 + 48);
    expect(simPersonaTasks(11, 40).map((t) => t.id)).toEqual(simPersonaTasks(11, 40).map((t) => t.id));
  });

  it('instance-valued world: a train/val instance check carries its own session\'s value, which the target never sees', () => {
    const valued = personaWorld(11, { train: 16, val: 24, test: 8 }, { instanceChecks: 'valued' });
    const seen = [...valued.train, ...valued.val];
    const refs = seen.filter((t) => t.family === 'changelog').map((t) => ({ pr: /PR #(\d+)/.exec(t.intent)?.[1], check: t.judge.checks.find((c) => c.id === 'changelog-pr-ref') as Check }));
    expect(refs.length).toBeGreaterThan(2);
    for (const r of refs) {
      expect(r.check).toMatchObject({ op: 'contains', value: `(#${r.pr})`, sealed: false });
      expect(r.check.description).toContain(`\`(#${r.pr})\``);
    }
    // the generic world keeps the shape check under one description
    expect(world.train.find((t) => t.family === 'changelog')?.judge.checks.find((c) => c.id === 'changelog-pr-ref')?.op).toBe('regex');
    // nothing of the judge reaches the target: no check value, valued or not, is in the perform payload
    for (const t of seen) {
      const json = JSON.stringify(buildPerformRequest(t, { name: 'c', content: '- Keep it short.' }, 0).payload);
      for (const c of t.judge.checks) if (typeof c.value === 'string' && c.value.length > 3) expect(json, c.id).not.toContain(c.value);
    }
    // a notepad pastes every distinct description, values included; the one-per-check notepad keeps one
    const all = personaVisibleChecksSkill(seen);
    const one = personaVisibleChecksSkill(seen, { onePerCheck: true });
    for (const r of refs) expect(all).toContain(`(#${r.pr})`);
    expect(one.match(/\(#\d+\)/g)).toHaveLength(1);
    expect(personaVisibleChecksSkill(world.train)).toBe(personaVisibleChecksSkill());
  });

  it('the target follows a pasted instance value literally and the ask\'s value only for a placeholder or an example', () => {
    const other = { intent: 'Write the CHANGELOG.md entry for this change: drop Node 18 support (PR #777).', context: 'Package: logpipe.' };
    const strict: Check = { id: 'ref', op: 'contains', value: '(#777)', weight: 1, sealed: true };
    const pasted = '## Changelog entries\n- Reference the pull request in parentheses after each changelog item: `(#412)`.';
    const placeholder = '## Changelog entries\n- Reference the pull request in parentheses after each changelog item: `(#<number>)`.';
    const example = '## Changelog entries\n- Reference the pull request number in parentheses after each item, e.g. `(#123)`.';
    expect(passRate(strict, pasted, other)).toBe(0);
    expect(passRate({ ...strict, value: '(#412)' }, pasted, other)).toBeGreaterThan(0.85);
    expect(passRate(strict, placeholder, other)).toBeGreaterThan(0.85);
    expect(passRate(strict, example, other)).toBeGreaterThan(0.85);
    // a pasted function name is a literal too: the describe block names the train instance's function
    const testsAsk = { intent: 'Write unit tests with vitest for the `slugify` function in src/slug.ts.', context: 'src/slug.ts exports slugify(input).' };
    const describeCheck: Check = { id: 'd', op: 'contains', value: "describe('slugify'", weight: 1, sealed: true };
    expect(passRate(describeCheck, "## Unit tests\n- Wrap the unit test cases in a `describe('debounce', () => {` block.", testsAsk)).toBe(0);
    expect(passRate(describeCheck, "## Unit tests\n- Wrap the cases in a `describe('<function>')` block named after the function.", testsAsk)).toBeGreaterThan(0.85);
  });

  it('empty < corrections-verbatim < visible-checks-verbatim < oracle on test', async () => {
    const empty = await soft('', world.test);
    const corrections = await soft(personaCorrectionsSkill(), world.test);
    const verbatim = await soft(personaVisibleChecksSkill(), world.test);
    const oracle = await soft(personaIdealSkill(), world.test);
    expect(empty).toBeLessThan(0.2);
    expect(corrections).toBeGreaterThan(empty + 0.1);
    expect(verbatim).toBeGreaterThan(corrections);
    expect(oracle).toBeGreaterThan(verbatim + 0.1);
    expect(oracle).toBeGreaterThan(0.85);
  });
});

describe('regex sampler', () => {
  const cases: Array<[string, string]> = [
    ['^### (Added|Changed|Fixed|Removed)', 'm'],
    ['\\(#\\d+\\)', ''],
    ['^(feat|fix|docs)(\\([a-z-]+\\))?: \\S', ''],
    ['Signed-off-by: \\S+ <\\S+@\\S+>', ''],
    ['[A-Z]{3}-\\d{2,4}', ''],
    ['v\\d+\\.\\d+\\.\\d+$', ''],
    ['(?:foo|bar)+baz?', 'i'],
    ['[^\\s]+@example\\.com', ''],
    ['\\bTODO\\b', ''],
  ];
  it.each(cases)('samples a string matching /%s/%s', (pattern, flags) => {
    const s = sampleRegex(pattern, flags, new Rng('re', pattern));
    expect(s).not.toBeNull();
    expect(new RegExp(pattern, flags).test(s as string)).toBe(true);
  });
  it('reports anchors that pin the sample to the reply start or end', () => {
    expect(regexAnchors('^feat', '')).toEqual({ start: true, end: false });
    expect(regexAnchors('^feat', 'm')).toEqual({ start: false, end: false });
    expect(regexAnchors('done$', '')).toEqual({ start: false, end: true });
    expect(regexAnchors('cost \\$', '')).toEqual({ start: false, end: false });
  });
  it('gives up (null) on what it cannot produce, e.g. backreferences', () => {
    expect(sampleRegex('(a)b\\1', '', new Rng('x'))).toBeNull();
  });
});

