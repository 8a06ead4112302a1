import { describe, it, expect } from 'vitest';
import { createSimBackend, simPersonaTasks } from '../../src/llm/sim/index.js';
import { personaIdealSkill, PERSONA_FAMILIES } from '../../src/llm/sim/persona.js';
import { perform } from '../../src/llm/sim/target.js';
import { concepts, isNegated, paraphrase, stem } from '../../src/llm/sim/semantics.js';
import { compliance, clutterFactor, guidanceLines, requirementOfCheck } from '../../src/llm/sim/guidance.js';
import { sampleRegex, regexAnchors } from '../../src/llm/sim/regex-sample.js';
import { Rng } from '../../src/llm/sim/rng.js';
import { scoreSkill } from '../../src/replay/index.js';
import { evaluateCheck } from '../../src/core/checks.js';
import type { Check, Task } from '../../src/core/records.js';

const tasks = simPersonaTasks(11, 40);
const byFamily = (key: string): Task[] => tasks.filter((t) => t.id && t.skillHint && t.judge.checks[0].id.startsWith(key));
const checkOf = (id: string): { task: Task; check: Check } => {
  const task = tasks.find((t) => t.judge.checks.some((c) => c.id === id)) as Task;
  return { task, check: task.judge.checks.find((c) => c.id === id) as Check };
};
const pOf = (id: string, skill: string): number => {
  const { task, check } = checkOf(id);
  return compliance(requirementOfCheck(check, task), guidanceLines(skill), clutterFactor(skill)).p;
};
const soft = async (content: string, ts: Task[] = tasks): Promise<number> => {
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

describe('sim target compliance', () => {
  it('relevant guidance raises compliance from a low base to a high rate', () => {
    expect(pOf('changelog-pr-ref', '')).toBeLessThan(0.2);
    expect(pOf('changelog-pr-ref', '- Reference the pull request number in parentheses after each item.')).toBeGreaterThan(0.9);
  });

  it('works by meaning: a paraphrase with different words is understood', () => {
    // none of these strings appear in the check; the concepts do
    expect(pOf('changelog-pr-ref', '- Cite the PR id in brackets after every bullet.')).toBeGreaterThan(0.9);
    expect(pOf('lint-root-cause', '- Always clarify the underlying reason in a Root cause header.')).toBeGreaterThan(0.85);
    expect(pOf('lint-no-disable', '- Do not suppress lint rules through eslint-disable comments.')).toBeGreaterThan(0.9);
    expect(pOf('changelog-category', '- Sort items into keepachangelog categories like Added/Fixed subheadings.')).toBeGreaterThan(0.8);
  });

  it('guidance about something else does not help, even with shared generic words', () => {
    const base = pOf('lint-root-cause', '');
    expect(pOf('lint-root-cause', '- Add a Highlights heading for the top features.')).toBeCloseTo(base, 5);
    expect(pOf('changelog-pr-ref', '- Prefer tabs over spaces when editing YAML files.')).toBeCloseTo(pOf('changelog-pr-ref', ''), 5);
  });

  it('contradicting guidance lowers compliance below the base rate', () => {
    expect(pOf('lint-no-disable', '')).toBeGreaterThan(0.3);
    expect(pOf('lint-no-disable', '- It is fine to silence rules with eslint-disable comments.')).toBeLessThan(0.1);
    expect(pOf('release-highlights', '- Do not add a Highlights section.')).toBeLessThan(pOf('release-highlights', ''));
  });

  it('sealed checks respond to guidance too (e.g. a rule derived from a user correction)', () => {
    const { check } = checkOf('changelog-no-emoji');
    expect(check.sealed).toBe(true);
    expect(pOf('changelog-no-emoji', '- Keep changelog entries plain: never use emoji.')).toBeGreaterThan(0.9);
    expect(pOf('changelog-no-emoji', '')).toBeLessThan(0.6);
  });

  it('long cluttered skills lower compliance a little, not a lot', () => {
    const rule = '- Reference the pull request number in parentheses after each item.';
    const clutter = Array.from({ length: 120 }, (_, i) => `- Style note ${i}: prefer calm wording in prose paragraphs.`).join('\n');
    const clean = pOf('changelog-pr-ref', rule);
    const cluttered = pOf('changelog-pr-ref', `${rule}\n${clutter}`);
    expect(cluttered).toBeLessThan(clean);
    expect(cluttered).toBeGreaterThan(clean * 0.8);
  });

  it('writes replies that really pass or fail each check, as decided', () => {
    const sim = (skill: string, task: Task, sample: number) => perform({ task, skill: { name: 's', content: skill }, sample }, 3, `h${sample}`);
    let agree = 0;
    let total = 0;
    for (const task of tasks.slice(0, 20)) {
      for (const skill of ['', personaIdealSkill()]) {
        const r = sim(skill, task, 0);
        for (const t of r.trace) {
          const check = task.judge.checks.find((c) => c.id === t.id) as Check;
          const judged = evaluateCheck(check, r.text, r.toolsCalled).passed;
          total++;
          if (judged === t.comply) agree++;
        }
      }
    }
    // interactions between checks (e.g. a required heading that happens to satisfy another check) are rare
    expect(agree / total).toBeGreaterThan(0.95);
  });

  it('is deterministic per seed and varies across seeds and samples', () => {
    const task = tasks[0];
    const a = perform({ task, skill: { name: 's', content: '' }, sample: 0 }, 1, 'x');
    const b = perform({ task, skill: { name: 's', content: '' }, sample: 0 }, 1, 'x');
    expect(a).toEqual(b);
    const variants = new Set(Array.from({ length: 12 }, (_, s) => perform({ task, skill: { name: 's', content: '' }, sample: s }, 1, `x${s}`).text));
    expect(variants.size).toBeGreaterThan(1);
  });
});

describe('sim persona', () => {
  it('has several distinct rules per family, tasks in every split, stable ids', () => {
    expect(PERSONA_FAMILIES.length).toBeGreaterThanOrEqual(5);
    for (const f of PERSONA_FAMILIES) expect(byFamily(f).length).toBeGreaterThan(0);
    for (const t of tasks) expect(t.judge.checks.length).toBeGreaterThanOrEqual(3);
    const splits = new Set(tasks.map((t) => t.split));
    expect(splits).toEqual(new Set(['train', 'val', 'test']));
    expect(simPersonaTasks(11, 40).map((t) => t.id)).toEqual(tasks.map((t) => t.id));
    expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
  });

  it('a skill with the relevant guidance scores clearly higher than the empty skill', async () => {
    const empty = await soft('');
    const ideal = await soft(personaIdealSkill());
    expect(empty).toBeLessThan(0.45);
    expect(ideal).toBeGreaterThan(0.85);
    // one family's rules only help that family
    const partial = await soft(`# Conventions\n- Explain the root cause under a Root cause heading.\n- Never silence rules with eslint-disable comments.`);
    expect(partial).toBeGreaterThan(empty);
    expect(partial).toBeLessThan(ideal);
  });

  it('paraphrased guidance scores like the original wording', async () => {
    const paraphrased = [
      '# How I like things',
      '- Changelog: new items go below an Unreleased header; sort them into keepachangelog subheadings (Added, Fixed...); cite the PR id in brackets.',
      '- Tests: require describe/it/expect from vitest explicitly; table-driven it.each cases for input variants; wrap cases in a describe block named for the function; never jest APIs.',
      '- Lint fixes: clarify the root cause in a Root cause header; do not suppress rules through eslint-disable comments; execute the linter in the shell to confirm; keep replies brief, at most 900 characters.',
      '- Release notes: begin with a title line "# Release vX.Y.Z"; a Highlights heading for top features; breaking changes with migration steps under a Breaking changes header; a fenced JSON block for the bot.',
      '- Commits: Conventional Commits type prefix (feat:, fix:); DCO Signed-off-by trailer at the end; commit messages concise.',
    ].join('\n');
    const empty = await soft('');
    const ideal = await soft(personaIdealSkill());
    const para = await soft(paraphrased);
    expect(para).toBeGreaterThan(empty + 0.35);
    expect(para).toBeGreaterThan(ideal - 0.12);
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

describe('sim persona with the rubric family', () => {
  it('is judged through the judge role, and its guidance helps', async () => {
    const ts = simPersonaTasks(4, 12, { families: ['pr-summary'] });
    expect(ts.every((t) => t.judge.reference.kind === 'rubric')).toBe(true);
    const target = createSimBackend({ seed: 2 });
    const judge = createSimBackend({ seed: 2, role: 'judge' });
    const run = (content: string) => scoreSkill({ tasks: ts, skill: { name: 's', content }, target, judge, metric: 'soft' });
    const empty = await run('');
    const ideal = await run(personaIdealSkill({ includeRubric: true }));
    expect(judge.calls.judge_rubric).toBe(24);
    expect(ideal.mean).toBeGreaterThan(empty.mean + 0.3);
    expect(empty.rollouts.some((r) => /Rubric \(\d\.\d\d\): Missing:/.test(r.feedback))).toBe(true);
    expect(simPersonaTasks(4, 12).some((t) => t.judge.reference.kind === 'rubric')).toBe(false);
  });
});
