/**
 * The pool of seeded workspaces: a workspace an agent has used is reset to exactly its commit and
 * reused by the next replay of that commit (no full checkout); nothing of one replay reaches the
 * next (changed, deleted, new, ignored files, nested repositories, the agent home); a workspace that
 * cannot be proven clean is never reused; parked workspaces go when idle, on drain, and after a
 * crash; the user's repository is untouched throughout.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspacePool, sweepOrphans } from '../../src/llm/workspace-pool.js';
import { WORKSPACE_MARKER, createAgentHome, createWorkspace } from '../../src/llm/workspace.js';
import { makeTempDir } from '../helpers/sandbox.js';
import { gitIn, hashTree, makeUserRepo, type UserRepo } from '../helpers/user-repo.js';

/** The workspace's tree without our marker (whose content names the run). */
function contentOf(ws: string): Record<string, string> {
  const t = hashTree(ws);
  delete t[WORKSPACE_MARKER];
  return t;
}

/** Every entry, symlinks included (hashTree skips them). */
function entriesOf(ws: string): string[] {
  return (fs.readdirSync(ws, { recursive: true }) as string[]).map(String).filter((e) => e !== WORKSPACE_MARKER).sort();
}

describe('seeded workspace pool', () => {
  let root: string;
  let repo: UserRepo;
  let wsDir: string;
  let seed: { repo: string; branch: string; before: number };

  beforeAll(() => {
    root = makeTempDir('sos-pool-');
    repo = makeUserRepo(path.join(root, 'user-repo'), { '.gitignore': 'dist/\n*.log\n' });
    wsDir = path.join(root, 'workspaces');
    seed = { repo: repo.dir, branch: 'main', before: repo.sessionStart };
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('reuses a used workspace for the same commit, reset to exactly that commit', async () => {
    const userGit = hashTree(path.join(repo.dir, '.git'));
    const pool = new WorkspacePool(wsDir, { perCommit: 2, total: 4, idleMs: 60_000 });
    const first = await pool.acquire(seed, { run: 1 });
    expect(first.seed).toMatchObject({ seeded: true, commit: repo.firstCommit });
    expect(first.seed.reused).toBeUndefined();
    const pristine = contentOf(first.dir);
    const pristineEntries = entriesOf(first.dir);

    // what an agent (and an outcome command) may leave behind
    const home = createAgentHome(first.dir);
    fs.writeFileSync(path.join(home, 'history.jsonl'), '{"secret":"from run 1"}\n');
    fs.appendFileSync(path.join(first.dir, 'CHANGELOG.md'), '\n## 1.3.0\n- Fixed: PR 418\n');
    fs.rmSync(path.join(first.dir, 'README.md'));
    fs.chmodSync(path.join(first.dir, 'src', 'routes.ts'), 0o755);
    fs.mkdirSync(path.join(first.dir, 'dist', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(first.dir, 'dist', 'deep', 'bundle.js'), 'ignored build output\n');
    fs.writeFileSync(path.join(first.dir, 'debug.log'), 'ignored log\n');
    fs.writeFileSync(path.join(first.dir, 'notes.md'), 'a new file\n');
    fs.symlinkSync('/etc/hostname', path.join(first.dir, 'link-out'));
    gitIn(first.dir, ['init', '-q']); // a nested repository the agent made
    fs.mkdirSync(path.join(first.dir, 'empty-dir'));

    pool.release(first);
    expect(pool.parkedWorkspaces).toBe(1);
    expect(fs.existsSync(home)).toBe(false); // the agent home goes at once

    const second = await pool.acquire(seed, { run: 2 });
    expect(second.dir).toBe(first.dir);
    expect(second.seed).toMatchObject({ seeded: true, commit: repo.firstCommit, reused: true, files: 4 });
    expect(contentOf(second.dir)).toEqual(pristine);
    expect(entriesOf(second.dir)).toEqual(pristineEntries);
    expect(fs.statSync(path.join(second.dir, 'src', 'routes.ts')).mode & 0o777).toBe(fs.statSync(path.join(repo.dir, 'src', 'routes.ts')).mode & 0o777);
    expect(JSON.parse(fs.readFileSync(path.join(second.dir, WORKSPACE_MARKER), 'utf8'))).toMatchObject({ run: 2, pid: process.pid });
    expect(pool.stats).toEqual({ cold: 1, reused: 1, resetFailed: 0 });

    // two replays at once get two workspaces; both are parked afterwards, up to perCommit
    const third = await pool.acquire(seed, { run: 3 });
    expect(third.dir).not.toBe(second.dir);
    pool.release(second);
    pool.release(third);
    expect(pool.parkedWorkspaces).toBe(2);
    pool.drain();
    expect(pool.parkedWorkspaces).toBe(0);
    expect(fs.existsSync(second.dir)).toBe(false);
    expect(fs.existsSync(third.dir)).toBe(false);
    expect(fs.existsSync(third.dir + '.track')).toBe(false);
    expect(hashTree(path.join(repo.dir, '.git'))).toEqual(userGit);
  });

  it('another commit is checked out fresh, not served from a parked workspace', async () => {
    const pool = new WorkspacePool(wsDir, { perCommit: 2, total: 4, idleMs: 60_000 });
    const a = await pool.acquire(seed, {});
    pool.release(a);
    const later = await pool.acquire({ ...seed, before: Date.parse('2026-06-01T00:00:00Z') }, {});
    expect(later.seed.seeded).toBe(true);
    expect(later.seed.commit).not.toBe(repo.firstCommit);
    expect(later.seed.reused).toBeUndefined();
    expect(later.dir).not.toBe(a.dir);
    expect(fs.readFileSync(path.join(later.dir, 'CHANGELOG.md'), 'utf8')).toContain('Later work');
    pool.release(later);
    pool.drain();
  });

  it('a workspace that cannot be proven clean is deleted, never reused', async () => {
    const pool = new WorkspacePool(wsDir, { perCommit: 2, total: 4, idleMs: 60_000 });
    const a = await pool.acquire(seed, {});
    pool.release(a);
    fs.rmSync(path.join(a.dir + '.track', WORKSPACE_MARKER)); // its tracking dir is no longer provably ours
    const b = await pool.acquire(seed, {});
    expect(b.seed.reused).toBeUndefined();
    expect(b.dir).not.toBe(a.dir);
    expect(pool.stats.resetFailed).toBe(1);
    expect(fs.existsSync(a.dir)).toBe(false);
    pool.release(b);
    pool.drain();
  });

  it('an empty workspace (no repository) is deleted after the run, not parked', async () => {
    const pool = new WorkspacePool(wsDir, { perCommit: 2, total: 4, idleMs: 60_000 });
    const plain = path.join(root, 'plain');
    fs.mkdirSync(plain, { recursive: true });
    const lease = await pool.acquire({ repo: plain }, {});
    expect(lease.seed).toMatchObject({ seeded: false });
    expect(lease.seed.reason).toMatch(/not inside a git repository/);
    pool.release(lease);
    expect(pool.parkedWorkspaces).toBe(0);
    expect(fs.existsSync(lease.dir)).toBe(false);
  });

  it('parked workspaces go when idle', async () => {
    const pool = new WorkspacePool(wsDir, { perCommit: 2, total: 4, idleMs: 50 });
    const a = await pool.acquire(seed, {});
    pool.release(a);
    expect(fs.existsSync(a.dir)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(pool.parkedWorkspaces).toBe(0);
    expect(fs.existsSync(a.dir)).toBe(false);
  });

  it('a workspace left by a process that died is swept; a live one is kept', () => {
    const dir = path.join(root, 'sweep');
    const dead = createWorkspace(dir);
    fs.writeFileSync(path.join(dead, WORKSPACE_MARKER), JSON.stringify({ createdBy: 'skillopt-sleep', pid: 2 ** 22 + 7 }));
    fs.mkdirSync(dead + '.track');
    fs.writeFileSync(path.join(dead + '.track', WORKSPACE_MARKER), 'x');
    const live = createWorkspace(dir); // this process
    const notOurs = path.join(dir, 'ws-foreign');
    fs.mkdirSync(notOurs);
    expect(sweepOrphans(dir)).toBe(1);
    expect(fs.existsSync(dead)).toBe(false);
    expect(fs.existsSync(dead + '.track')).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
    expect(fs.existsSync(notOurs)).toBe(true);
  });
});
