/**
 * Tasks follow a repository that moved (issue 18): the root commit of each known project folder is
 * recorded while it exists; once the folder is gone and exactly one existing project holds the same
 * repository, its sessions (cwd inside it too), tasks and clusters move there, and a replay seeds
 * from the new folder. Two clones of one repository are ambiguous: nothing moves.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { upsertSession } from '../../src/store/repos/sessions.js';
import { addOccurrences, getTask, upsertTask } from '../../src/store/repos/tasks.js';
import { listProjectIdentities } from '../../src/store/repos/projects.js';
import { followMovedRepos } from '../../src/night/follow-moved-repos.js';
import { replaySeedFor } from '../../src/replay/seed.js';
import { seedWorkspace, createWorkspace, removeWorkspace } from '../../src/llm/workspace.js';
import { makeTempDir } from '../helpers/sandbox.js';
import { gitIn, makeUserRepo } from '../helpers/user-repo.js';
import { changelogTask } from '../helpers/llm-cli.js';

let root = '';
let db: Db | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

function session(id: string, project: string, cwd: string, startedAt: number) {
  return { id, agent: 'claude-code', vendorId: id, project, cwd, gitBranch: 'main', startedAt, endedAt: startedAt, title: null, kind: 'interactive', parentId: null, file: `/t/${id}.jsonl`, promptCount: 1, toolErrorCount: 0, updatedAt: startedAt } as never;
}

describe('tasks follow a repository that moved', () => {
  it('moves sessions, cwd and tasks to the new path of the same repository; the replay seeds from it', async () => {
    root = makeTempDir('sos-moved-');
    const oldPath = path.join(root, 'src', 'app');
    const repo = makeUserRepo(oldPath);
    db = openDb(path.join(root, 'state', 'sleep.db'));
    upsertSession(db, session('claude-code:s1', oldPath, path.join(oldPath, 'src'), repo.sessionStart));
    const task = { ...changelogTask(oldPath), id: 'task_moved' };
    upsertTask(db, task);
    addOccurrences(db, [{ taskId: task.id, sessionId: 'claude-code:s1', eventSeq: 1, ts: repo.sessionStart, prompt: task.intent, outcome: {} }]);

    // a night while the folder is where it was: its identity is recorded, nothing moves
    const first = await followMovedRepos(db);
    expect(first.moved).toEqual([]);
    expect(listProjectIdentities(db).map((i) => [i.path, i.rootCommit])).toEqual([[oldPath, repo.firstCommit]]);

    // the user moves the repository and works in it from its new path
    const newPath = path.join(root, 'code', 'app');
    fs.mkdirSync(path.dirname(newPath), { recursive: true });
    fs.renameSync(oldPath, newPath);
    upsertSession(db, session('claude-code:s2', newPath, newPath, Date.parse('2026-04-01T00:00:00Z')));

    const second = await followMovedRepos(db);
    expect(second.moved).toEqual([{ from: oldPath, to: newPath, rootCommit: repo.firstCommit, sessions: 1, tasks: 1 }]);
    expect(getTask(db, task.id)?.project).toBe(newPath);
    const seed = replaySeedFor(db, getTask(db, task.id)!);
    expect(seed).toEqual({ repo: path.join(newPath, 'src'), branch: 'main', before: repo.sessionStart });
    // and the replay really starts from the repository at its new place
    const ws = createWorkspace(path.join(root, 'workspaces'));
    const report = await seedWorkspace(ws, seed!);
    expect(report).toMatchObject({ seeded: true, commit: repo.firstCommit });
    removeWorkspace(ws);
    expect(listProjectIdentities(db).map((i) => i.path)).toEqual([newPath]);

    // idempotent: a later night moves nothing more
    expect((await followMovedRepos(db)).moved).toEqual([]);
  });

  it('two existing clones of the repository are ambiguous: nothing moves; a gone folder with no successor stays', async () => {
    root = makeTempDir('sos-moved-');
    const oldPath = path.join(root, 'app');
    makeUserRepo(oldPath);
    db = openDb(path.join(root, 'state', 'sleep.db'));
    upsertSession(db, session('claude-code:s1', oldPath, oldPath, 1));
    upsertTask(db, { ...changelogTask(oldPath), id: 'task_stay' });
    await followMovedRepos(db);
    const cloneA = path.join(root, 'clone-a');
    const cloneB = path.join(root, 'clone-b');
    gitIn(root, ['clone', '-q', oldPath, cloneA]);
    gitIn(root, ['clone', '-q', oldPath, cloneB]);
    fs.rmSync(oldPath, { recursive: true, force: true });
    upsertSession(db, session('claude-code:a', cloneA, cloneA, 2));
    upsertSession(db, session('claude-code:b', cloneB, cloneB, 3));
    const r = await followMovedRepos(db);
    expect(r.moved).toEqual([]);
    expect(r.notes.join('\n')).toMatch(/is gone and 2 projects hold the same repository/);
    expect(getTask(db, 'task_stay')?.project).toBe(oldPath);

    // an unrelated repository at another path is not a successor
    fs.rmSync(cloneB, { recursive: true, force: true });
    fs.rmSync(cloneA, { recursive: true, force: true });
    const other = path.join(root, 'other');
    fs.mkdirSync(other);
    gitIn(other, ['init', '-q', '-b', 'main']);
    fs.writeFileSync(path.join(other, 'x'), 'x');
    gitIn(other, ['add', '-A']);
    gitIn(other, ['-c', 'user.name=u', '-c', 'user.email=u@e', 'commit', '-qm', 'x']);
    upsertSession(db, session('claude-code:o', other, other, 4));
    expect((await followMovedRepos(db)).moved).toEqual([]);
    expect(getTask(db, 'task_stay')?.project).toBe(oldPath);
  });
});
