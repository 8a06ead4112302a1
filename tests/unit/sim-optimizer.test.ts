import { describe, it, expect } from 'vitest';
import { createSimBackend } from '../../src/llm/sim/index.js';
import { simPersonaTasks } from '../../bench/persona.js';
import { IRRELEVANT_GUIDANCE } from '../../src/llm/sim/reflect.js';
import {
  ReflectReply,
  MergeReply,
  RankReply,
  LrBudgetReply,
  SlowUpdateReply,
  MetaSkillReply,
  JudgeRubricReply,
  MineTaskReply,
  type Backend,
  type LlmRequest,
  type Operation,
  type PayloadFor,
  type RolloutDigest,
} from '../../src/core/protocol.js';
import { EditSchema, CheckSchema, type Edit } from '../../src/core/records.js';
import { rolloutBatch, scoreSkill, validateCheck } from '../../src/replay/index.js';
import { completeJson } from '../../src/llm/json.js';
import { concepts, jaccard } from '../../src/llm/sim/semantics.js';
import { SleepError } from '../../src/core/errors.js';

const tasks = simPersonaTasks(3, 30);
const train = tasks.filter((t) => t.split !== 'test');
// paired draws: these tests compare skills, not the target's sampling noise
const target = createSimBackend({ seed: 9, pairedDraws: true });

function req<O extends Operation>(operation: O, payload: PayloadFor[O], prompt = 'p'): LlmRequest<O> {
  return { role: operation === 'perform' ? 'target' : operation === 'judge_rubric' ? 'judge' : 'optimizer', operation, prompt, payload };
}

async function failures(skill = ''): Promise<RolloutDigest[]> {
  const rs = await rolloutBatch({ tasks: train, skill: { name: 's', content: skill }, target, judge: target });
  return rs
    .filter((r) => r.hardScore < 1)
    .map((r) => ({ taskId: r.taskId, intent: train.find((t) => t.id === r.taskId)?.intent ?? '', response: r.response, score: r.softScore, passed: false, feedback: r.feedback }));
}

async function reflectWith(backend: Backend, skill: string, rollouts: RolloutDigest[], extra: Partial<PayloadFor['reflect']> = {}): Promise<Edit[]> {
  const reply = await backend.complete(req('reflect', { skill, mode: 'failures', rollouts, rejectedEdits: [], metaSkill: '', maxEdits: 4, ...extra }));
  return ReflectReply.parse(JSON.parse(reply.text)).edits;
}

function applyEdits(skill: string, edits: Edit[]): string {
  let s = skill;
  for (const e of edits) {
    if (e.op === 'add') s = `${s}${s && !s.endsWith('\n') ? '\n' : ''}${e.content}\n`;
    else if (e.anchor && s.includes(e.anchor)) s = s.replace(e.anchor, e.op === 'replace' ? e.content : '');
  }
  return s;
}

const score = async (content: string): Promise<number> =>
  (await scoreSkill({ tasks: train, skill: { name: 's', content }, target, judge: target, metric: 'soft' })).mean;

