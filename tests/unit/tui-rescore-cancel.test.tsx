/**
 * Cancelling the re-scoring of a partial selection: Esc (or q) in the review aborts the replay
 * through its AbortSignal, nothing is written and the selection stays; below the UI, the trainer's
 * `rescoreSubset` and the review's `rescoreEdits` reject promptly with ABORTED mid-replay and never
 * turn the rollouts that did finish into a score.
 */
import fs from 'node:fs';
import path from 'node:path';
import React from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { eventually, frame, press, see, settle } from '../helpers/ink-keys.js';
import { App } from '../../src/tui/App.js';
import { SleepError, isSleepError } from '../../src/core/errors.js';
import { helpFor } from '../../src/tui/keymap.js';
import type { ReviewServices, RescoreOutcome } from '../../src/tui/services.js';
import { makeProposal, makeServices } from '../fixtures/tui-fixtures.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { seedReview, type SeededSkill } from '../helpers/seed-review.js';
import { openDb, type Db } from '../../src/store/db.js';
import { resolvePaths } from '../../src/core/paths.js';
import { defaultConfig } from '../../src/core/config.js';
import type { Backend, LlmReply, LlmRequest, Operation, PerformPayload } from '../../src/core/protocol.js';
import { createSimBackend } from '../../src/llm/sim/index.js';
import { contentForEdits, rescoreSubset } from '../../src/proposals/partial.js';
import { cachedScore, rescoreEdits } from '../../src/tui/rescore.js';
import { createStoreServices } from '../../src/tui/store-services.js';
import { skillHash } from '../../src/replay/index.js';



/** Resolves when `signal` aborts, rejecting like the replay layer does (SleepError ABORTED). */
function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(new SleepError('ABORTED', 'replay aborted', { cause: signal?.reason }));
    if (signal?.aborted) return fail();
    signal?.addEventListener('abort', fail, { once: true });
  });
}

/** The fixture services, with a `rescore` that runs until its signal aborts (a slow replay). */
function servicesWithSlowRescore(rescore?: ReviewServices['rescore']) {
  const base = makeServices([makeProposal({ id: 'p-new', name: 'changelog' })]);
  const calls: Array<{ editIds: string[]; signal?: AbortSignal }> = [];
  const services: ReviewServices = {
    ...base.services,
    rescore(id, editIds, signal) {
      calls.push({ editIds, signal });
      return rescore ? rescore(id, editIds, signal) : untilAborted(signal);
    },
  };
  return { services, rec: base.rec, calls };
}

afterEach(() => cleanup());

