/**
 * Failure is failure (issue 43, part 3), through the real CLI and the real `openai` client against
 * a local HTTP server: a model server that answers 500 to everything, one that never answers in
 * time, and a judge whose replies are schema-valid but wrong 30% of the time. Each night ends
 * `failed` (non-zero exit, the reason in the summary, the report and `status`) or stages nothing
 * and says why. Retries stay on (the product's path), with a short timeout.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { startFakeOpenAi, type FakeOpenAiReply, type FakeServer } from '../helpers/fake-openai.js';
import { resolvePaths } from '../../src/core/paths.js';

let sb: Sandbox;
let server: FakeServer<FakeOpenAiReply>;
let reply: (body: string, index: number) => FakeOpenAiReply = () => ({ text: 'ok' });

interface Report {
  id: string;
  status: string;
  summary: string;
  notes: string[];
  proposals: string[];
  modelCalls?: { calls: number; failed: number; maxFailedShare: number };
  items: Array<{ status: string; reason?: string; judgeAudit?: { verdict: string; repeat: { pairs: number; disagreements: number }; rules: { pairs: number; disagreements: number } } }>;
}

function runAsync(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const set = (k: string, v: string) => expect(runCli(['config', 'set', k, v], sb.env).status).toBe(0);

beforeAll(async () => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
  server = await startFakeOpenAi((req, index) => reply(req.raw, index));
  sb = makeSandbox({ OPENAI_API_KEY: 'test-key-not-real', PATH: path.dirname(process.execPath) });
  set('backends.openai.baseURL', `${server.url}/v1`);
  set('backends.maxRetries', '1');
  set('backends.timeoutMs', '1000');
  for (const role of ['target', 'optimizer', 'judge', 'miner']) set(`roles.${role}.backend`, 'openai');
  set('training.minValTasks', '1');
  set('training.epochs', '1');
  const asks = [
    'Write the changelog entry for the new CSV export',
    'Write the changelog entry for the retry fix in the sync client',
    'Write the changelog entry for the dark mode toggle',
    'Write the changelog entry for the faster search index',
    'Write the changelog entry for the removed legacy exporter',
    'Write the changelog entry for the new audit log page',
    'Write the changelog entry for the rate limiter',
    'Write the changelog entry for the login timeout fix',
  ];
  // every task is graded by a rule check and by the judge's rubric: both see the same reply
  const tasks = asks.map((intent, i) => ({
    intent,
    judge: { checks: [{ id: 'changelog', op: 'contains', value: 'Changelog' }], reference: { kind: 'rubric', rubric: 'The reply is a changelog entry that names the change.' } },
    split: i % 2 ? 'val' : 'train',
  }));
  const file = path.join(sb.root, 'tasks.json');
  fs.writeFileSync(file, JSON.stringify({ format: 'skillopt-sleep.tasks.v1', reviewed: true, tasks }));
  const imp = runCli(['tasks', 'import', file], sb.env);
  expect(imp.status, imp.stderr + imp.stdout).toBe(0);
}, 60_000);
afterAll(async () => {
  await server?.close();
  sb?.cleanup();
});

const JUDGE = /You grade a coding agent/;
const OPTIMIZER = /Reply with JSON only/;

function explain(run: { stdout: string; stderr: string }): string {
  try {
    const j = JSON.parse(run.stdout) as Report;
    return JSON.stringify({ s: j.summary, n: j.notes, i: j.items.map((i) => [i.status, i.reason]), c: j.modelCalls });
  } catch {
    return run.stdout.slice(0, 2000) + run.stderr.slice(0, 2000);
  }
}

async function night(): Promise<{ status: number | null; report: Report; run: { stdout: string; stderr: string } }> {
  const run = await runAsync(['night', '--json'], sb.env);
  return { status: run.status, report: JSON.parse(run.stdout) as Report, run };
}

describe('a model that fails is a failed night', () => {
  it('a server that answers HTTP 500 to everything: failed, non-zero, the reason everywhere', async () => {
    reply = () => ({ status: 500 });
    const { status, report, run } = await night();
    expect(status, explain(run)).not.toBe(0);
    expect(report.status).toBe('failed');
    expect(report.summary).toMatch(/^night failed: /);
    expect(report.summary).toMatch(/HTTP 500|every model call failed/);
    expect(report.proposals).toEqual([]);
    const st = runCli(['status', '--json'], sb.env);
    expect(st.stdout).toMatch(/failed/);
    expect(st.stdout).toMatch(/HTTP 500|every model call failed/);
  }, 180_000);

  it('a server that never answers within the timeout: failed, non-zero, says it timed out', async () => {
    reply = () => ({ delayMs: 1500, text: 'too late' });
    const { status, report, run } = await night();
    expect(status, explain(run)).not.toBe(0);
    expect(report.status).toBe('failed');
    expect(report.summary).toMatch(/^night failed: /);
    expect(report.summary).toMatch(/did not answer within|timed out/);
    expect(report.proposals).toEqual([]);
  }, 180_000);
});

/**
 * A judge that grades right (a changelog entry scores 1 exactly when it says "Changelog") except
 * on 30% of its replies, where the score is turned around: valid JSON, wrong number. Which reply is
 * wrong is fixed by the request's text and how many times it was asked (not by arrival order), so
 * the test is deterministic whatever the concurrency.
 */