describe('sim optimizer: reflect', () => {
  it('turns failure feedback into at most maxEdits edits, in its own words, that help', async () => {
    const rollouts = await failures();
    const opt = createSimBackend({ seed: 9 });
    const edits = await reflectWith(opt, '', rollouts, { maxEdits: 3 });
    expect(edits.length).toBe(3);
    for (const e of edits) {
      expect(EditSchema.safeParse(e).success).toBe(true);
      expect(e.evidence.length).toBeGreaterThan(0);
      expect(e.rationale).not.toBe('');
      // not a copy of any check description: reworded or concretised
      const descriptions = tasks.flatMap((t) => t.judge.checks.map((c) => c.description ?? ''));
      expect(descriptions.some((d) => e.content.includes(d))).toBe(false);
    }
    const before = await score('');
    const after = await score(applyEdits('', edits));
    expect(after).toBeGreaterThan(before + 0.05);
  });

  it('never leaks sealed checks: no edit addresses them from feedback', async () => {
    // test instances are judged by sealed strict verifiers only: their failures say nothing
    const sealed = tasks.filter((t) => t.split === 'test');
    expect(sealed.every((t) => t.judge.checks.every((c) => c.sealed))).toBe(true);
    const rs = await rolloutBatch({ tasks: sealed, skill: { name: 's', content: '' }, target, judge: target });
    const rollouts = rs.map((r) => ({ taskId: r.taskId, intent: '', response: r.response, score: r.softScore, passed: false, feedback: r.feedback }));
    expect(rollouts.every((r) => r.feedback === '')).toBe(true);
    const edits = await reflectWith(createSimBackend({ seed: 9 }), '', rollouts, { maxEdits: 30 });
    expect(edits).toEqual([]);
  });

  it('does not re-propose edits from the rejected-edit buffer', async () => {
    const rollouts = await failures();
    const opt = createSimBackend({ seed: 9 });
    const first = await reflectWith(opt, '', rollouts, { maxEdits: 4 });
    const rejectedEdits = first.map((e) => ({ op: e.op, anchor: e.anchor, content: e.content, scoreDrop: 0.05, source: 'gate' as const }));
    const second = await reflectWith(opt, '', rollouts, { maxEdits: 4, rejectedEdits });
    expect(second.length).toBeGreaterThan(0);
    for (const e of second) {
      for (const r of first) expect(jaccard(concepts(e.content), concepts(r.content))).toBeLessThan(0.8);
    }
  });

  it('with harmfulEditRate 1 proposes contradictions or deletions that lower the score', async () => {
    // over a few optimizer seeds: one draw may hit a rule no train task needs (a harmless deletion)
    const drops: number[] = [];
    for (const seed of [7, 8, 9, 10]) {
      const good = applyEdits('', await reflectWith(createSimBackend({ seed }), '', await failures(), { maxEdits: 6 }));
      const rollouts = await failures(good);
      const harmful = await reflectWith(createSimBackend({ seed, harmfulEditRate: 1 }), good, rollouts, { maxEdits: 4 });
      expect(harmful.length).toBeGreaterThan(0);
      for (const e of harmful) {
        const isDeleteOfRule = e.op === 'delete' && !!e.anchor && good.includes(e.anchor);
        const isContradiction = e.op === 'add' && /^- (Do not|It is fine to)\b/.test(e.content);
        expect(isDeleteOfRule || isContradiction).toBe(true);
      }
      drops.push((await score(good)) - (await score(applyEdits(good, harmful))));
    }
    expect(drops.filter((d) => d > 0).length).toBeGreaterThanOrEqual(3);
    expect(drops.reduce((a, b) => a + b, 0) / drops.length).toBeGreaterThan(0.03);
  });

  it('with irrelevantEditRate 1 proposes clutter that does not help', async () => {
    const rollouts = await failures();
    const edits = await reflectWith(createSimBackend({ seed: 9, irrelevantEditRate: 1 }), '', rollouts, { maxEdits: 4 });
    expect(edits.length).toBeGreaterThan(0);
    for (const e of edits) expect(IRRELEVANT_GUIDANCE).toContain(e.content.replace(/^- /, ''));
    expect(await score(applyEdits('', edits))).toBeLessThanOrEqual(await score(''));
  });

  it('with malformedJsonRate 1 replies text that is not valid JSON, and the repair path gives a typed error', async () => {
    const opt = createSimBackend({ seed: 9, malformedJsonRate: 1 });
    const payload: PayloadFor['reflect'] = { skill: '', mode: 'failures', rollouts: await failures(), rejectedEdits: [], metaSkill: '', maxEdits: 2 };
    const reply = await opt.complete(req('reflect', payload));
    expect(() => ReflectReply.parse(JSON.parse(reply.text))).toThrow();
    // a trailing comma is repaired (jsonrepair in json.ts); a cut-off object or prose is a typed error
    const out = await completeJson(opt, req('reflect', payload), ReflectReply).catch((e: unknown) => e);
    if (/,\s*\}\s*$/.test(reply.text)) expect(out).toMatchObject({ value: { edits: expect.any(Array) } });
    else expect(out).toMatchObject({ code: 'BACKEND_BAD_REPLY' });
  });

  it('a partly malformed optimizer recovers on the repair attempt (fresh draw per prompt)', async () => {
    const opt = createSimBackend({ seed: 9, malformedJsonRate: 0.5 });
    const rollouts = await failures();
    let direct = 0;
    let repaired = 0;
    for (let k = 0; k < 20; k++) {
      const payload: PayloadFor['reflect'] = { skill: `# v${k}`, mode: 'failures', rollouts, rejectedEdits: [], metaSkill: '', maxEdits: 2 };
      const r = await completeJson(opt, req('reflect', payload), ReflectReply).catch(() => null);
      if (r?.replies.length === 1) direct++;
      else if (r) repaired++;
    }
    expect(direct).toBeGreaterThan(3);
    expect(repaired).toBeGreaterThan(0);
  });

  it('turns rubric critiques into guidance too', async () => {
    const digest: RolloutDigest = { taskId: 'r1', intent: 'Summarize the PR', response: 'x', score: 0.3, passed: false, feedback: 'Rubric (0.33): Missing: States the risk level of the change; Names the files touched' };
    const edits = await reflectWith(createSimBackend({ seed: 1 }), '', [digest, { ...digest, taskId: 'r2' }]);
    const said = concepts(edits.map((e) => e.content).join(' '));
    expect([...said]).toEqual(expect.arrayContaining(['risk', 'level', 'file', 'touch']));
    expect(edits.every((e) => e.evidence.includes('r1') && e.evidence.includes('r2'))).toBe(true);
  });

  it('success-mode reflection codifies structure the passing replies share', async () => {
    const digest = (id: string, response: string): RolloutDigest => ({ taskId: id, intent: 'x', response, score: 1, passed: true, feedback: '' });
    const edits = await reflectWith(createSimBackend({ seed: 1 }), '', [digest('a', 'Intro\n## Compatibility\n- node 20'), digest('b', '## Compatibility\nok')], { mode: 'successes' });
    expect(edits).toHaveLength(1);
    expect(edits[0].content).toContain('## Compatibility');
    expect(edits[0].evidence).toEqual(['a', 'b']);
  });
});

