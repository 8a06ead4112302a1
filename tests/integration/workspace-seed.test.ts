/**
 * Seeding a replay workspace from a real git repository: the commit nearest before the session on
 * its branch, nothing read from the working tree, nothing written into the user's repository
 * (hashes of every file of its .git before and after), clear fallbacks, and the diff of what the
 * agent changed afterwards.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, excludeFromChanges, installInstructions, recordBaseline, removeWorkspace, seedWorkspace, workspaceChanges, WORKSPACE_MARKER } from '../../src/llm/workspace.js';
import { makeTempDir } from '../helpers/sandbox.js';
import { hashTree, makeUserRepo, type UserRepo } from '../helpers/user-repo.js';

describe('replay workspace seeded from the user repository', () => {
  let root: string;
  let repo: UserRepo;
  let wsDir: string;

  beforeAll(() => {
    root = makeTempDir('sos-seed-');
    repo = makeUserRepo(path.join(root, 'user-repo'));
    wsDir = path.join(root, 'workspaces');
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('checks out the newest commit before the session on its branch, from the object store only', async () => {
    const before = hashTree(path.join(repo.dir, '.git'));
    const ws = createWorkspace(wsDir);
    const report = await seedWorkspace(ws, { repo: path.join(repo.dir, 'src'), branch: 'main', before: repo.sessionStart });
    expect(report).toMatchObject({ seeded: true, commit: repo.firstCommit, ref: 'refs/heads/main', files: 3 });
    expect(fs.readFileSync(path.join(ws, 'CHANGELOG.md'), 'utf8')).toBe(repo.changelogAtSession);
    expect(fs.existsSync(path.join(ws, 'UNCOMMITTED.txt'))).toBe(false); // the working tree is never read
    expect(fs.existsSync(path.join(ws, '.git'))).toBe(false); // no history inside the workspace
    expect(fs.existsSync(path.join(ws, WORKSPACE_MARKER))).toBe(true);
    removeWorkspace(ws);
    expect(fs.existsSync(ws)).toBe(false);
    expect(fs.existsSync(ws + '.track')).toBe(false);
    expect(hashTree(path.join(repo.dir, '.git'))).toEqual(before);
  });

  it('a branch that is gone falls back to HEAD and says so; no commit before the session leaves it empty', async () => {
    const ws = createWorkspace(wsDir);
    const r1 = await seedWorkspace(ws, { repo: repo.dir, branch: 'feature/gone', before: repo.sessionStart });
    expect(r1.seeded).toBe(true);
    expect(r1.reason).toMatch(/feature\/gone is gone; used HEAD/);
    removeWorkspace(ws);
    const ws2 = createWorkspace(wsDir);
    const r2 = await seedWorkspace(ws2, { repo: repo.dir, branch: 'main', before: Date.parse('2001-01-01T00:00:00Z') });
    expect(r2).toMatchObject({ seeded: false });
    expect(r2.reason).toMatch(/no commit at or before 2001/);
    expect(fs.readdirSync(ws2)).toEqual([WORKSPACE_MARKER]);
    removeWorkspace(ws2);
  });

  it('a folder outside any repository gives an empty workspace with the reason', async () => {
    const plain = path.join(root, 'not-a-repo');
    fs.mkdirSync(plain, { recursive: true });
    const ws = createWorkspace(wsDir);
    const r = await seedWorkspace(ws, { repo: plain, branch: null, before: null });
    expect(r.seeded).toBe(false);
    expect(r.reason).toMatch(/not inside a git repository/);
    removeWorkspace(ws);
  });

  it('limits: a commit over the file limit is not checked out', async () => {
    const ws = createWorkspace(wsDir);
    const r = await seedWorkspace(ws, { repo: repo.dir, branch: 'main', before: repo.sessionStart }, { maxFiles: 2, maxBytes: 1e9, timeoutMs: 10_000 });
    expect(r.seeded).toBe(false);
    expect(r.reason).toMatch(/3 files, over the limit of 2/);
    removeWorkspace(ws);
  });

  it('what the agent changed is listed with its content and a diff; our own installed files are not', async () => {
    const ws = createWorkspace(wsDir);
    await seedWorkspace(ws, { repo: repo.dir, branch: 'main', before: repo.sessionStart });
    installInstructions(ws, 'AGENTS.md', '# skill\nuse it\n');
    const baseline = await recordBaseline(ws);
    expect(baseline).toBeDefined();
    fs.appendFileSync(path.join(ws, 'CHANGELOG.md'), '\n## 1.3.0\n- Fixed: PR 418\n');
    fs.writeFileSync(path.join(ws, 'notes.md'), 'new file\n');
    fs.rmSync(path.join(ws, 'src', 'routes.ts'));
    const changes = await workspaceChanges(ws, baseline!);
    expect(changes.files.map((f) => [f.path, f.status])).toEqual([
      ['CHANGELOG.md', 'modified'],
      ['notes.md', 'added'],
      ['src/routes.ts', 'deleted'],
    ]);
    expect(changes.files[0].content).toContain('## 1.3.0');
    expect(changes.diff).toContain('+- Fixed: PR 418');
    removeWorkspace(ws);
  });

  it('the baseline of a fresh seed from the installed paths alone equals a full snapshot (and defers to it for an ignored path)', async () => {
    const full = createWorkspace(wsDir);
    await seedWorkspace(full, { repo: repo.dir, branch: 'main', before: repo.sessionStart });
    installInstructions(full, 'CHANGELOG.md', 'appended skill\n');
    installInstructions(full, 'AGENTS.md', '# skill\n');
    const byFullSnapshot = await recordBaseline(full);
    const quick = createWorkspace(wsDir);
    await seedWorkspace(quick, { repo: repo.dir, branch: 'main', before: repo.sessionStart });
    installInstructions(quick, 'CHANGELOG.md', 'appended skill\n');
    installInstructions(quick, 'AGENTS.md', '# skill\n');
    const byInstalled = await recordBaseline(quick, ['CHANGELOG.md', 'AGENTS.md']);
    expect(byInstalled?.tree).toBe(byFullSnapshot?.tree);
    fs.writeFileSync(path.join(quick, 'notes.md'), 'by the agent\n');
    expect((await workspaceChanges(quick, byInstalled!)).files.map((f) => f.path)).toEqual(['notes.md']);
    removeWorkspace(full);
    removeWorkspace(quick);

    const ignoring = makeUserRepo(path.join(root, 'ignoring-repo'), { '.gitignore': '.agent/\n' });
    const ws = createWorkspace(wsDir);
    await seedWorkspace(ws, { repo: ignoring.dir, branch: 'main', before: ignoring.sessionStart });
    installInstructions(ws, '.agent/skills/x/SKILL.md', '---\nname: x\n---\n');
    const b = await recordBaseline(ws, ['.agent/skills/x/SKILL.md']);
    // the skill the repository ignores is neither in the baseline nor reported as deleted or added
    expect((await workspaceChanges(ws, b!)).files).toEqual([]);
    removeWorkspace(ws);
  });

  it("folders that are ours (an agent home inside the workspace) are not reported as the agent's changes", async () => {
    const ws = createWorkspace(wsDir);
    await seedWorkspace(ws, { repo: repo.dir, branch: 'main', before: repo.sessionStart });
    const baseline = await recordBaseline(ws, []);
    excludeFromChanges(ws, ['.agent-home']);
    excludeFromChanges(ws, ['.agent-home']); // idempotent
    fs.mkdirSync(path.join(ws, '.agent-home', 'chats'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.agent-home', 'chats', 'session.json'), '{}\n');
    fs.writeFileSync(path.join(ws, 'notes.md'), 'the agent\'s work\n');
    expect((await workspaceChanges(ws, baseline!)).files.map((f) => f.path)).toEqual(['notes.md']);
    expect(fs.readFileSync(ws + '.track/info/exclude', 'utf8').match(/\.agent-home/g)).toHaveLength(1);
    removeWorkspace(ws);
  });

  it('an empty (unseeded) workspace still reports what the agent created', async () => {
    const ws = createWorkspace(wsDir);
    const baseline = await recordBaseline(ws);
    fs.writeFileSync(path.join(ws, 'CHANGELOG.md'), '## 1.3.0\n');
    const changes = await workspaceChanges(ws, baseline!);
    expect(changes.files).toEqual([{ path: 'CHANGELOG.md', status: 'added', content: '## 1.3.0\n' }]);
    removeWorkspace(ws);
  });
});
