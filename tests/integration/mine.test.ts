import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { defaultConfig, type Config } from '../../src/core/config.js';
import type { Backend, LlmReply, LlmRequest } from '../../src/core/protocol.js';
import { checkStoredSplitIntegrity, optimizerView, runMining } from '../../src/mine/index.js';
import { getTask, listOccurrences, listTasks, setTaskStatus, upsertTask } from '../../src/store/repos/tasks.js';
import { acquireLease } from '../../src/store/repos/leases.js';
import { addSession, generateCorpus, insertCorpus } from '../../bench/mine-corpus.js';
import { makeTempDir } from '../helpers/sandbox.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function freshDb(): Db {
  const d = makeTempDir();
  dirs.push(d);
  return openDb(path.join(d, 'state', 'sleep.db'));
}
const T0 = Date.UTC(2026, 9, 1);

function changelogSessions(db: Db): void {
  addSession(db, {
    id: 'claude-code:a1',
    project: '/home/dana/src/ledgerline',
    startedAt: T0,
    turns: [
      { user: 'Write a changelog entry for the rounding fix (#412).', tools: ['Read', 'Edit'], reply: 'Added.' },
      { user: 'no, Keep a Changelog format' },
      { user: 'link the PR' },
    ],
  });
  addSession(db, {
    id: 'codex:b2',
    agent: 'codex',
    project: '/home/dana/src/atlas-web',
    startedAt: T0 + 86_400_000,
    turns: [{ user: 'add a changelog entry for the pagination fix in #77', tools: ['Bash'] }, { user: 'wrong format - use Keep a Changelog' }],
  });
  addSession(db, {
    id: 'copilot:c3',
    agent: 'copilot',
    project: '/home/dana/src/ledgerline',
    startedAt: T0 + 2 * 86_400_000,
    turns: [{ user: '<userRequest>changelog entry for the timezone fix please</userRequest>' }, { user: 'thanks!' }],
  });
}

