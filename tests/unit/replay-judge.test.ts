import { describe, it, expect } from 'vitest';
import { TaskSchema, type Task } from '../../src/core/records.js';
import type { Backend, LlmReply, LlmRequest, Operation } from '../../src/core/protocol.js';
import { judgeResponse, exactMatch, normalizeAnswer, EXACT_CHECK_ID, RUBRIC_CHECK_ID, IMPLICIT_CHECK_ID } from '../../src/replay/judge.js';
import { rolloutTask, buildPerformRequest } from '../../src/replay/rollout.js';
import { createSimBackend } from '../../src/llm/sim/index.js';
import { SleepError } from '../../src/core/errors.js';

const task = (judge: unknown, extra: Partial<Task> = {}): Task =>
  TaskSchema.parse({ id: 't1', project: null, intent: 'Write the changelog entry', judge, split: 'val', origin: 'real', occurrences: 2, firstSeen: null, lastSeen: null, ...extra });

/** A scripted backend: replies in order, records requests. */
function scripted(texts: string[], name = 'fake'): Backend & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    name,
    model: 'm',
    destination: 'local',
    requests,
    async complete<O extends Operation>(req: LlmRequest<O>): Promise<LlmReply> {
      requests.push(req as LlmRequest);
      const text = texts[Math.min(requests.length - 1, texts.length - 1)];
      return { text, backend: name, model: 'm', tokensIn: 10, tokensOut: 5, costUsd: 0.001, latencyMs: 1, cached: false };
    },
  };
}

describe('judgeResponse: rule checks', () => {
  const t = task({
    checks: [
      { id: 'a', op: 'section_present', value: 'Unreleased', weight: 2 },
      { id: 'b', op: 'contains', value: '(#12)', description: 'Reference the PR' },
      { id: 'secret', op: 'not_contains', value: 'WIP', sealed: true, description: 'hidden preference' },
    ],
  });

  it('hard = all passed, soft = weighted fraction, feedback = non-sealed failures only', async () => {
    const j = await judgeResponse(t, '## Unreleased\n- WIP thing', [], undefined);
    expect(j.hardScore).toBe(0);
    expect(j.softScore).toBeCloseTo(2 / 4, 5);
    expect(j.checks.map((c) => [c.checkId, c.passed])).toEqual([
      ['a', true],
      ['b', false],
      ['secret', false],
    ]);
    expect(j.feedback).toMatch(/Reference the PR/);
    expect(j.feedback).not.toMatch(/WIP|hidden preference|secret/);
    expect(j.checks.find((c) => c.checkId === 'secret')?.feedback).toBe('');
    const all = await judgeResponse(t, '## Unreleased\n- thing (#12)', [], undefined);
    expect(all.hardScore).toBe(1);
    expect(all.softScore).toBe(1);
    expect(all.feedback).toBe('');
  });

  it('a task without checks is judged on attempting it', async () => {
    const bare = task({ checks: [] });
    expect((await judgeResponse(bare, "I can't help with that.", [], undefined)).hardScore).toBe(0);
    const ok = await judgeResponse(bare, 'Done: entry written.', [], undefined);
    expect(ok.hardScore).toBe(1);
    expect(ok.checks[0].checkId).toBe(IMPLICIT_CHECK_ID);
  });
});

describe('judgeResponse: exact reference', () => {
  it('normalized compare: case, whitespace, quotes, final line, "Answer:"', () => {
    expect(normalizeAnswer('  "Paris."  ')).toBe('paris');
    expect(exactMatch('PARIS', 'Paris', true)).toBe(true);
    expect(exactMatch('Let me think.\nThe capital is:\n`Paris`', 'Paris', true)).toBe(true);
    expect(exactMatch('Some reasoning.\nAnswer: 42', '42', true)).toBe(true);
    expect(exactMatch('42 or 43', '42', true)).toBe(false);
    expect(exactMatch('paris', 'Paris', false)).toBe(false);
    expect(exactMatch(' Paris\n', 'Paris', false)).toBe(true);
  });
  it('adds a reference check that never reveals the answer', async () => {
    const t = task({ checks: [], reference: { kind: 'exact', answer: 'v2.3.1' } });
    const bad = await judgeResponse(t, 'v2.3.0', [], undefined);
    expect(bad.hardScore).toBe(0);
    expect(bad.checks[0].checkId).toBe(EXACT_CHECK_ID);
    expect(bad.feedback).not.toContain('2.3.1');
    expect((await judgeResponse(t, 'Answer: V2.3.1', [], undefined)).hardScore).toBe(1);
  });
});

