/**
 * Silent failures made loud: a night whose model calls fail for infrastructure reasons (a retired
 * or misspelled model → 404, a refused key → 401, empty `200 OK` replies, an optimizer/judge that
 * never returns JSON) ends `failed` with the reason in one line and exits non-zero, through the
 * real CLI against a fake OpenAI server over HTTP.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { startFakeOpenAi, type FakeOpenAiReply, type FakeServer } from '../helpers/fake-openai.js';

let sb: Sandbox;
let server: FakeServer<FakeOpenAiReply>;
let reply: (body: string) => FakeOpenAiReply = () => ({ text: 'ok' });

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

beforeAll(async () => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
  server = await startFakeOpenAi((req) => reply(req.raw));
  sb = makeSandbox({ OPENAI_API_KEY: 'test-key-not-real', PATH: path.dirname(process.execPath) });
  const set = (k: string, v: string) => expect(runCli(['config', 'set', k, v], sb.env).status).toBe(0);
  set('backends.openai.baseURL', `${server.url}/v1`);
  set('backends.maxRetries', '0');
  for (const role of ['target', 'optimizer', 'judge', 'miner']) set(`roles.${role}.backend`, 'openai');
  set('training.minValTasks', '1');
  const asks = [
    'Write the changelog entry for the new CSV export',
    'Explain why the nightly backup job times out on large volumes',
    'Add input validation to the signup form email field',
    'Summarise the open pull requests touching the billing service',
    'Rename the legacy payment gateway module and update imports',
    'Draft a migration plan from Postgres 13 to 16 for the reporting database',
    'Find the memory leak in the websocket reconnect handler',
    'Document the release checklist for the mobile app store submission',
  ];
  const tasks = asks.map((intent, i) => ({
    intent,
    // one train and one val task are graded by the judge role (a rubric), the rest by checks
    judge: i < 2 ? { reference: { kind: 'rubric', rubric: 'The reply is a complete changelog entry.' } } : { checks: [{ op: 'contains', value: 'Changelog' }] },
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
/** A server that knows one model: any other name gets the 404 a real API gives a typo. */
const onlyModel = (name: string) => (body: string): FakeOpenAiReply =>
  (JSON.parse(body) as { model?: string }).model === name ? { text: JUDGE.test(body) ? '{"score": 1, "feedback": "ok"}' : 'Changelog: done' } : { status: 404, raw: JSON.stringify({ error: { message: `The model \`${(JSON.parse(body) as { model?: string }).model}\` does not exist`, type: 'invalid_request_error', code: 'model_not_found' } }) };

const cases: Array<[string, (body: string) => FakeOpenAiReply, RegExp]> = [
  ['a model name typo (the server knows the model, not the misspelling: HTTP 404)', onlyModel('gpt-5-mini'), /HTTP 404|does not exist|model/],
  ['a judge that never returns JSON (target and optimizer fine)', (body) => (JUDGE.test(body) ? { text: 'The entry looks good to me, nice work.' } : OPTIMIZER.test(body) ? { text: '{"failures":[],"edits":[]}' } : { text: 'Changelog: done' }), /judge.*unusable judge_rubric reply/],
  ['a retired or misspelled model (HTTP 404)', () => ({ status: 404 }), /HTTP 404/],
  ['a refused key (HTTP 401)', () => ({ status: 401 }), /HTTP 401|credentials/],
  ['empty 200 OK replies', () => ({ text: '' }), /empty reply/],
  ['an optimizer that never returns JSON', () => ({ text: 'Sure! I would tighten the wording and add examples.' }), /unusable .* reply/],
];

describe('a night that cannot work fails loudly', () => {
  for (const [name, respond, reason] of cases) {
    it(name, async () => {
      reply = respond;
      const typo = name.startsWith('a model name typo');
      if (typo) expect(runCli(['config', 'set', 'roles.target.model', 'gpt-5-mnii'], sb.env).status).toBe(0);
      const run = await runAsync(['night', '--json'], sb.env);
      if (typo) expect(runCli(['config', 'set', 'roles.target.model', 'gpt-5-mini'], sb.env).status).toBe(0);
      expect(run.status, JSON.stringify((() => { try { const j = JSON.parse(run.stdout); return { s: j.summary, n: j.notes, i: j.items, u: j.used }; } catch { return run.stdout.slice(0, 2000); } })()) + run.stderr).not.toBe(0);
      const report = JSON.parse(run.stdout) as { status: string; summary: string };
      expect(report.status).toBe('failed');
      expect(report.summary.split('\n')).toHaveLength(1);
      expect(report.summary).toMatch(/^night failed: /);
      expect(report.summary).toMatch(reason);
      const status = runCli(['status', '--json'], sb.env);
      expect(status.stdout).toMatch(/failed/);
    }, 120_000);
  }
});

describe('config and doctor say what is wrong', () => {
  it('`config set schedule.cron "not a cron"` exits non-zero with a hint and leaves the config alone', () => {
    const r = runCli(['config', 'set', 'schedule.cron', 'not a cron'], sb.env);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/not a cron expression/);
    expect(r.stderr).toMatch(/0 3 \* \* \*/);
    expect(runCli(['config', 'get', 'schedule.cron'], sb.env).stdout).not.toMatch(/not a cron/);
    expect(runCli(['config', 'set', 'schedule.timezone', 'Mars/Olympus'], sb.env).status).not.toBe(0);
  });

  it('`doctor --live` makes one call per role and names what failed', async () => {
    reply = (body) => (/Grade the response/.test(body) ? { text: '{"score": 1, "feedback": "ok"}' } : { text: 'OK' });
    const ok = await runAsync(['doctor', '--live', '--json'], sb.env);
    const live = (JSON.parse(ok.stdout) as { checks: Array<{ name: string; status: string; detail: string }> }).checks.filter((c) => c.name.startsWith('live:'));
    expect(live.map((c) => c.name).sort()).toEqual(['live:judge', 'live:miner', 'live:optimizer', 'live:target']);
    expect(live.every((c) => c.status === 'ok'), JSON.stringify(live)).toBe(true);
    reply = () => ({ status: 404 });
    const bad = await runAsync(['doctor', '--live', '--json'], sb.env);
    expect(bad.status).not.toBe(0);
    const failed = (JSON.parse(bad.stdout) as { checks: Array<{ name: string; status: string; detail: string }> }).checks.filter((c) => c.name.startsWith('live:'));
    expect(failed.every((c) => c.status === 'fail' && /404/.test(c.detail)), JSON.stringify(failed)).toBe(true);
  }, 60_000);
});