describe('sim optimizer: other operations', () => {
  const opt = createSimBackend({ seed: 4 });
  const e = (content: string, evidence: string[], op: Edit['op'] = 'add', anchor?: string): Edit => ({ op, content, anchor, rationale: 'r', evidence });

  it('merge dedupes by meaning, merges evidence, caps at maxEdits', async () => {
    const reply = await opt.complete(
      req('merge', {
        skill: '',
        maxEdits: 2,
        patches: [
          [e('- Reference the pull request number after each item.', ['t1']), e('- Prefer tabs in YAML.', ['t9'])],
          [e('- Link the PR number after each item.', ['t2', 't3'])],
          [e('- Add a Root cause heading.', ['t4'])],
        ],
      }),
    );
    const { edits } = MergeReply.parse(JSON.parse(reply.text));
    expect(edits).toHaveLength(2);
    expect(edits[0].evidence.sort()).toEqual(['t1', 't2', 't3']);
  });

  it('rank orders by support, deletions later', async () => {
    const reply = await opt.complete(req('rank', { skill: '', budget: 2, edits: [e('a b', ['1']), e('c d', ['1', '2', '3']), e('', ['1', '2'], 'delete', 'x'), e('e f', ['1', '2'])] }));
    expect(RankReply.parse(JSON.parse(reply.text)).order).toEqual([1, 3, 2, 0]);
  });

  it('lr_budget stays within bounds and the candidate count', async () => {
    for (const [step, rate, cands] of [
      [1, 1, 10],
      [8, 0, 10],
      [4, 0.5, 1],
    ] as const) {
      const reply = await opt.complete(req('lr_budget', { skill: '', step, totalSteps: 8, min: 1, max: 6, recentAcceptRate: rate, candidateEdits: cands }));
      const { budget, reason } = LrBudgetReply.parse(JSON.parse(reply.text));
      expect(budget).toBeGreaterThanOrEqual(1);
      expect(budget).toBeLessThanOrEqual(Math.min(6, Math.max(1, cands)));
      expect(reason).toMatch(/step/);
    }
    const early = LrBudgetReply.parse(JSON.parse((await opt.complete(req('lr_budget', { skill: '', step: 1, totalSteps: 8, min: 1, max: 6, recentAcceptRate: 1, candidateEdits: 10 }))).text));
    const late = LrBudgetReply.parse(JSON.parse((await opt.complete(req('lr_budget', { skill: '', step: 8, totalSteps: 8, min: 1, max: 6, recentAcceptRate: 0, candidateEdits: 10 }))).text));
    expect(early.budget).toBeGreaterThan(late.budget);
  });

  it('slow_update writes bounded longitudinal notes without copying rules into the protected block', async () => {
    const reply = await opt.complete(
      req('slow_update', {
        skillBefore: '# S\n',
        skillAfter: '# S\n- Reference the pull request number after each item.\n- Explain the root cause under a Root cause heading.\n',
        currentGuidance: '',
        perTask: [
          { taskId: 'a', intent: 'x', before: 0, after: 1, status: 'improved' },
          { taskId: 'b', intent: 'y', before: 0, after: 0, status: 'still_failing' },
        ],
      }),
    );
    const { guidance } = SlowUpdateReply.parse(JSON.parse(reply.text));
    expect(guidance.split('\n').length).toBeLessThanOrEqual(8);
    expect(guidance).toMatch(/2 rule\(s\) were added/);
    expect(guidance).toMatch(/Still failing: .*y/);
    expect(guidance).toMatch(/1 task\(s\) improved/);
    expect([...concepts(guidance)]).not.toContain('rootcause');
    const next = await opt.complete(
      req('slow_update', { skillBefore: '', skillAfter: '', currentGuidance: `- Keep answers in English.\n${guidance}`, perTask: [] }),
    );
    const later = SlowUpdateReply.parse(JSON.parse(next.text)).guidance;
    expect(later).toContain('- Keep answers in English.');
    expect(later.match(/Epoch review/g)).toHaveLength(1);
  });

  it('meta_skill records what worked and what to avoid', async () => {
    const reply = await opt.complete(
      req('meta_skill', {
        previousMeta: 'Old note.',
        epoch: 2,
        accepted: [e('- Add a Root cause heading.', ['t'])],
        rejected: [{ ...e('', ['t'], 'delete', '- Useful rule.'), scoreDrop: 0.1 }],
        valBefore: 0.4,
        valAfter: 0.6,
      }),
    );
    const { meta } = MetaSkillReply.parse(JSON.parse(reply.text));
    expect(meta).toContain('Old note.');
    expect(meta).toMatch(/Worked: add: Add a Root cause heading/);
    expect(meta).toMatch(/Avoid: delete: Useful rule/);
  });

  it('judge_rubric grades by concept coverage with feedback on what is missing', async () => {
    const rubric = '- Mentions the risk level.\n- Lists the files touched.\n- Suggests how to test the change.';
    const good = await opt.complete(req('judge_rubric', { rubric, intent: 'Summarize the PR', response: 'Risk level: low. Files touched: a.ts, b.ts. To test, run the test suite.' }));
    const weak = await opt.complete(req('judge_rubric', { rubric, intent: 'Summarize the PR', response: 'Risk level: low.' }));
    const g = JudgeRubricReply.parse(JSON.parse(good.text));
    const w = JudgeRubricReply.parse(JSON.parse(weak.text));
    expect(g.score).toBe(1);
    expect(w.score).toBeCloseTo(1 / 3, 2);
    expect(w.feedback).toMatch(/Missing: Lists the files touched; Suggests how to test the change/);
  });

  it('mine_task turns prompts and corrections into an intent and valid checks', async () => {
    const reply = await opt.complete(
      req('mine_task', {
        prompts: ['write the changelog entry for the retry fix', 'add a changelog entry for the cache change', 'changelog entry for the new flag please'],
        corrections: ['no, put it under an "Unreleased" section', "don't use emojis like '🎉'", 'too long, make it shorter', 'run the tests first'],
        project: '/p',
      }),
    );
    const mined = MineTaskReply.parse(JSON.parse(reply.text));
    expect(mined.intent).toMatch(/changelog entry/);
    const checks = mined.checks.map((c, i) => CheckSchema.parse({ id: `c${i}`, ...c }));
    for (const c of checks) expect(() => validateCheck(c)).not.toThrow();
    expect(checks.map((c) => c.op)).toEqual(['no_refusal', 'section_present', 'not_contains', 'max_chars', 'tool_called']);
  });
});