describe('review: cancelling the re-scoring of a partial selection', () => {
  it('Esc aborts the replay: nothing is applied, the selection stays, the status line says cancelled', async () => {
    const { services, rec, calls } = servicesWithSlowRescore();
    const r = render(<App services={services} size={{ columns: 120, rows: 32 }} initialId="p-new" />);
    await settle(r);
    await press(r, 'tab', 'space');
    await see(r, 'Edits: 2 of 3 included');
    await press(r, 'a');
    await see(r, 'Re-scoring 2 of 3 edits on validation… · Esc cancels');
    await see(r, 'Esc / q cancel · Ctrl+c quit');
    expect(calls).toHaveLength(1);
    await eventually(() => expect(calls[0].editIds).toEqual(['e2', 'e3']));
    expect(calls[0].signal?.aborted).toBe(false);

    await press(r, 'esc');
    await settle(r);
    expect(calls[0].signal?.aborted).toBe(true);
    expect(isSleepError(calls[0].signal?.reason) && calls[0].signal?.reason.code).toBe('ABORTED');
    const f = frame(r);
    expect(f).toContain('re-scoring cancelled; nothing was written');
    expect(f).not.toContain('Re-scoring 2 of 3');
    expect(f).not.toContain('Apply 2 of 3 edits');
    expect(f).not.toContain('could not re-score');
    await eventually(() => expect(rec.applied).toEqual([]));
    // still in the Evidence view with the same two edits included, and the screen has the keys again
    expect(f).toContain('Edits: 2 of 3 included');
    await press(r, 'a');
    expect(calls).toHaveLength(2);
    await eventually(() => expect(calls[1].editIds).toEqual(['e2', 'e3']));
    // q cancels too (it does not leave the proposal while a job runs)
    await press(r, 'q');
    await settle(r);
    expect(calls[1].signal?.aborted).toBe(true);
    await see(r, 're-scoring cancelled; nothing was written');
    await see(r, 'Edits: 2 of 3 included');
    await eventually(() => expect(rec.applied).toEqual([]));
  });

  it('drops a late score from a replay that ignored the cancel: no confirmation, nothing applied', async () => {
    let finish: (o: RescoreOutcome) => void = () => undefined;
    const { services, rec, calls } = servicesWithSlowRescore(() => new Promise<RescoreOutcome>((resolve) => (finish = resolve)));
    const r = render(<App services={services} size={{ columns: 120, rows: 32 }} initialId="p-new" />);
    await settle(r);
    await press(r, 'tab', 'space', 'a', 'esc');
    expect(calls[0].signal?.aborted).toBe(true);
    await see(r, 're-scoring cancelled; nothing was written');
    finish({ score: 0.9, baseline: 0.4, source: 'replay' });
    await settle(r);
    expect(frame(r)).not.toContain('Apply 2 of 3 edits');
    await see(r, 're-scoring cancelled; nothing was written');
    await press(r, '1', 'enter');
    await eventually(() => expect(rec.applied).toEqual([]));
  });

  it('a failed re-scoring is still reported as a failure, not as a cancel', async () => {
    const { services } = servicesWithSlowRescore(async () => {
      throw new SleepError('BACKEND_UNAVAILABLE', 'no backend to replay with', { hint: 'configure one' });
    });
    const r = render(<App services={services} size={{ columns: 140, rows: 32 }} initialId="p-new" />);
    await settle(r);
    await press(r, 'tab', 'space', 'a');
    await settle(r);
    await see(r, 'could not re-score the chosen edits, nothing written: no backend to replay with — configure one');
    expect(frame(r)).not.toContain('cancelled');
  });

  it('the ? help of the views where Space picks a subset documents the cancel key', async () => {
    for (const ctx of ['diff', 'evidence'] as const) {
      expect(helpFor(ctx)).toContainEqual({ keys: 'Esc / q', help: 'while re-scoring: cancel it, nothing is written' });
    }
    expect(helpFor('list').some((row) => row.help.includes('re-scoring'))).toBe(false);
    const { services } = servicesWithSlowRescore();
    const r = render(<App services={services} size={{ columns: 100, rows: 60 }} initialId="p-new" />);
    await settle(r);
    await press(r, '?');
    await see(r, 'while re-scoring: cancel it, nothing is written');
  });
});

