import { describe, expect, it } from 'vitest';
import type { Check, CheckOp } from '../../src/core/records.js';
import type { Backend, LlmReply, LlmRequest } from '../../src/core/protocol.js';
import { makeCheck, validateJudge } from '../../src/mine/judge-synth.js';
import { mineWithLlm } from '../../src/mine/llm-miner.js';
import { completeTask, parseTaskFile } from '../../src/mine/task-file.js';
import { SleepError } from '../../src/core/errors.js';

type Draft = Parameters<typeof makeCheck>[0];
const valid: Array<[CheckOp, Draft]> = [
  ['contains', { op: 'contains', value: 'vitest' }],
  ['not_contains', { op: 'not_contains', value: 'jest.fn' }],
  ['regex', { op: 'regex', value: '^## \\[Unreleased\\]', flags: 'im' }],
  ['section_present', { op: 'section_present', value: 'Testing' }],
  ['section_contains', { op: 'section_contains', value: 'Testing', needle: 'vitest' }],
  ['min_chars', { op: 'min_chars', value: 20 }],
  ['max_chars', { op: 'max_chars', value: 1500 }],
  ['json_valid', { op: 'json_valid' }],
  ['starts_with', { op: 'starts_with', value: 'feat' }],
  ['no_refusal', { op: 'no_refusal' }],
  ['tool_called', { op: 'tool_called', value: 'Bash' }],
  ['ran_command', { op: 'ran_command', value: 'pnpm vitest run' }],
];
const invalid: Array<[string, Draft, RegExp]> = [
  ['regex that does not compile', { op: 'regex', value: '([unclosed' }, /invalid regex/],
  ['regex with bad flags', { op: 'regex', value: 'a', flags: 'q' }, /flags/],
  ['contains without text', { op: 'contains', value: '' }, /missing/],
  ['not_contains without text', { op: 'not_contains' }, /missing/],
  ['section_contains without needle', { op: 'section_contains', value: 'Testing' }, /needle/],
  ['section_present without heading', { op: 'section_present', value: '' }, /missing|empty/],
  ['min_chars negative', { op: 'min_chars', value: -1 }, /negative/],
  ['max_chars not a number', { op: 'max_chars', value: 'lots' }, /number/],
  ['starts_with without text', { op: 'starts_with' }, /missing/],
  ['tool_called without tool', { op: 'tool_called' }, /tool/],
  ['ran_command without command', { op: 'ran_command' }, /command/],
];

describe('checks are validated when created', () => {
  it.each(valid)('%s: a valid definition gets a stable id', (_op, d) => {
    const a = makeCheck(d);
    expect(a.id).toMatch(/^chk_/);
    expect(makeCheck(d).id).toBe(a.id);
    expect(a.sealed).toBe(false);
  });

  it.each(invalid)('%s → error at mining time', (_name, d, msg) => {
    expect(() => makeCheck(d)).toThrow(SleepError);
    expect(() => makeCheck(d)).toThrow(msg);
  });

  it('a judge with duplicate check ids or an empty rubric is rejected', () => {
    const c = makeCheck({ op: 'no_refusal' });
    expect(() => validateJudge({ checks: [c, c], reference: { kind: 'rule' } })).toThrow(/duplicate/);
    expect(() => validateJudge({ checks: [], reference: { kind: 'rubric', rubric: '  ', passThreshold: 0.7 } })).toThrow(/rubric/);
  });
});

class ScriptedMiner implements Backend {
  readonly name = 'scripted';
  readonly model = 'm';
  readonly destination = 'local';
  requests: LlmRequest[] = [];
  constructor(private readonly text: string) {}
  async complete(req: LlmRequest): Promise<LlmReply> {
    this.requests.push(req);
    return { text: this.text, backend: this.name, model: this.model, tokensIn: 1, tokensOut: 1, costUsd: 0, latencyMs: 0, cached: false };
  }
}

describe('LLM miner', () => {
  it('keeps valid checks and reports invalid ones instead of scoring them zero', async () => {
    const reply = {
      intent: 'Write a Keep a Changelog entry for a merged fix, linking its PR',
      context: '',
      checks: [
        { op: 'regex', value: '^## \\[Unreleased\\]', flags: 'm', description: 'unreleased' },
        { op: 'regex', value: '([bad', description: 'broken' },
        { op: 'contains', value: '#', sealed: true },
      ],
    };
    const backend = new ScriptedMiner('Sure:\n```json\n' + JSON.stringify(reply) + '\n```');
    const out = await mineWithLlm(backend, { prompts: ['changelog entry for #4'], corrections: ['link the PR'], project: '/p' });
    expect(out.intent).toBe(reply.intent);
    expect(out.checks.map((c: Check) => c.op)).toEqual(['regex', 'contains']);
    expect(out.checks[1].sealed).toBe(true);
    expect(out.invalid).toHaveLength(1);
    expect(out.invalid[0]).toMatch(/invalid regex/);
    expect(backend.requests[0]).toMatchObject({ role: 'miner', operation: 'mine_task' });
    expect(backend.requests[0].prompt).toContain('link the PR');
  });

  it('rejects a reply that is not the expected JSON', async () => {
    await expect(mineWithLlm(new ScriptedMiner('I cannot help'), { prompts: ['x'], corrections: [], project: null })).rejects.toThrow(/no JSON/);
    await expect(mineWithLlm(new ScriptedMiner('{"intent": 3}'), { prompts: ['x'], corrections: [], project: null })).rejects.toThrow(/does not match the expected shape/);
  });
});

describe('task files', () => {
  it('completes a hand-written task and validates its checks', () => {
    const t = completeTask({ intent: 'Write release notes', judge: { checks: [{ op: 'contains', value: 'Highlights' }] } }, { reviewed: true });
    expect(t.origin).toBe('imported');
    expect(t.reviewed).toBe(true);
    expect(t.judge.checks[0].id).toMatch(/^chk_/);
    expect(['train', 'val', 'test']).toContain(t.split);
  });

  it('reports every invalid task at once and imports nothing', () => {
    const text = [
      JSON.stringify({ intent: 'ok task', judge: { checks: [{ op: 'no_refusal' }] } }),
      JSON.stringify({ intent: 'bad regex', judge: { checks: [{ op: 'regex', value: '(' }] } }),
      JSON.stringify({ intent: '' }),
      JSON.stringify({ intent: 'nothing can score me' }),
    ].join('\n');
    try {
      parseTaskFile(text, 'f.jsonl');
      expect.unreachable();
    } catch (err) {
      const e = err as SleepError;
      expect(e.message).toMatch(/3 invalid task/);
      expect(e.message).toMatch(/task 2: .*invalid regex/);
      expect(e.message).toMatch(/task 3: intent/);
      expect(e.message).toMatch(/task 4: .*nothing could score it/);
    }
  });

  it('accepts the reviewed document format and never moves an existing task between splits', () => {
    const doc = { format: 'skillopt-sleep.tasks.v1', reviewed: true, tasks: [{ id: 'task_x', intent: 'a', split: 'val', judge: { checks: [{ op: 'no_refusal' }] } }] };
    const existing = completeTask({ id: 'task_x', intent: 'a', split: 'train', judge: { checks: [{ op: 'no_refusal' }] } });
    const parsed = parseTaskFile(JSON.stringify(doc), 'doc.json', { existing: (id) => (id === 'task_x' ? existing : undefined) });
    expect(parsed.reviewed).toBe(true);
    expect(parsed.tasks[0].split).toBe('train');
    expect(parsed.tasks[0].reviewed).toBe(true);
  });
});