function judgeWrongPercent(percent: number) {
  const asked = new Map<string, number>();
  return (body: string): FakeOpenAiReply => {
    if (!JUDGE.test(body)) return OPTIMIZER.test(body) ? { text: '{"failures":[],"edits":[]}' } : { text: 'Changelog: the change, in one line.' };
    const n = (asked.get(body) ?? 0) + 1;
    asked.set(body, n);
    const messages = (JSON.parse(body) as { messages: Array<{ content: string }> }).messages;
    const response = /## Response\n([\s\S]*)$/.exec(messages.at(-1)?.content ?? '')?.[1] ?? '';
    const right = /changelog/i.test(response) ? 1 : 0;
    const draw = parseInt(createHash('sha256').update(`${n}\u0000${body}`).digest('hex').slice(0, 8), 16) / 0x1_0000_0000;
    const score = draw < percent / 100 ? 1 - right : right;
    return { text: JSON.stringify({ score, feedback: score ? 'fine' : 'not a changelog entry' }) };
  };
}

describe('a judge that is wrong 30% of the time', () => {
  it('fails its audit: nothing is trained or staged, and the report says why', async () => {
    reply = judgeWrongPercent(30);
    // its own judge model name: no grade cached by another test answers for this judge
    set('roles.judge.model', 'judge-wrong-30');
    const { status, report, run } = await night();
    expect(['failed', 'nothing_staged'], explain(run)).toContain(report.status);
    if (report.status === 'failed') expect(status).not.toBe(0);
    expect(report.proposals).toEqual([]);
    const item = report.items.find((i) => i.judgeAudit);
    expect(item, explain(run)).toBeDefined();
    expect(item!.status).toBe('failed');
    expect(item!.reason).toMatch(/not consistent enough to gate on/);
    expect(item!.reason).toMatch(/disagreed/);
    const a = item!.judgeAudit!;
    expect(a.repeat.pairs + a.rules.pairs).toBeGreaterThanOrEqual(8);
    expect(a.repeat.disagreements + a.rules.disagreements).toBeGreaterThan(0.2 * (a.repeat.pairs + a.rules.pairs));
    expect(report.summary).toMatch(/not consistent enough to gate on/);
    const md = fs.readFileSync(path.join(resolvePaths({ env: sb.env }).runsDir, report.id, 'night-report.md'), 'utf8');
    expect(md).toMatch(/judge audit: failed \(fresh re-grades: \d+ of \d+ disagreed; against rule checks: \d+ of \d+; allowed 20%\)/);
  }, 180_000);

  it('the same judge without the fault passes the audit (the audit is not what fails)', async () => {
    reply = judgeWrongPercent(0);
    set('roles.judge.model', 'judge-right');
    const { report, run } = await night();
    const item = report.items.find((i) => i.judgeAudit);
    expect(item, explain(run)).toBeDefined();
    expect(item!.judgeAudit, item!.reason).toMatchObject({ verdict: 'passed', repeat: { disagreements: 0 }, rules: { disagreements: 0 } });
    expect(item!.judgeAudit!.rules.pairs).toBeGreaterThan(0);
    expect(item!.reason ?? '').not.toMatch(/judge/);
  }, 180_000);
});