describe('runMining', () => {
  it('turns each occurrence of a recurring ask into a task sharing the family judge and corrections', async () => {
    const db = freshDb();
    changelogSessions(db);
    addSession(db, { id: 'claude-code:one-off', turns: [{ user: 'explain how websocket reconnection interacts with the kafka consumer' }] });
    addSession(db, { id: 'claude-code:sub', kind: 'subagent', turns: [{ user: 'write a changelog entry for the subagent' }] });
    addSession(db, { id: 'claude-code:self', kind: 'self', turns: [{ user: 'write a changelog entry for our own replay' }] });
    const s = await runMining(db, defaultConfig(), { now: T0 + 10 * 86_400_000 });
    expect(s.sessions).toBe(4); // subagent and self sessions are not read
    expect(s.recurringTasks).toBe(1); // one recurring family…
    expect(s.newTasks).toBe(3); // …with one task per occurrence
    const tasks = listTasks(db);
    expect(new Set(tasks.map((t) => t.family)).size).toBe(1);
    expect(tasks[0].family).toBeTruthy();
    // each instance keeps its own ask, project and agent
    const bySession = (id: string) => tasks.find((t) => listOccurrences(db, t.id).some((o) => o.sessionId === id))!;
    expect(bySession('codex:b2').intent).toBe('add a changelog entry for the pagination fix in #77');
    expect(bySession('codex:b2').project).toBe('/home/dana/src/atlas-web');
    expect(bySession('codex:b2').agents).toEqual(['codex']);
    expect(bySession('claude-code:a1').project).toBe('/home/dana/src/ledgerline');
    for (const t of tasks) {
      expect(t.occurrences).toBe(1);
      expect(t.intent.toLowerCase()).toContain('changelog');
      // the family's corrections and checks are shared; the rubric names the instance's own ask
      expect(t.corrections).toEqual(['no, Keep a Changelog format', 'link the PR', 'wrong format - use Keep a Changelog']);
      expect(t.judge.checks).toEqual(tasks[0].judge.checks);
      expect(t.judge.reference.kind === 'rubric' && t.judge.reference.rubric).toContain(t.intent.slice(0, 40));
    }
    // a family of 3 is stratified: at least one train and one validation task
    expect(tasks.map((t) => t.split)).toEqual(expect.arrayContaining(['train', 'val']));
    const task = bySession('claude-code:a1');
    const checks = task.judge.checks;
    expect(checks.some((c) => c.op === 'regex' && /unreleased/i.test(String(c.value)))).toBe(true);
    expect(checks.some((c) => c.op === 'regex' && String(c.value).includes('pull'))).toBe(true);
    expect(checks.some((c) => c.op === 'no_refusal')).toBe(true);
    expect(checks.some((c) => c.sealed)).toBe(true);
    const occ = listOccurrences(db, task.id);
    expect(occ.map((o) => o.sessionId)).toEqual(['claude-code:a1']);
    const first = occ[0].outcome as { label: string; tools: string[] };
    expect(first.label).toBe('corrected');
    expect(first.tools).toEqual(['Read', 'Edit']);
    expect((listOccurrences(db, bySession('copilot:c3').id)[0].outcome as { label: string }).label).toBe('success');
    // corrections are evidence on the ask they follow, never asks of their own
    expect(db.prepare("SELECT COUNT(*) FROM cluster_members WHERE prompt LIKE '%Keep a Changelog%' OR prompt LIKE 'link the PR%'").pluck().get()).toBe(0);
    // the optimizer-facing view of the stored task has no sealed check
    expect(optimizerView(task).judge.checks.every((c) => !c.sealed)).toBe(true);
    // sessions are marked mined: a second run reads nothing
    const again = await runMining(db, defaultConfig(), { now: T0 + 11 * 86_400_000 });
    expect(again.sessions).toBe(0);
    expect(again.newTasks + again.updatedTasks).toBe(0);
    db.close();
  });

  it('is incremental: new sessions join the stored clusters, curated tasks keep their definition', async () => {
    const db = freshDb();
    insertCorpus(db, generateCorpus({ sessions: 400, seed: 3 }), T0);
    const first = await runMining(db, defaultConfig(), { now: T0 + 1 });
    const clustersBefore = first.clusters;
    const tasks = listTasks(db);
    const curated = tasks[0];
    upsertTask(db, { ...curated, intent: 'A curated intent', reviewed: true });
    const disabled = tasks[1];
    setTaskStatus(db, disabled.id, 'disabled');

    const more = generateCorpus({ sessions: 60, seed: 4, idPrefix: 'late', startTs: T0 + 30 * 86_400_000, familyShare: 1 });
    insertCorpus(db, more, T0 + 31 * 86_400_000);
    const second = await runMining(db, defaultConfig(), { now: T0 + 32 * 86_400_000 });
    expect(second.sessions).toBe(more.sessions.filter((s) => s.kind === 'interactive' || s.kind === 'headless').length);
    // family asks join the existing families, each occurrence a new task of its family
    const familiesBefore = new Set(tasks.map((t) => t.family));
    const added = listTasks(db).filter((t) => !tasks.some((b) => b.id === t.id));
    expect(second.newTasks).toBe(added.length);
    expect(added.length).toBeGreaterThan(20);
    expect(added.filter((t) => familiesBefore.has(t.family)).length / added.length).toBeGreaterThanOrEqual(0.9);
    expect(second.clusters - clustersBefore).toBeLessThan(15);
    const after = getTask(db, curated.id)!;
    expect(after.intent).toBe('A curated intent');
    expect(after.split).toBe(curated.split);
    expect(getTask(db, disabled.id)!.status).toBe('disabled');
    for (const t of tasks) {
      const now = getTask(db, t.id);
      if (now) expect(now.split).toBe(t.split); // splits never move
    }
    expect(checkStoredSplitIntegrity(db)).toEqual([]);
    db.close();
  });

  it('re-reads a resumed session: a late correction lands on the task without duplicating the ask', async () => {
    const db = freshDb();
    changelogSessions(db);
    await runMining(db, defaultConfig(), { now: T0 + 5 * 86_400_000 });
    const before = listTasks(db);
    const task = before.find((t) => /timezone/.test(t.intent))!;
    addSession(db, { id: 'copilot:c3', agent: 'copilot', startedAt: T0 + 2 * 86_400_000, updatedAt: T0 + 6 * 86_400_000, turns: [{ user: 'put it under Unreleased, Keep a Changelog style' }] });
    const s = await runMining(db, defaultConfig(), { now: T0 + 7 * 86_400_000 });
    expect(s.sessions).toBe(1);
    const after = getTask(db, task.id)!;
    expect(after.occurrences).toBe(1);
    expect(after.corrections).toContain('put it under Unreleased, Keep a Changelog style');
    expect(listOccurrences(db, task.id)).toHaveLength(1);
    // the same tasks, each now carrying the family's new correction
    expect(listTasks(db).map((t) => t.id)).toEqual(before.map((t) => t.id));
    for (const t of listTasks(db)) expect(t.corrections).toContain('put it under Unreleased, Keep a Changelog style');
    db.close();
  });

  it('uses the miner role when configured, and falls back to heuristics when it fails', async () => {
    const db = freshDb();
    changelogSessions(db);
    const config: Config = defaultConfig();
    config.mining.useLlm = true;
    const reply = { intent: 'Write a Keep a Changelog entry for a merged fix and link its PR', context: '', checks: [{ op: 'regex', value: '\\(#\\d+\\)', description: 'PR link' }, { op: 'regex', value: '(' }] };
    const calls: LlmRequest[] = [];
    const miner: Backend = {
      name: 'scripted',
      model: 'm',
      destination: 'local',
      async complete(req): Promise<LlmReply> {
        calls.push(req);
        return { text: JSON.stringify(reply), backend: 'scripted', model: 'm', tokensIn: 0, tokensOut: 0, costUsd: 0, latencyMs: 0, cached: false };
      },
    };
    const s = await runMining(db, config, { backends: { miner }, now: T0 + 9 * 86_400_000 });
    // one cluster review for the run, one miner call for the family
    expect(calls.map((c) => c.operation).sort()).toEqual(['mine_task', 'review_clusters']);
    expect(calls.find((c) => c.operation === 'mine_task')!.payload).toMatchObject({ corrections: expect.arrayContaining(['link the PR']) });
    expect(s.llm.invalidChecks).toHaveLength(1);
    // one miner call per family; its checks become the family's judge, each task keeps its own ask
    const mined = listTasks(db);
    expect(mined).toHaveLength(3);
    for (const task of mined) {
      expect(task.intent).not.toBe(reply.intent);
      expect(task.judge.checks.some((c) => c.value === '\\(#\\d+\\)')).toBe(true);
      expect(task.judge.checks.some((c) => c.op === 'no_refusal')).toBe(true);
    }

    const db2 = freshDb();
    changelogSessions(db2);
    const failing: Backend = { ...miner, complete: async () => Promise.reject(new Error('429 rate limited')) };
    const s2 = await runMining(db2, config, { backends: { miner: failing } });
    expect(s2.llm.failures[0]).toMatch(/429/);
    expect(s2.review?.failure).toMatch(/429/); // a failed review keeps the clusters as mined
    expect(listTasks(db2)[0].intent.toLowerCase()).toContain('changelog');
    db.close();
    db2.close();
  });

  it('reports thin data and shared occurrences across splits', async () => {
    const db = freshDb();
    changelogSessions(db);
    const s = await runMining(db, defaultConfig());
    expect(s.thin).toHaveLength(1);
    expect(s.thin[0].needed).toBeGreaterThan(0);
    const [task] = listTasks(db);
    const otherSplit = task.split === 'train' ? 'val' : 'train';
    upsertTask(db, { ...task, id: 'task_copy', intent: 'a different wording entirely', split: otherSplit });
    db.prepare(`INSERT INTO task_occurrences(task_id, session_id, event_seq, ts, prompt, outcome) SELECT 'task_copy', session_id, event_seq, ts, prompt, outcome FROM task_occurrences WHERE task_id = ?`).run(task.id);
    expect(checkStoredSplitIntegrity(db).map((v) => v.kind)).toContain('shared_occurrence');
    db.close();
  });

  it('refuses to run while another miner holds the lease, and stops on abort without writing tasks', async () => {
    const db = freshDb();
    changelogSessions(db);
    acquireLease(db, 'mine', 'someone-else', 60_000, {}, Date.now());
    await expect(runMining(db, defaultConfig())).rejects.toThrow(/already running/);
    db.prepare("DELETE FROM leases WHERE name = 'mine'").run();
    const ac = new AbortController();
    ac.abort();
    await expect(runMining(db, defaultConfig(), { signal: ac.signal })).rejects.toThrow(/aborted/);
    expect(listTasks(db)).toEqual([]);
    expect(db.prepare('SELECT COUNT(*) FROM sessions WHERE mined_at IS NOT NULL').pluck().get()).toBe(0);
    db.close();
  });
});

