import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { listTasks, upsertTask, addOccurrences } from '../../src/store/repos/tasks.js';
import type { Task } from '../../src/core/records.js';
import { makeTask } from '../helpers/tasks.js';

function task(id: string, project: string | null): Task {
  return makeTask({ id, project, intent: `ask ${id}`, judge: { checks: [], reference: { kind: 'rule' } }, split: 'train', firstSeen: 1, lastSeen: 1, agents: ['codex'] });
}

describe('listTasks seenIn (what `tasks list --project P` shows)', () => {
  it("shows P's own tasks plus cross-project tasks that occurred in P, and nothing else", () => {
    const db = openDb(':memory:');
    const session = (id: string, project: string) =>
      db.prepare("INSERT INTO sessions(id, agent, vendor_id, project, kind, file, updated_at) VALUES (?, 'codex', ?, ?, 'interactive', '/f', 1)").run(id, id, project);
    session('s-a', '/src/a');
    session('s-b', '/src/b');
    upsertTask(db, task('t-own-a', '/src/a'));
    upsertTask(db, task('t-own-b', '/src/b'));
    upsertTask(db, task('t-cross-ab', null));
    upsertTask(db, task('t-cross-b', null));
    addOccurrences(db, [
      { taskId: 't-cross-ab', sessionId: 's-a', eventSeq: 0, ts: 1, prompt: 'x', outcome: {} },
      { taskId: 't-cross-ab', sessionId: 's-b', eventSeq: 0, ts: 1, prompt: 'x', outcome: {} },
      { taskId: 't-cross-b', sessionId: 's-b', eventSeq: 1, ts: 1, prompt: 'y', outcome: {} },
    ]);
    expect(listTasks(db, { seenIn: '/src/a' }).map((t) => t.id).sort()).toEqual(['t-cross-ab', 't-own-a']);
    // the night's exact-project filter is unchanged
    expect(listTasks(db, { project: '/src/a' }).map((t) => t.id)).toEqual(['t-own-a']);
    db.close();
  });
});