describe('rescoreSubset / rescoreEdits with an AbortSignal', () => {
  let sb: Sandbox;
  let db: Db;
  let seeded: SeededSkill[];
  const releaseNotes = () => seeded.find((s) => s.name === 'release-notes')!.proposal;

  beforeEach(() => {
    sb = makeSandbox();
    const project = path.join(sb.root, 'project');
    fs.mkdirSync(project);
    seeded = seedReview(sb.env, project);
    db = openDb(resolvePaths({ env: sb.env }).database);
  });

  afterEach(() => {
    db.close();
    sb.cleanup();
  });

  /**
   * The sim target, except that performing `stuckTask` waits until the signal aborts: one rollout
   * finishes, the other is mid-call when the user cancels.
   */
  const INTENT_TO_ID = new Map([
    ['write a changelog entry for the parser fix', 't-val-a'],
    ['add a changelog line that links the PR', 't-val-b'],
    ['changelog for the 2.0 release', 't-test-a'],
  ]);
  function halfStuckTarget(stuckTask: string) {
    const sim = createSimBackend({ seed: 7 });
    const finished: string[] = [];
    let stuck: () => void = () => undefined;
    const reachedStuck = new Promise<void>((resolve) => (stuck = resolve));
    const target: Backend = {
      name: 'sim',
      model: 'sim-target',
      destination: 'local',
      async complete<O extends Operation>(req: LlmRequest<O>, signal?: AbortSignal): Promise<LlmReply> {
        // the payload carries only what the prompt does: find the task by its ask
        const taskId = req.operation === 'perform' ? (INTENT_TO_ID.get((req.payload as PerformPayload).intent) ?? null) : null;
        if (taskId === stuckTask) {
          stuck();
          return untilAborted(signal);
        }
        const reply = await sim.complete(req, signal);
        if (taskId) finished.push(taskId);
        return reply;
      },
    };
    return { target, finished, reachedStuck };
  }

  it('rescoreSubset rejects with ABORTED promptly mid-replay, and the finished rollout never becomes a score', async () => {
    const p = releaseNotes();
    const { target, finished, reachedStuck } = halfStuckTarget('t-val-b');
    const ctl = new AbortController();
    const run = rescoreSubset(db, p.id, ['e2'], { target, metric: 'soft', signal: ctl.signal });
    await reachedStuck;
    while (!finished.includes('t-val-a')) await new Promise((res) => setTimeout(res, 5));
    const t0 = Date.now();
    ctl.abort();
    const err = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(Date.now() - t0).toBeLessThan(500);
    expect(isSleepError(err) && err.code).toBe('ABORTED');
    // one of two validation tasks was replayed: no mean over half the tasks may pass for the subset's score
    const content = contentForEdits(p, ['e2']);
    const kept = db.prepare('SELECT task_id FROM rollouts WHERE skill_hash = ?').all(skillHash(content)) as Array<{ task_id: string }>;
    expect(kept.map((row) => row.task_id)).toEqual(['t-val-a']); // the finished rollout is kept for next time
    expect(cachedScore(db, content, ['t-val-a', 't-val-b'], 'soft')).toBeNull();
    await expect(rescoreEdits(db, p, ['e2'], 'soft')).rejects.toThrow(/never scored/);
  });

  it('rescoreEdits passes the signal to the replay and rejects with ABORTED (already aborted: no replay at all)', async () => {
    const p = releaseNotes();
    const { target, reachedStuck } = halfStuckTarget('t-val-b');
    const seen: Array<AbortSignal | undefined> = [];
    const replay = async (q: typeof p, ids: string[], signal?: AbortSignal) => {
      seen.push(signal);
      return (await rescoreSubset(db, q.id, ids, { target, metric: 'soft', signal })).subsetScore;
    };
    const ctl = new AbortController();
    const run = rescoreEdits(db, p, ['e2'], 'soft', replay, ctl.signal);
    await reachedStuck;
    ctl.abort();
    await expect(run).rejects.toMatchObject({ code: 'ABORTED' });
    expect(seen).toEqual([ctl.signal]);
    // a cancelled signal stops before the replay starts, even for a selection the cache can score
    await expect(rescoreEdits(db, p, ['e1'], 'soft', replay, ctl.signal)).rejects.toMatchObject({ code: 'ABORTED' });
    expect(seen).toHaveLength(1);
  });

  it('the store services abort a replay through the configured backends (sim with a long latency)', async () => {
    const config = defaultConfig();
    for (const role of ['target', 'optimizer', 'judge', 'miner'] as const) config.roles[role] = { backend: 'sim' };
    config.backends.sim.latencyMs = 60_000;
    const services = createStoreServices({ db, paths: resolvePaths({ env: sb.env }), config, env: sb.env, suspend: (fn) => fn() });
    const ctl = new AbortController();
    const t0 = Date.now();
    const run = services.rescore(releaseNotes().id, ['e2'], ctl.signal);
    setTimeout(() => ctl.abort(), 150);
    await expect(run).rejects.toMatchObject({ code: 'ABORTED' });
    // a 60 s call per task: rejecting in well under that means the abort reached the sim's timer
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});
