/**
 * The judge audit (src/replay/judge-audit.ts) with the sim target and judge: a judge that grades
 * right passes, one whose grades are turned around 30% of the time fails on re-grades and against
 * the rule checks, a judge that grades nothing is not audited, and the rule probe only puts plain
 * words to the judge.
 */
import { describe, expect, it } from 'vitest';
import { TaskSchema, type Task } from '../../src/core/records.js';
import type { Backend, LlmReply, LlmRequest, Operation } from '../../src/core/protocol.js';
import { createSimBackend } from '../../src/llm/sim/index.js';
import { auditJudge, auditSample, JUDGE_AUDIT_SAMPLE, MAX_JUDGE_DISAGREEMENT } from '../../src/replay/judge-audit.js';
import { judgeAuditTasks } from '../../src/night/item.js';
import { openDb } from '../../src/store/db.js';
import { rolloutBatchWithStats } from '../../src/replay/batch.js';
import { makeTempDir } from '../helpers/sandbox.js';
import fs from 'node:fs';
import path from 'node:path';

const asks = ['CSV export', 'retry fix', 'dark mode toggle', 'search index', 'legacy exporter removal', 'audit log page', 'rate limiter', 'login timeout fix', 'upload progress bar', 'cache eviction'];

const tasks = (judge: (i: number) => unknown): Task[] =>
  asks.map((a, i) =>
    TaskSchema.parse({ id: `t${i}`, project: null, intent: `Write the changelog entry for the ${a}`, judge: judge(i), split: i % 2 ? 'val' : 'train', origin: 'real', occurrences: 2, firstSeen: null, lastSeen: null }),
  );

const rubricAndRule = (i: number) => ({
  checks: [{ id: 'word', op: i % 3 ? 'contains' : 'not_contains', value: i % 2 ? 'changelog' : 'export' }],
  reference: { kind: 'rubric', rubric: '- The user said: "mention the change by name"' },
});

const sim = (role: 'target' | 'judge', judgeWrongRate = 0) => createSimBackend({ seed: 3, role, judgeWrongRate });
const skill = { name: 'changelog', content: 'Write a one-line entry that names the change.' };

describe('auditJudge', () => {
  it('a judge that grades right passes, with both probes measured', async () => {
    const audit = await auditJudge({ tasks: tasks(rubricAndRule), skill, target: sim('target'), judge: sim('judge'), seed: 1 });
    expect(audit.verdict, audit.reason).toBe('passed');
    expect(audit.sampled).toBe(8);
    expect(audit.repeat).toMatchObject({ pairs: 8, disagreements: 0 });
    expect(audit.rules.pairs).toBeGreaterThan(4);
    expect(audit.rules.disagreements).toBe(0);
  });

  it('a judge whose grades are turned around 30% of the time fails, and the reason gives the figures', async () => {
    let failed = 0;
    for (const seed of [1, 2, 3, 4, 5]) {
      const audit = await auditJudge({ tasks: tasks(rubricAndRule), skill, target: sim('target'), judge: sim('judge', 0.3), seed });
      if (audit.verdict === 'failed') {
        failed++;
        expect(audit.reason).toMatch(/not consistent enough to gate on \(re-graded the same reply: \d+ of \d+ disagreed; against its rule checks: \d+ of \d+ disagreed; more than 20% is not allowed\)/);
        expect(audit.repeat.disagreements + audit.rules.disagreements).toBeGreaterThan(MAX_JUDGE_DISAGREEMENT * (audit.repeat.pairs + audit.rules.pairs) - 1e-9);
      }
    }
    // each seed's sample differs; a 30%-wrong judge slips through one of them at most
    expect(failed).toBeGreaterThanOrEqual(4);
  });

  it('tasks the judge never grades (rule checks only) are not audited and cost no call', async () => {
    const target = sim('target');
    const judge = sim('judge');
    const audit = await auditJudge({ tasks: tasks(() => ({ checks: [{ id: 'w', op: 'contains', value: 'changelog' }] })), skill, target, judge, seed: 1 });
    expect(audit.verdict).toBe('skipped');
    expect(target.totalCalls() + judge.totalCalls()).toBe(0);
  });

  it('the rule probe puts only plain words to the judge, never sealed checks or punctuation', async () => {
    const prompts: string[] = [];
    const inner = sim('judge');
    const judge: Backend = {
      name: 'sim',
      model: 'sim-judge',
      destination: 'local',
      async complete<O extends Operation>(req: LlmRequest<O>, signal?: AbortSignal): Promise<LlmReply> {
        prompts.push(req.prompt);
        return inner.complete(req, signal);
      },
    };
    const judged = tasks((i) => ({
      checks: [i % 2 ? { id: 'dot', op: 'contains', value: '.each' } : { id: 'hidden', op: 'contains', value: 'changelog', sealed: true }],
      reference: { kind: 'rubric', rubric: 'The reply names the change.' },
    }));
    const audit = await auditJudge({ tasks: judged, skill, target: sim('target'), judge, seed: 1 });
    expect(audit.rules.pairs).toBe(0);
    expect(prompts.some((p) => /must include/.test(p))).toBe(false);
  });

  it('the sample is fixed by the seed, not by the order of the tasks', () => {
    const all = tasks(rubricAndRule);
    const a = auditSample(all, 7).map((t) => t.id);
    const b = auditSample([...all].reverse(), 7).map((t) => t.id);
    expect(a).toEqual(b);
    expect(a).toHaveLength(8);
  });

  it("the night's audit replays validation tasks first, so the trainer's first measure of the starting skill on val is already paid for", async () => {
    const all = tasks(rubricAndRule);
    const split = { train: all.filter((t) => t.split === 'train'), val: all.filter((t) => t.split === 'val') };
    const picked = judgeAuditTasks(split, 7);
    expect(picked).toHaveLength(JUDGE_AUDIT_SAMPLE);
    // every val task (5) is in, the train tasks fill the rest
    expect(picked.filter((t) => t.split === 'val').map((t) => t.id).sort()).toEqual(split.val.map((t) => t.id).sort());
    // the audit's rollouts are the ones the trainer's val measure of the same skill reads from the cache
    const dir = makeTempDir('sos-audit-cache-');
    const db = openDb(path.join(dir, 'state.db'));
    try {
      await auditJudge({ db, tasks: picked, skill, target: sim('target'), judge: sim('judge'), seed: 7 });
      const val = await rolloutBatchWithStats({ db, tasks: split.val, skill, target: sim('target'), judge: sim('judge') });
      expect(val.stats.cacheHits).toBe(split.val.length);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // test tasks before train tasks: the starting skill's test figure reads them from the cache too
    const test = split.train.slice(0, 2).map((t) => ({ ...t, id: `${t.id}-test`, split: 'test' as const }));
    const withTest = judgeAuditTasks({ ...split, test }, 7);
    expect(withTest.slice(0, split.val.length + test.length).map((t) => t.id).sort()).toEqual([...split.val, ...test].map((t) => t.id).sort());
    expect(withTest.slice(split.val.length + test.length).map((t) => t.id)).toEqual(auditSample(split.train, 7, JUDGE_AUDIT_SAMPLE - split.val.length - test.length).map((t) => t.id));
    // as many val tasks as the sample or more: the draw is over val alone
    expect(judgeAuditTasks({ train: split.train, val: all }, 7).map((t) => t.id)).toEqual(auditSample(all, 7).map((t) => t.id));
  });
});
