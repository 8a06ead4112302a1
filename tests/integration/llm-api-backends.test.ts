/**
 * The real @anthropic-ai/sdk and openai SDKs, through the full wrapper (createRoleBackends:
 * redaction, cache, budget, limiter, retry, timeout, ledger), against local servers that speak
 * each wire protocol with injected 429 + Retry-After, 500, 401, slow replies and malformed bodies.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigSchema, type Config } from '../../src/core/config.js';
import { openDb, type Db } from '../../src/store/db.js';
import { createRoleBackends } from '../../src/llm/registry.js';
import { BudgetTracker } from '../../src/llm/budget.js';
import { listEgress, totalsByDestination } from '../../src/llm/ledger.js';
import { completeJson } from '../../src/llm/json.js';
import type { LlmRequest } from '../../src/core/protocol.js';
import { startFakeAnthropic, type CommonReply, type FakeServer } from '../helpers/fake-anthropic.js';
import { startFakeOpenAi } from '../helpers/fake-openai.js';
import { makeTempDir } from '../helpers/sandbox.js';
import path from 'node:path';

const SECRET = 'sk-ant-api03-' + 'A'.repeat(40);
const GH_SECRET = 'ghp_' + 'b'.repeat(36);

function configFor(backend: 'anthropic' | 'openai', url: string, extra: Record<string, unknown> = {}): Config {
  return ConfigSchema.parse({
    roles: { target: { backend }, optimizer: { backend }, judge: { backend }, miner: { backend } },
    backends: {
      anthropic: { baseURL: url, model: 'claude-sonnet-4-5' },
      openai: { baseURL: `${url}/v1`, model: 'gpt-5-mini' },
      maxRetries: 3,
      timeoutMs: 1000,
      concurrency: 2,
      ...extra,
    },
  });
}

const judgeReq = (prompt: string, extra: Partial<LlmRequest<'judge_rubric'>> = {}): LlmRequest<'judge_rubric'> => ({
  role: 'judge',
  operation: 'judge_rubric',
  prompt,
  system: 'You grade answers.',
  payload: { rubric: 'r', intent: 'i', response: 'x' },
  maxTokens: 200,
  ...extra,
});

const env = { ANTHROPIC_API_KEY: 'sk-ant-test-key', OPENAI_API_KEY: 'sk-test-openai', PATH: '' };
const fastRetry = { baseMs: 5, maxMs: 50 };

for (const kind of ['anthropic', 'openai'] as const) {
  describe(`${kind} backend against a fake ${kind} server`, () => {
    let server: FakeServer<CommonReply>;
    let db: Db;
    beforeEach(async () => {
      server = kind === 'anthropic' ? await startFakeAnthropic() : await startFakeOpenAi();
      db = openDb(path.join(makeTempDir(), 'sleep.db'));
    });
    afterEach(async () => {
      db.close();
      await server.close();
    });
    const make = (opts: { budget?: BudgetTracker; config?: Config } = {}) =>
      createRoleBackends(opts.config ?? configFor(kind, server.url), { db, runId: 'run_1', env, retry: fastRetry, budget: opts.budget });

    it('completes, accounts tokens and cost, and records one ledger row per outbound call', async () => {
      const usage = kind === 'anthropic' ? { input_tokens: 1000, output_tokens: 100 } : { input: 1000, output: 100 };
      server.setResponder(() => ({ text: 'graded', usage }) as CommonReply);
      const rb = make();
      const reply = await rb.judge.complete(judgeReq('please grade'));
      expect(reply.text).toBe('graded');
      expect(reply.backend).toBe(kind);
      expect(reply.tokensIn).toBe(1000);
      expect(reply.tokensOut).toBe(100);
      expect(reply.costUsd).toBeCloseTo(kind === 'anthropic' ? (1000 * 3 + 100 * 15) / 1e6 : (1000 * 0.25 + 100 * 2) / 1e6, 8);
      const body = server.messageRequests()[0].body!;
      expect(JSON.stringify(body)).toContain('please grade');
      expect(JSON.stringify(body)).toContain('You grade answers.');
      const rows = listEgress(db);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ role: 'judge', backend: kind, destination: `127.0.0.1:${server.port}`, ok: true, runId: 'run_1', tokensIn: 1000 });
      expect(rows[0].bytesSent).toBeGreaterThan(10);
      expect(rows[0].contentHash).toMatch(/^[0-9a-f]{64}$/);
    });

    it('redacts secrets before they leave and counts them in the ledger', async () => {
      const rb = make();
      await rb.optimizer.complete(judgeReq(`my key is ${SECRET} and token ${GH_SECRET}`, { role: 'optimizer', system: `sys ${GH_SECRET}` }));
      const raw = server.messageRequests()[0].raw;
      expect(raw).not.toContain(SECRET);
      expect(raw).not.toContain(GH_SECRET);
      expect(raw).toContain('[REDACTED:');
      expect(listEgress(db)[0].redactions).toBe(3);
    });

    it('retries a 429 honouring Retry-After, then a 500, then succeeds', async () => {
      const times: number[] = [];
      server.setResponder((_r, i) => {
        times.push(Date.now());
        if (i === 0) return { status: 429, headers: { 'retry-after': '1' } };
        if (i === 1) return { status: 500 };
        return { text: 'finally' };
      });
      const reply = await make().judge.complete(judgeReq('x'));
      expect(reply.text).toBe('finally');
      expect(server.messageRequests()).toHaveLength(3);
      expect(times[1] - times[0]).toBeGreaterThanOrEqual(950); // waited the server's Retry-After (1 s), not our 5 ms
      const rows = listEgress(db);
      expect(rows.map((r) => r.ok)).toEqual([false, false, true]);
      expect(rows[0].error).toMatch(/429/);
    });

    it('fails fast on 401 with a hint naming the key variable (no retry)', async () => {
      server.setResponder(() => ({ status: 401 }));
      const err = await make().judge.complete(judgeReq('x')).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'BACKEND_AUTH' });
      expect((err as { hint: string }).hint).toContain(kind === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_API_KEY');
      expect(server.messageRequests()).toHaveLength(1);
    });

    it('times out a slow reply, retries, and gives up with BACKEND_TIMEOUT', async () => {
      server.setResponder(() => ({ text: 'late', delayMs: 1500 }));
      const cfg = configFor(kind, server.url, { maxRetries: 1 });
      const t0 = Date.now();
      const err = await make({ config: cfg }).judge.complete(judgeReq('x')).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'BACKEND_TIMEOUT' });
      expect(server.messageRequests()).toHaveLength(2);
      expect(Date.now() - t0).toBeLessThan(4000);
    });

    it('turns a malformed 200 body into BACKEND_BAD_REPLY after retries', async () => {
      server.setResponder(() => ({ raw: '{"this is": not json' }));
      const err = await make().judge.complete(judgeReq('x')).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'BACKEND_BAD_REPLY' });
      expect(server.messageRequests()).toHaveLength(4); // 1 + maxRetries 3
    });

    it('stops BEFORE the budget would be exceeded: the server never sees the refused call', async () => {
      const budget = new BudgetTracker({ maxUsd: 100, maxTokens: 1_000_000, maxCalls: 3 });
      const rb = make({ budget });
      for (let i = 0; i < 3; i++) await rb.judge.complete(judgeReq(`call ${i}`));
      await expect(rb.judge.complete(judgeReq('call 3'))).rejects.toMatchObject({ code: 'BUDGET_EXCEEDED' });
      expect(server.messageRequests()).toHaveLength(3);
      expect(budget.used().calls).toBe(3);
      // dollars: a call whose estimate (prompt + max reply) would pass maxUsd is refused up front
      const tight = new BudgetTracker({ maxUsd: 0.001, maxTokens: 1_000_000, maxCalls: 100 });
      const rb2 = make({ budget: tight });
      await expect(rb2.judge.complete(judgeReq('y'.repeat(20_000), { maxTokens: 4000 }))).rejects.toMatchObject({ code: 'BUDGET_EXCEEDED' });
      expect(server.messageRequests()).toHaveLength(3);
      expect(listEgress(db)).toHaveLength(3);
    });

    it('serves cacheable calls from the response cache: no second request', async () => {
      server.setResponder(() => ({ text: '{"score": 0.5, "feedback": "ok"}' }));
      const rb = make();
      const a = await rb.judge.complete(judgeReq('same', { cacheable: true, temperature: 0 }));
      const b = await rb.judge.complete(judgeReq('same', { cacheable: true, temperature: 0 }));
      expect(a.cached).toBe(false);
      expect(b.cached).toBe(true);
      expect(b.text).toBe(a.text);
      expect(server.messageRequests()).toHaveLength(1);
      expect(listEgress(db)).toHaveLength(1);
    });

    it('completeJson repairs an invalid structured reply with one more call', async () => {
      server.setResponder((_r, i) => ({ text: i === 0 ? 'Here is my grade: {"score": 3}' : '```json\n{"score": 0.75, "feedback": "fine"}\n```' }));
      const schema = z.object({ score: z.number().min(0).max(1), feedback: z.string() });
      const r = await completeJson(make().judge, judgeReq('grade'), schema);
      expect(r.value).toEqual({ score: 0.75, feedback: 'fine' });
      expect(r.repaired).toBe(true);
      expect(JSON.stringify(server.messageRequests()[1].body)).toContain('does not match the expected shape');
    });

    it('a repaired cacheable reply replaces the bad one in the cache: the re-run costs no call', async () => {
      server.setResponder((_r, i) => ({ text: i === 0 ? 'not json' : '{"score": 0.25, "feedback": "meh"}' }));
      const schema = z.object({ score: z.number(), feedback: z.string() });
      const rb = make();
      const first = await completeJson(rb.judge, judgeReq('grade', { cacheable: true, temperature: 0 }), schema);
      expect(first.repaired).toBe(true);
      const again = await completeJson(rb.judge, judgeReq('grade', { cacheable: true, temperature: 0 }), schema);
      expect(again).toMatchObject({ value: { score: 0.25 }, repaired: false });
      expect(again.replies[0].cached).toBe(true);
      expect(server.messageRequests()).toHaveLength(2);
    });

    if (kind === 'openai') {
      it('uses the AzureOpenAI client when backends.openai.azureEndpoint is set', async () => {
        const cfg = ConfigSchema.parse({
          roles: { target: { backend: 'openai' }, optimizer: { backend: 'openai' }, judge: { backend: 'openai' }, miner: { backend: 'openai' } },
          backends: { openai: { azureEndpoint: server.url, azureApiVersion: '2024-10-21', model: 'my-deployment' }, maxRetries: 0 },
        });
        const reply = await make({ config: cfg }).judge.complete(judgeReq('azure please'));
        expect(reply.text).toBe('ok');
        const call = server.messageRequests()[0];
        expect(call.path).toBe('/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21');
        expect(call.headers['api-key']).toBe('sk-test-openai');
      });
    }

    it('honours the concurrency limit per backend', async () => {
      let active = 0;
      let peak = 0;
      server.setResponder(async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 30));
        active--;
        return { text: 'ok' };
      });
      const rb = make();
      await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? rb.judge : rb.optimizer).complete(judgeReq(`c${i}`))));
      expect(peak).toBe(2); // backends.concurrency, shared by roles of the same backend
      expect(totalsByDestination(listEgress(db))[0].calls).toBe(8);
    });

    it('aborts an in-flight call when the signal fires', async () => {
      const ctl = new AbortController();
      server.setResponder(() => {
        setTimeout(() => ctl.abort(), 20); // abort while the server is still answering
        return { text: 'slow', delayMs: 800 };
      });
      await expect(make().judge.complete(judgeReq('x'), ctl.signal)).rejects.toMatchObject({ code: 'ABORTED' });
      expect(server.messageRequests()).toHaveLength(1);
    });
  });
}
