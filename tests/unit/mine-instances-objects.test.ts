/**
 * Instances of a job that differ in the function or file they are about are separate tasks (a
 * one-job project had one task per phrasing template and never reached a validation split), and
 * a store mined under the old rule is cleaned up: an ask that leaves a task stops feeding it, so
 * no prompt feeds two tasks in different splits.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dedupeKey } from '../../src/mine/family.js';
import { checkSplitIntegrity, checkStoredSplitIntegrity } from '../../src/mine/splits.js';
import { openDb } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { runMining } from '../../src/mine/index.js';
import { addOccurrences, listOccurrences, listTasks, pruneOccurrences } from '../../src/store/repos/tasks.js';
import type { Task } from '../../src/core/records.js';
import { addSession } from '../../bench/mine-corpus.js';
import { makeTempDir } from '../helpers/sandbox.js';

const T0 = Date.UTC(2026, 9, 1);
const made: string[] = [];
afterEach(() => made.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('instance keys', () => {
  it('keep code objects, drop versions and numbers', () => {
    expect(dedupeKey('write vitest cases for parseAmount')).not.toBe(dedupeKey('write vitest cases for roundHalfEven'));
    expect(dedupeKey('add a test for src/a.ts')).not.toBe(dedupeKey('add a test for src/b.ts'));
    expect(dedupeKey('draft the release notes for v2.4.0')).toBe(dedupeKey('draft the v2.7.0 release notes'));
  });

  it('the split check agrees: other functions are no near-duplicate, another PR number still is', () => {
    const task = (id: string, intent: string, split: Task['split']) => ({ id, intent, split, origin: 'real' }) as Task;
    expect(checkSplitIntegrity([task('a', 'write vitest cases for parseAmount', 'train'), task('b', 'write vitest cases for slugify', 'val')])).toEqual([]);
    expect(checkSplitIntegrity([task('a', 'Write a changelog entry for #12', 'val'), task('b', 'write a changelog entry for #99', 'train')]).map((v) => v.kind)).toContain('near_duplicate');
  });
});

describe('mining a one-job project', () => {
  it('makes one task per function asked about, and prunes occurrences an instance no longer holds', async () => {
    const dir = makeTempDir();
    made.push(dir);
    const db = openDb(path.join(dir, 'state', 'sleep.db'));
    try {
      const fns = ['parseAmount', 'formatCurrency', 'splitLedger', 'roundHalfEven', 'slugify', 'mergeConfig'];
      fns.forEach((fn, i) =>
        addSession(db, { id: `claude-code:t${i}`, project: '/home/dana/src/tallybook', startedAt: T0 + i * 86_400_000, turns: [{ user: `write vitest cases for ${fn}`, tools: ['Edit'], reply: 'Added tests.' }, { user: 'use `it.each` for the input variants' }] }),
      );
      await runMining(db, defaultConfig(), { now: T0 + 10 * 86_400_000 });
      const tasks = listTasks(db, {});
      expect(tasks).toHaveLength(fns.length);
      // an old store: one task also holding another task's ask (the old rule merged them)
      const [a, b] = tasks;
      const theirs = listOccurrences(db, b.id)[0];
      addOccurrences(db, [{ taskId: a.id, sessionId: theirs.sessionId, eventSeq: theirs.eventSeq, ts: theirs.ts, prompt: theirs.prompt, outcome: theirs.outcome }]);
      expect(pruneOccurrences(db, a.id, listOccurrences(db, a.id).filter((o) => o.sessionId !== theirs.sessionId).map((o) => ({ sessionId: o.sessionId, eventSeq: o.eventSeq })))).toBe(1);
      expect(checkStoredSplitIntegrity(db).filter((v) => v.kind === 'shared_occurrence')).toEqual([]);
    } finally {
      db.close();
    }
  });
});
