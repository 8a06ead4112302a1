/**
 * The sim backend must make no network connection. Every way Node opens a connection is patched
 * to record and throw; then a full replay + optimizer sequence runs through the sim.
 */
import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import tls from 'node:tls';
import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import dgram from 'node:dgram';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { createSimBackend } from '../../src/llm/sim/index.js';
import { simPersonaTasks } from '../../bench/persona.js';
import { scoreSkill, rolloutBatch } from '../../src/replay/index.js';
import { completeJson } from '../../src/llm/json.js';
import { ReflectReply, MergeReply, RankReply, LrBudgetReply, SlowUpdateReply, MetaSkillReply, MineTaskReply, JudgeRubricReply } from '../../src/core/protocol.js';
import { makeTempDir } from '../helpers/sandbox.js';

const attempts: string[] = [];
const restores: Array<() => void> = [];

function trap<T extends object>(obj: T, key: keyof T & string, label: string): void {
  const original = obj[key];
  (obj as Record<string, unknown>)[key] = function blocked(): never {
    attempts.push(label);
    throw new Error(`network access attempted: ${label}`);
  };
  restores.push(() => {
    (obj as Record<string, unknown>)[key] = original;
  });
}

beforeAll(() => {
  trap(net.Socket.prototype, 'connect', 'net.Socket#connect');
  trap(net, 'connect', 'net.connect');
  trap(net, 'createConnection', 'net.createConnection');
  trap(tls, 'connect', 'tls.connect');
  trap(http, 'request', 'http.request');
  trap(http, 'get', 'http.get');
  trap(https, 'request', 'https.request');
  trap(https, 'get', 'https.get');
  trap(dns, 'lookup', 'dns.lookup');
  trap(dns.promises, 'lookup', 'dns.promises.lookup');
  trap(dgram, 'createSocket', 'dgram.createSocket');
  trap(globalThis as unknown as Record<string, unknown>, 'fetch', 'fetch');
  syncBuiltinESMExports();
});

afterAll(() => {
  restores.splice(0).forEach((r) => r());
  syncBuiltinESMExports();
});

describe('sim backend: no network', () => {
  it('the traps really catch connection attempts', () => {
    expect(() => new net.Socket().connect(80, '127.0.0.1')).toThrow(/network access attempted/);
    expect(() => http.get('http://127.0.0.1:9/')).toThrow(/network access attempted/);
    expect(attempts).toEqual(['net.Socket#connect', 'http.get']);
    attempts.length = 0;
  });

  it('a full replay + optimizer sequence opens no socket', async () => {
    const dir = makeTempDir();
    const db = openDb(path.join(dir, 'sleep.db'));
    try {
      const target = createSimBackend({ seed: 5, latencyMs: 1, role: 'target' });
      const optimizer = createSimBackend({ seed: 5, latencyMs: 1, role: 'optimizer', harmfulEditRate: 0.2, irrelevantEditRate: 0.2, malformedJsonRate: 0.3 });
      const judge = createSimBackend({ seed: 5, role: 'judge' });
      const miner = createSimBackend({ seed: 5, role: 'miner' });
      const tasks = simPersonaTasks(5, 15);
      const rollouts = await rolloutBatch({ db, tasks, skill: { name: 's', content: '' }, target, judge, concurrency: 4 });
      const digests = rollouts.map((r) => ({ taskId: r.taskId, intent: 'x', response: r.response, score: r.softScore, passed: r.hardScore === 1, feedback: r.feedback }));
      const call = <S extends Parameters<typeof completeJson>[2]>(operation: Parameters<typeof completeJson>[1]['operation'], payload: unknown, schema: S) =>
        completeJson(optimizer, { role: 'optimizer', operation, prompt: operation, payload } as Parameters<typeof completeJson>[1], schema).catch((e: Error) => e);
      const reflected = await call('reflect', { skill: '', mode: 'failures', rollouts: digests.filter((d) => !d.passed), rejectedEdits: [], metaSkill: '', maxEdits: 4 }, ReflectReply);
      const edits = reflected instanceof Error ? [] : reflected.value.edits;
      await call('reflect', { skill: '', mode: 'successes', rollouts: digests.filter((d) => d.passed), rejectedEdits: [], metaSkill: '', maxEdits: 2 }, ReflectReply);
      await call('merge', { skill: '', patches: [edits], maxEdits: 4 }, MergeReply);
      await call('rank', { skill: '', edits, budget: 2 }, RankReply);
      await call('lr_budget', { skill: '', step: 1, totalSteps: 4, min: 1, max: 4, recentAcceptRate: 0.5, candidateEdits: edits.length }, LrBudgetReply);
      const candidate = edits.map((e) => e.content).join('\n');
      await scoreSkill({ db, tasks, skill: { name: 's', content: candidate }, target, judge, metric: 'mixed' });
      await call('slow_update', { skillBefore: '', skillAfter: candidate, currentGuidance: '', perTask: [] }, SlowUpdateReply);
      await call('meta_skill', { previousMeta: '', epoch: 1, accepted: edits, rejected: [], valBefore: 0.2, valAfter: 0.4 }, MetaSkillReply);
      await completeJson(judge, { role: 'judge', operation: 'judge_rubric', prompt: 'j', payload: { rubric: '- States the risk.', intent: 'x', response: 'risk: low' } }, JudgeRubricReply);
      await completeJson(miner, { role: 'miner', operation: 'mine_task', prompt: 'm', payload: { prompts: ['write tests'], corrections: [], project: null } }, MineTaskReply);
      expect(target.totalCalls()).toBeGreaterThanOrEqual(15);
      expect(optimizer.totalCalls()).toBeGreaterThanOrEqual(7);
      expect(attempts).toEqual([]);
      expect([target, optimizer, judge, miner].every((b) => b.destination === 'local')).toBe(true);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
