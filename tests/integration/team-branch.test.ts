/** The team proposal's branch (src/team/branch.ts): plumbing only, never the working tree, never a push unless asked. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { gitIn, makeUserRepo, hashTree } from '../helpers/user-repo.js';
import { commitOnNewBranch, pushBranch, readAtHead, teamBranchName, trackedAtHead } from '../../src/team/branch.js';
import { mergeCommandOf } from '../../src/proposals/team-proposal.js';

/** The work tree's files (content hashes) plus git's index and HEAD files: what a user would see change. */
function userView(repo: string): Record<string, string> {
  return Object.fromEntries(Object.entries(hashTree(repo)).filter(([rel]) => !rel.startsWith('.git') || rel === '.git/index' || rel === '.git/HEAD'));
}

describe('team proposal branch', () => {
  let root: string;
  let repo: string;
  const saved = { global: process.env.GIT_CONFIG_GLOBAL, nosystem: process.env.GIT_CONFIG_NOSYSTEM };
  beforeEach(() => {
    root = makeTempDir('sos-team-branch-');
    repo = path.join(root, 'repo');
    fs.mkdirSync(repo);
    makeUserRepo(repo, { 'AGENTS.md': '# Agents\n' });
    // GIT_* identity comes from the helper's env only: the repository itself has none configured
    process.env.GIT_CONFIG_GLOBAL = '/dev/null';
    process.env.GIT_CONFIG_NOSYSTEM = '1';
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    for (const [k, v] of [['GIT_CONFIG_GLOBAL', saved.global], ['GIT_CONFIG_NOSYSTEM', saved.nosystem]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('makes exactly one commit on a new branch on top of HEAD, and leaves the work tree, index and HEAD alone', () => {
    const before = { tree: userView(repo), status: gitIn(repo, ['status', '--porcelain']), head: gitIn(repo, ['rev-parse', 'HEAD']), ref: gitIn(repo, ['symbolic-ref', 'HEAD']) };
    const made = commitOnNewBranch(repo, { wanted: teamBranchName('AGENTS.md', Date.UTC(2026, 11, 5)), files: [{ rel: 'AGENTS.md', content: '# Agents\n\n- Run the tests first.\n' }], message: 'team night\n' });
    expect(made.branch).toBe('skillopt/team-2026-12-05-agents-md');
    expect(made.parent).toBe(before.head);
    expect(gitIn(repo, ['rev-list', '--count', `HEAD..${made.branch}`])).toBe('1');
    expect(gitIn(repo, ['show', `${made.branch}:AGENTS.md`])).toBe('# Agents\n\n- Run the tests first.');
    // the committed tree is HEAD's plus the one file (the uncommitted file is not in it)
    expect(gitIn(repo, ['diff', '--name-only', 'HEAD', made.branch])).toBe('AGENTS.md');
    expect(gitIn(repo, ['ls-tree', '--name-only', made.branch])).not.toContain('UNCOMMITTED.txt');
    expect(userView(repo)).toEqual(before.tree);
    expect(before.tree['.git/index']).toBeDefined();
    expect(gitIn(repo, ['status', '--porcelain'])).toBe(before.status);
    expect(gitIn(repo, ['rev-parse', 'HEAD'])).toBe(before.head);
    expect(gitIn(repo, ['symbolic-ref', 'HEAD'])).toBe(before.ref);
    expect(readAtHead(repo, 'AGENTS.md')).toBe('# Agents\n');
  });

  it('never moves an existing branch: a second proposal of the same day takes -2', () => {
    const a = commitOnNewBranch(repo, { wanted: 'skillopt/team-x', files: [{ rel: 'AGENTS.md', content: 'one\n' }], message: 'a' });
    const b = commitOnNewBranch(repo, { wanted: 'skillopt/team-x', files: [{ rel: 'AGENTS.md', content: 'two\n' }], message: 'b' });
    expect(b.branch).toBe('skillopt/team-x-2');
    expect(gitIn(repo, ['rev-parse', 'skillopt/team-x'])).toBe(a.commit);
  });

  it('says so when the folder is not a repository with a commit', () => {
    const bare = path.join(root, 'not-a-repo');
    fs.mkdirSync(bare);
    expect(() => trackedAtHead(bare)).toThrow(/not a git repository with a commit/);
    expect(trackedAtHead(repo).has('AGENTS.md')).toBe(true);
    expect(trackedAtHead(repo).has('UNCOMMITTED.txt')).toBe(false);
  });

  it('refuses a path that leaves the repository', () => {
    expect(() => commitOnNewBranch(repo, { wanted: 'skillopt/team-y', files: [{ rel: '../x.md', content: 'x' }], message: 'x' })).toThrow(/not a path inside the repository/);
  });

  it('pushes only when asked, only its branch, and the printed merge command applies it', () => {
    const remote = path.join(root, 'remote.git');
    gitIn(root, ['init', '-q', '--bare', remote]);
    gitIn(repo, ['remote', 'add', 'origin', remote]);
    const made = commitOnNewBranch(repo, { wanted: 'skillopt/team-z', files: [{ rel: 'AGENTS.md', content: '# Agents\n\n- merged\n' }], message: 'z' });
    expect(gitIn(remote, ['for-each-ref'])).toBe('');
    pushBranch(repo, made.branch, 'origin');
    expect(gitIn(remote, ['for-each-ref', '--format=%(refname)'])).toBe(`refs/heads/${made.branch}`);
    expect(() => pushBranch(repo, made.branch, 'nowhere')).toThrow(/no remote "nowhere"/);
    // applying = merging the branch (a fast-forward here): the command the product prints works as printed
    const cmd = mergeCommandOf({ repo, branch: made.branch });
    expect(cmd).toBe(`git -C ${repo} merge ${made.branch}`);
    gitIn(repo, cmd.split(' ').slice(3));
    expect(fs.readFileSync(path.join(repo, 'AGENTS.md'), 'utf8')).toBe('# Agents\n\n- merged\n');
  });
});