describe('judgeResponse: rubric through the judge role', () => {
  const t = task({ checks: [{ id: 'a', op: 'min_chars', value: 5 }], reference: { kind: 'rubric', rubric: 'Mentions risk level', passThreshold: 0.7 } });

  it('sends a judge_rubric request with the typed payload and mixes the score in', async () => {
    const judge = scripted(['{"score": 0.5, "feedback": "does not state the risk level"}']);
    const j = await judgeResponse(t, 'Some summary text', [], judge);
    expect(judge.requests[0]).toMatchObject({ role: 'judge', operation: 'judge_rubric', payload: { rubric: 'Mentions risk level', intent: t.intent, response: 'Some summary text' } });
    expect(j.softScore).toBeCloseTo(0.75, 5);
    expect(j.hardScore).toBe(0);
    expect(j.checks.find((c) => c.checkId === RUBRIC_CHECK_ID)).toMatchObject({ passed: false, score: 0.5 });
    expect(j.feedback).toMatch(/Rubric \(0.50\): does not state the risk level/);
    expect(j.judgeReplies).toHaveLength(1);
  });

  it('repairs one malformed judge reply, then fails with a typed error', async () => {
    const fixed = scripted(['Sure, score is high', '```json\n{"score": 0.9}\n```']);
    const j = await judgeResponse(t, 'Risk level: low', [], fixed);
    expect(fixed.requests).toHaveLength(2);
    expect(fixed.requests[1].prompt).toMatch(/could not be used/);
    expect(j.hardScore).toBe(1);
    const broken = scripted(['nope', '{"score": 7}']);
    await expect(judgeResponse(t, 'x', [], broken)).rejects.toMatchObject({ code: 'BACKEND_BAD_REPLY' });
  });

  it('needs a judge backend', async () => {
    await expect(judgeResponse(t, 'x', [], undefined)).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE' });
  });

  it('grades with the sim judge by meaning', async () => {
    const sim = createSimBackend({ seed: 1 });
    const good = await judgeResponse(t, 'Risk level: low. Nothing else to add.', [], sim);
    const bad = await judgeResponse(t, 'Here is a summary of the work.', [], sim);
    expect(good.softScore).toBeGreaterThan(bad.softScore);
  });
});

describe('rolloutTask', () => {
  const t = task({ checks: [{ id: 'a', op: 'contains', value: 'hello' }] }, { context: 'file excerpt' });

  it('renders a prompt for real models and a typed payload for the sim', () => {
    const req = buildPerformRequest(t, { name: 'conv', content: '- say hello' }, 0);
    expect(req.operation).toBe('perform');
    expect(req.role).toBe('target');
    expect(req.system).toContain('- say hello');
    expect(req.prompt).toContain('Write the changelog entry');
    expect(req.prompt).toContain('file excerpt');
    expect(req.payload).toEqual({ intent: t.intent, context: t.context, skill: { name: 'conv', content: '- say hello' }, sample: 0 }); // what the prompt carries, nothing of the judge
  });

  it('records response, scores, tokens and the skill hash', async () => {
    const target = scripted(['hello world']);
    const r = await rolloutTask({ task: t, skill: { name: 'conv', content: 'x' }, target });
    expect(r).toMatchObject({ taskId: 't1', hardScore: 1, softScore: 1, response: 'hello world', backend: 'fake', tokensIn: 10, tokensOut: 5, cached: false });
    expect(r.skillHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('turns a failing call into an error rollout, but rethrows fatal errors', async () => {
    const failing: Backend = { name: 'f', model: 'm', destination: 'x', complete: async () => Promise.reject(new SleepError('BACKEND_TIMEOUT', 'timed out')) };
    const r = await rolloutTask({ task: t, skill: { name: 's', content: '' }, target: failing });
    expect(r).toMatchObject({ hardScore: 0, softScore: 0, error: 'timed out', feedback: '' });
    const broke: Backend = { name: 'f', model: 'm', destination: 'x', complete: async () => Promise.reject(new SleepError('BUDGET_EXCEEDED', 'no money')) };
    await expect(rolloutTask({ task: t, skill: { name: 's', content: '' }, target: broke })).rejects.toMatchObject({ code: 'BUDGET_EXCEEDED' });
  });

  it('an invalid check in one task becomes that rollout\'s error', async () => {
    const bad = task({ checks: [{ id: 'r', op: 'regex', value: '(' }] });
    const r = await rolloutTask({ task: bad, skill: { name: 's', content: '' }, target: scripted(['x']) });
    expect(r.error).toMatch(/"r".*invalid regex/);
  });
});