describe('crash between writing clusters and marking sessions mined', () => {
  it('a re-run does not cluster the same asks twice', async () => {
    const db = freshDb();
    changelogSessions(db);
    await runMining(db, defaultConfig(), { now: T0 + 5 * 86_400_000 });
    const ids = listTasks(db).map((t) => [t.id, t.split]);
    const size = db.prepare('SELECT SUM(size) FROM clusters').pluck().get();
    // simulate the crash: tasks written late never happened, sessions look unmined
    db.prepare('UPDATE sessions SET mined_at = NULL').run();
    const again = await runMining(db, defaultConfig(), { now: T0 + 6 * 86_400_000 });
    expect(again.sessions).toBe(3);
    expect(db.prepare('SELECT SUM(size) FROM clusters').pluck().get()).toBe(size);
    expect(listTasks(db)).toHaveLength(3);
    expect(listTasks(db).map((t) => t.occurrences)).toEqual([1, 1, 1]);
    expect(listTasks(db).map((t) => [t.id, t.split])).toEqual(ids); // ids and splits stable across re-mining
    db.close();
  });
});

describe('with the simulated miner backend', () => {
  it('writes the task from the sim miner reply, with valid, unique checks', async () => {
    const { createSimBackend } = await import('../../src/llm/sim/index.js');
    const db = freshDb();
    changelogSessions(db);
    const config = defaultConfig();
    config.mining.useLlm = true;
    const s = await runMining(db, config, { backends: { miner: createSimBackend({ seed: 7, role: 'miner' }) } });
    expect(s.llm.calls).toBe(1);
    expect(s.llm.failures).toEqual([]);
    const [task] = listTasks(db);
    const ids = task.judge.checks.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(task.judge.checks.some((c) => c.op === 'no_refusal')).toBe(true);
    // a later run without the miner keeps the miner's definition
    addSession(db, { id: 'claude-code:late', startedAt: T0 + 20 * 86_400_000, turns: [{ user: 'write a changelog entry for the retry fix' }] });
    addSession(db, { id: 'claude-code:later', startedAt: T0 + 21 * 86_400_000, turns: [{ user: 'write a changelog entry for the timeout fix' }] });
    const before = listTasks(db)[0];
    await runMining(db, defaultConfig());
    const after = listTasks(db)[0];
    expect(after.intent).toBe(before.intent);
    expect(after.judge).toEqual(before.judge);
    // the new occurrences are new tasks of the family; the family's splits stay stratified (of 5: 2 val,
    // 1 test), and the new validation task is judged by the miner's checks too
    const all = listTasks(db);
    expect(all).toHaveLength(5);
    const late = all.filter((t) => /retry fix|timeout fix/.test(t.intent));
    expect(late.map((t) => t.family)).toEqual([before.family, before.family]);
    expect(late.map((t) => t.split).sort()).toEqual(['test', 'val']);
    expect(all.filter((t) => t.split === 'val')).toHaveLength(2);
    expect(late.find((t) => t.split === 'val')!.judge.checks).toEqual(before.judge.checks);
    db.close();
  });
});