describe('sim backend mechanics', () => {
  it('is deterministic, local, free, and counts tokens and calls', async () => {
    const a = createSimBackend({ seed: 2, role: 'optimizer' });
    const b = createSimBackend({ seed: 2, role: 'optimizer' });
    const r = req('lr_budget', { skill: '', step: 1, totalSteps: 2, min: 1, max: 4, recentAcceptRate: 0.5, candidateEdits: 4 });
    const x = await a.complete(r);
    const y = await b.complete(r);
    expect(x.text).toBe(y.text);
    expect(a.destination).toBe('local');
    expect(a.name).toBe('sim');
    expect(a.model).toBe('sim-optimizer');
    expect(x.costUsd).toBe(0);
    expect(x.tokensIn).toBeGreaterThan(0);
    expect(x.tokensOut).toBeGreaterThan(0);
    expect(a.totalCalls()).toBe(1);
  });

  it('rejects invalid options with a clear error', () => {
    expect(() => createSimBackend({ seed: 1.5 })).toThrow(/seed must be an integer/);
    expect(() => createSimBackend({ seed: 1, harmfulEditRate: 2 })).toThrow(/harmfulEditRate must be between 0 and 1/);
    expect(() => createSimBackend({ seed: 1, latencyMs: -1 })).toThrow(/latencyMs must be >= 0/);
  });

  it('waits its latency on a real timer and honours abort', async () => {
    const slow = createSimBackend({ seed: 1, latencyMs: 120 });
    const r = req('lr_budget', { skill: '', step: 1, totalSteps: 2, min: 1, max: 4, recentAcceptRate: 0.5, candidateEdits: 4 });
    const t0 = Date.now();
    const reply = await slow.complete(r);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(110);
    expect(reply.latencyMs).toBeGreaterThanOrEqual(110);
    const ac = new AbortController();
    const t1 = Date.now();
    setTimeout(() => ac.abort(new Error('stop')), 20);
    await expect(slow.complete(r, ac.signal)).rejects.toMatchObject({ code: 'ABORTED' });
    expect(Date.now() - t1).toBeLessThan(100);
    await expect(slow.complete(r, ac.signal)).rejects.toBeInstanceOf(SleepError);
  });
});

