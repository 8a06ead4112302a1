import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { createSimBackend } from '../../src/llm/sim/index.js';
import { personaIdealSkill, simPersonaTasks } from '../../bench/persona.js';
import { rolloutBatch, rolloutBatchWithStats, scoreSkill, summarizeRollouts, rolloutScore, RolloutCache, rolloutCacheKey } from '../../src/replay/index.js';
import type { Backend, LlmReply, LlmRequest, Operation } from '../../src/core/protocol.js';
import type { Progress } from '../../src/core/progress.js';
import { TaskSchema } from '../../src/core/records.js';
import { SleepError } from '../../src/core/errors.js';
import { makeTempDir } from '../helpers/sandbox.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));
function tempDb(): Db {
  const dir = makeTempDir();
  const db = openDb(path.join(dir, 'state', 'sleep.db'));
  cleanups.push(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return db;
}

/** Wraps a backend to measure in-flight calls. */
function instrumented(inner: Backend): Backend & { maxInFlight: number; calls: number } {
  let inFlight = 0;
  const w = {
    name: inner.name,
    model: inner.model,
    destination: inner.destination,
    maxInFlight: 0,
    calls: 0,
    async complete<O extends Operation>(req: LlmRequest<O>, signal?: AbortSignal): Promise<LlmReply> {
      w.calls++;
      inFlight++;
      w.maxInFlight = Math.max(w.maxInFlight, inFlight);
      try {
        return await inner.complete(req, signal);
      } finally {
        inFlight--;
      }
    },
  };
  return w;
}

const tasks = simPersonaTasks(21, 24, { ruleOnly: true });
const skill = { name: 'conventions', content: personaIdealSkill() };

describe('rolloutBatch', () => {
  it('fromSample rolls out only the samples from that index on, each the same rollout a full batch would give', async () => {
    const target = instrumented(createSimBackend({ seed: 4 }));
    const three = tasks.slice(0, 3);
    const tail = await rolloutBatch({ tasks: three, skill, target, samples: 12, fromSample: 10, concurrency: 2 });
    // two samples a task, not twelve: the ten below index 10 would only be replayed to be left out
    expect(target.calls).toBe(3 * 2);
    expect(tail.map((r) => [r.taskId, r.sample])).toEqual(three.flatMap((t) => [[t.id, 10], [t.id, 11]]));
    const full = await rolloutBatch({ tasks: three, skill, target: createSimBackend({ seed: 4 }), samples: 12, concurrency: 2 });
    const strip = (r: (typeof tail)[number]) => ({ taskId: r.taskId, sample: r.sample, response: r.response, hard: r.hardScore, soft: r.softScore });
    expect(tail.map(strip)).toEqual(full.filter((r) => r.sample >= 10).map(strip));
  });

  it('bounds concurrency, keeps input order, reports progress', async () => {
    const target = instrumented(createSimBackend({ seed: 1, latencyMs: 15 }));
    const events: string[] = [];
    const progress: Progress = {
      start: (label, total) => events.push(`start ${label} ${total}`),
      tick: (n = 1) => events.push(`tick ${n}`),
      log: () => {},
      done: (s) => events.push(`done ${s}`),
    };
    const rs = await rolloutBatch({ tasks, skill, target, judge: target, concurrency: 3, samples: 2, progress, label: 'val' });
    expect(rs.map((r) => `${r.taskId}/${r.sample}`)).toEqual(tasks.flatMap((t) => [`${t.id}/0`, `${t.id}/1`]));
    expect(target.maxInFlight).toBe(3);
    expect(target.calls).toBe(48);
    expect(events[0]).toBe('start val 48');
    expect(events.filter((e) => e.startsWith('tick'))).toHaveLength(48);
    expect(events.at(-1)).toBe('done 48 rollouts (0 cached)');
  });

  it('caches in SQLite: an unchanged skill on unchanged tasks costs no model call', async () => {
    const db = tempDb();
    const target = instrumented(createSimBackend({ seed: 1 }));
    const first = await rolloutBatchWithStats({ db, tasks, skill, target, judge: target });
    expect(target.calls).toBe(tasks.length);
    expect(first.stats.cacheHits).toBe(0);
    const again = await rolloutBatchWithStats({ db, tasks, skill, target, judge: target });
    expect(target.calls).toBe(tasks.length);
    expect(again.stats.cacheHits).toBe(tasks.length);
    expect(again.rollouts.every((r) => r.cached)).toBe(true);
    expect(again.rollouts.map((r) => r.softScore)).toEqual(first.rollouts.map((r) => r.softScore));
    const row = db.prepare('SELECT COUNT(*) AS n FROM rollouts').get() as { n: number };
    expect(row.n).toBe(tasks.length);

    // any change of the key misses: skill content, sample, target model, the task's checks
    await rolloutBatch({ db, tasks: tasks.slice(0, 2), skill: { ...skill, content: `${skill.content}\n- one more rule` }, target, judge: target });
    expect(target.calls).toBe(tasks.length + 2);
    await rolloutBatch({ db, tasks: tasks.slice(0, 2), skill, target, judge: target, samples: 2 });
    expect(target.calls).toBe(tasks.length + 4); // sample 0 cached, sample 1 new
    const other = instrumented(createSimBackend({ seed: 1, model: 'sim-2' }));
    await rolloutBatch({ db, tasks: tasks.slice(0, 1), skill, target: other, judge: other });
    expect(other.calls).toBe(1);
    const edited = { ...tasks[0], judge: { ...tasks[0].judge, checks: tasks[0].judge.checks.slice(1) } };
    await rolloutBatch({ db, tasks: [edited], skill, target, judge: target });
    expect(target.calls).toBe(tasks.length + 5);
    // useCache: false neither reads nor writes
    await rolloutBatch({ db, tasks: tasks.slice(0, 3), skill, target, judge: target, useCache: false });
    expect(target.calls).toBe(tasks.length + 8);
  });

  it('never caches failed rollouts, and treats a corrupt cache row as a miss', async () => {
    const db = tempDb();
    const t = tasks[0];
    let fail = true;
    const flaky: Backend = {
      name: 'flaky',
      model: 'm',
      destination: 'local',
      async complete(req, signal) {
        if (fail) throw new SleepError('BACKEND_TIMEOUT', 'timed out');
        return createSimBackend({ seed: 1 }).complete(req, signal);
      },
    };
    const [bad] = await rolloutBatch({ db, tasks: [t], skill, target: flaky });
    expect(bad.error).toBe('timed out');
    fail = false;
    const [good] = await rolloutBatch({ db, tasks: [t], skill, target: flaky });
    expect(good.error).toBeUndefined();
    expect(good.cached).toBe(false);
    const key = rolloutCacheKey({ skill, task: t, target: flaky, sample: 0 });
    db.prepare('UPDATE rollouts SET record = ? WHERE cache_key = ?').run('{not json', key);
    expect(new RolloutCache(db).get(key)).toBeNull();
    const [again] = await rolloutBatch({ db, tasks: [t], skill, target: flaky });
    expect(again.cached).toBe(false);
    expect(new RolloutCache(db).get(key)?.taskId).toBe(t.id);
  });

  it('aborts promptly mid-batch with a typed error', async () => {
    const target = createSimBackend({ seed: 1, latencyMs: 200 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const t0 = Date.now();
    await expect(rolloutBatch({ tasks, skill, target, concurrency: 2, signal: ac.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(Date.now() - t0).toBeLessThan(180);
  });

  it('a fatal error (budget) stops the other workers and propagates', async () => {
    let calls = 0;
    const target: Backend = {
      name: 'b',
      model: 'm',
      destination: 'x',
      async complete(req, signal) {
        calls++;
        if (calls === 3) throw new SleepError('BUDGET_EXCEEDED', 'night budget reached');
        return createSimBackend({ seed: 1, latencyMs: 10 }).complete(req, signal);
      },
    };
    await expect(rolloutBatch({ tasks, skill, target, concurrency: 2 })).rejects.toMatchObject({ code: 'BUDGET_EXCEEDED' });
    expect(calls).toBeLessThan(6);
  });
});

describe('scoreSkill', () => {
  it('returns per-task scores (mean over samples) and the split mean, for each metric', async () => {
    const sim = createSimBackend({ seed: 2 });
    const val = tasks.filter((t) => t.split === 'val');
    const soft = await scoreSkill({ tasks: val, skill, target: sim, judge: sim, metric: 'soft', samples: 2 });
    expect(soft.perTask.map((p) => p.taskId)).toEqual(val.map((t) => t.id));
    expect(soft.rollouts).toHaveLength(val.length * 2);
    for (const p of soft.perTask) {
      const rs = soft.rollouts.filter((r) => r.taskId === p.taskId);
      expect(p.score).toBeCloseTo((rs[0].softScore + rs[1].softScore) / 2, 10);
    }
    expect(soft.mean).toBeCloseTo(soft.perTask.reduce((a, p) => a + p.score, 0) / val.length, 10);
    const hard = summarizeRollouts(soft.rollouts, 'hard');
    const mixed = summarizeRollouts(soft.rollouts, 'mixed');
    expect(mixed.mean).toBeCloseTo((hard.mean + soft.mean) / 2, 10);
    expect(rolloutScore({ hardScore: 0, softScore: 1 }, 'mixed', 0.25)).toBe(0.25);
    const empty = await scoreSkill({ tasks: val, skill: { name: 's', content: '' }, target: sim, judge: sim, metric: 'soft' });
    expect(soft.mean).toBeGreaterThan(empty.mean + 0.3);
  });

  it('scores error rollouts as 0 and an empty split as 0', async () => {
    const failing: Backend = { name: 'x', model: 'm', destination: 'x', complete: async () => Promise.reject(new Error('boom')) };
    const s = await scoreSkill({ tasks: tasks.slice(0, 2), skill, target: failing, metric: 'soft' });
    expect(s.mean).toBe(0);
    expect(s.rollouts.every((r) => r.error === 'boom')).toBe(true);
    expect((await scoreSkill({ tasks: [], skill, target: failing, metric: 'hard' })).mean).toBe(0);
  });

  it('judges rubric tasks with the judge backend and caches them too', async () => {
    const db = tempDb();
    const t = TaskSchema.parse({
      id: 'rub',
      project: null,
      intent: 'Summarize the PR for reviewers',
      judge: { checks: [], reference: { kind: 'rubric', rubric: '- States the risk level.\n- Names the files touched.' } },
      split: 'val',
      origin: 'real',
      occurrences: 1,
      firstSeen: null,
      lastSeen: null,
    });
    const target = instrumented(createSimBackend({ seed: 3 }));
    const judge = instrumented(createSimBackend({ seed: 3, role: 'judge' }));
    const withRule = { name: 's', content: '- Always state the risk level.\n- Always name the files touched.' };
    const good = await scoreSkill({ db, tasks: [t], skill: withRule, target, judge, metric: 'soft' });
    const none = await scoreSkill({ db, tasks: [t], skill: { name: 's', content: '' }, target, judge, metric: 'soft' });
    expect(judge.calls).toBe(2);
    expect(good.mean).toBeGreaterThan(none.mean);
    await scoreSkill({ db, tasks: [t], skill: withRule, target, judge, metric: 'soft' });
    expect(judge.calls).toBe(2);
    expect(target.calls).toBe(2);
  });
});