describe('sim guidance wording', () => {
  it('turns a check description into an instruction', async () => {
    const { imperative } = await import('../../src/llm/sim/reflect.js');
    expect(imperative('has a highlights heading')).toBe('have a highlights heading');
    expect(imperative('links the pull request')).toBe('link the pull request');
    expect(imperative('Uses table-driven tests')).toBe('Use table-driven tests');
    expect(imperative('matches the pattern')).toBe('match the pattern');
    expect(imperative('applies the rule')).toBe('apply the rule');
    expect(imperative('keep it short')).toBe('keep it short');
    expect(imperative('always cite')).toBe('always cite');
    // a subject, an adverb: mined rubric statements read like this
    expect(imperative('It respects what the user insisted on before: "a"; "b".')).toBe('Respect what the user insisted on before: "a"; "b".');
    expect(imperative('The response fully does what was asked.')).toBe('Fully do what was asked.');
    // a statement about the artifact becomes the action that makes it true (no "Make sure to pR descriptions need …")
    expect(imperative('PR descriptions need a Testing heading')).toBe('Add a Testing heading to PR descriptions.');
    expect(imperative('Release notes need a `## Highlights` section.')).toBe('Add a `## Highlights` section to release notes.');
    expect(imperative('Release notes can be longer now: at least 1000 characters.')).toBe('Make release notes at least 1000 characters.');
    expect(imperative('Always runs the tests')).toBe('Always run the tests');
  });

  it('never rewords code written bare, and keeps the user\'s quoted words in one point', async () => {
    const { paraphrase } = await import('../../src/llm/sim/semantics.js');
    const { Rng } = await import('../../src/llm/sim/rng.js');
    for (let seed = 1; seed <= 30; seed++) {
      const out = paraphrase('Uses table-driven tests (it.each) and calls toMinorUnits() for each case.', new Rng(seed));
      expect(out).toContain('(it.each)');
      expect(out).toContain('toMinorUnits()');
    }
    const { collectIssues } = await import('../../src/llm/sim/feedback.js');
    const feedback = 'Rubric (0.5): Missing: It respects what the user insisted on before: "use it.each; not loops"; "wrap them in a describe"; Mentions the PR';
    const issues = collectIssues([{ taskId: 't1', score: 0.5, feedback, response: '' } as unknown as RolloutDigest]);
    expect(issues.map((i) => i.statement)).toEqual(['It respects what the user insisted on before: "use it.each; not loops"; "wrap them in a describe".', 'Mentions the PR.']);
  });
});
