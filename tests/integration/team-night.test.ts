/**
 * The team night (src/team/night.ts) against the TEST DOUBLE of the TeamServer interface
 * (tests/helpers/memory-team-server.ts; the real PostgreSQL server has its own tests), on a real
 * git repository with committed skills, with the sim backend for every role: one night per
 * repository ('busy' for the second), a habit of one member never reaches the team skill, the
 * proposal is one commit on a new branch (working tree, index, HEAD and current branch untouched,
 * nothing pushed), provenance is counts (no member id in the PR body), and a night stopped
 * mid-training resumes from the server's checkpoint.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { shapeProblems } from '../helpers/json-docs.js';
import { gitIn } from '../helpers/user-repo.js';
import { markProjectSeen } from '../helpers/seen-project.js';
import { InMemoryTeamServerDouble } from '../helpers/memory-team-server.js';
import { simPersonaTasks } from '../../bench/persona.js';
import { resolvePaths, type SleepPaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { defaultConfig, type Config } from '../../src/core/config.js';
import { runTeamNight } from '../../src/team/night.js';
import type { PooledTask } from '../../src/team/contract.js';
import { getProposal, listProposals } from '../../src/store/repos/proposals.js';
import { PULL_REQUEST_FILE, readTeamProposal } from '../../src/proposals/team-proposal.js';

const MEMBERS = ['member-aa11', 'member-bb22', 'member-cc33'];
const REPO_KEY = 'repo-key-1';

function sim(seed: number): Config {
  const c = defaultConfig();
  for (const role of Object.keys(c.roles) as Array<keyof Config['roles']>) c.roles[role].backend = 'sim';
  c.backends.sim.seed = seed;
  c.training.seed = seed;
  c.training.epochs = 1;
  Object.assign(c.budget, { maxCalls: 5000, maxTokens: 20_000_000, maxTasks: 300 });
  return c;
}

/** Two jobs all three members share, and a third job (release notes) only the first member does: a habit. */
function pool(): PooledTask[] {
  const shared = simPersonaTasks(3, 36, { families: ['changelog', 'commit'] });
  const habit = simPersonaTasks(4, 8, { families: ['release'] });
  const out: PooledTask[] = [];
  shared.forEach((t, i) => {
    const member = MEMBERS[i % 3];
    out.push({ repoKey: REPO_KEY, memberId: member, sessionKey: `s-${member}-${i}`, contentHash: `hash-shared-${i}`, task: { ...t, origin: 'real', family: `${member}:${t.family}` } });
  });
  habit.forEach((t, i) => out.push({ repoKey: REPO_KEY, memberId: MEMBERS[0], sessionKey: `s-habit-${i}`, contentHash: `hash-habit-${i}`, task: { ...t, origin: 'real', family: `${MEMBERS[0]}:release` } }));
  return out;
}

const SKILL = '---\nname: team-conventions\ndescription: Our team conventions for changelogs, commits and release notes.\n---\n\n# Team conventions\n';

function makeRepo(dir: string): void {
  fs.mkdirSync(path.join(dir, '.claude/skills/team-conventions'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.claude/skills/team-conventions/SKILL.md'), SKILL);
  fs.writeFileSync(path.join(dir, 'AGENTS.md'), '# Agents\n\nRun `npm test` before you commit.\n');
  fs.writeFileSync(path.join(dir, 'README.md'), '# app\n');
  gitIn(dir, ['init', '-q', '-b', 'main']);
  gitIn(dir, ['add', '-A']);
  gitIn(dir, ['commit', '-qm', 'first']);
  // the user's uncommitted work: staged and unstaged changes that the night must not touch
  fs.writeFileSync(path.join(dir, 'README.md'), '# app\n\nwork in progress\n');
  fs.writeFileSync(path.join(dir, 'staged.txt'), 'staged\n');
  gitIn(dir, ['add', 'staged.txt']);
  fs.writeFileSync(path.join(dir, 'untracked.txt'), 'untracked\n');
}

function mtimes(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const rel of (fs.readdirSync(dir, { recursive: true }) as string[]).map(String).sort()) {
    if (rel === '.git' || rel.startsWith(`.git${path.sep}`)) continue;
    out[rel] = fs.statSync(path.join(dir, rel)).mtimeMs;
  }
  return out;
}

describe('team night', () => {
  let sb: Sandbox;
  let repo: string;
  let paths: SleepPaths;
  let db: Db;
  let server: InMemoryTeamServerDouble;

  beforeEach(() => {
    sb = makeSandbox({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@example.com', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@example.com' });
    repo = path.join(sb.root, 'repo');
    fs.mkdirSync(repo);
    makeRepo(repo);
    paths = resolvePaths({ env: sb.env });
    fs.mkdirSync(paths.stateDir, { recursive: true });
    db = openDb(paths.database);
    markProjectSeen(db, repo);
    server = new InMemoryTeamServerDouble();
    server.push(pool());
  });
  afterEach(() => {
    db.close();
    sb.cleanup();
  });

  it('trains the committed skill on the pooled tasks and stages it as one commit on a new branch, touching nothing else', async () => {
    const before = { status: gitIn(repo, ['status', '--porcelain']), head: gitIn(repo, ['rev-parse', 'HEAD']), branch: gitIn(repo, ['symbolic-ref', 'HEAD']), refs: gitIn(repo, ['for-each-ref']), mtimes: mtimes(repo), index: fs.readFileSync(path.join(repo, '.git/index')) };
    const r = await runTeamNight(server, { path: repo, key: REPO_KEY }, sim(7), { db, paths, env: sb.env, memberId: MEMBERS[1] });
    expect(r.status, JSON.stringify(r, null, 2)).toBe('staged');
    expect(r.jobs).toEqual({ team: 2, personalLeftOut: 1 });
    expect(r.pool).toEqual({ members: 3, sessions: 36, tasks: 36 });
    const skill = r.skills.find((s) => s.file === '.claude/skills/team-conventions/SKILL.md')!;
    expect(skill.status).toBe('staged');
    expect(skill.members).toBe(3);
    expect(skill.val!.after).toBeGreaterThan(skill.val!.before);
    // AGENTS.md had no task routed to it (every task names the team-conventions skill)
    expect(r.skills.find((s) => s.file === 'AGENTS.md')!.status).toBe('skipped');

    // the branch: exactly one new commit on top of HEAD, holding the staged candidate
    const branch = skill.branch!;
    expect(branch).toMatch(/^skillopt\/team-\d{4}-\d\d-\d\d-team-conventions$/);
    expect(gitIn(repo, ['rev-list', '--count', `HEAD..${branch}`])).toBe('1');
    expect(gitIn(repo, ['rev-parse', `${branch}^`])).toBe(before.head);
    expect(gitIn(repo, ['diff', '--name-only', 'HEAD', branch])).toBe('.claude/skills/team-conventions/SKILL.md');
    const proposal = getProposal(db, skill.proposalId!)!;
    expect(gitIn(repo, ['show', `${branch}:.claude/skills/team-conventions/SKILL.md`]) + '\n').toBe(proposal.candidate.endsWith('\n') ? proposal.candidate : `${proposal.candidate}\n`);

    // nothing else moved: working tree (content and mtimes), the index, HEAD, the current branch, no remote ref
    expect(gitIn(repo, ['status', '--porcelain'])).toBe(before.status);
    expect(gitIn(repo, ['rev-parse', 'HEAD'])).toBe(before.head);
    expect(gitIn(repo, ['symbolic-ref', 'HEAD'])).toBe(before.branch);
    expect(mtimes(repo)).toEqual(before.mtimes);
    expect(fs.readFileSync(path.join(repo, '.git/index')).equals(before.index)).toBe(true);
    const refsAfter = gitIn(repo, ['for-each-ref']).split('\n');
    expect(refsAfter.filter((l) => !before.refs.split('\n').includes(l))).toEqual([expect.stringContaining(`refs/heads/${branch}`)]);
    expect(refsAfter.some((l) => l.includes('refs/remotes/'))).toBe(false);
    expect(skill.pushed).toBeNull();

    // the PR body and team.json sit in the proposal folder (review shows them); counts, never member ids
    const info = readTeamProposal(proposal.dir)!;
    expect(info).toMatchObject({ kind: 'team', branch, commit: skill.commit, parent: before.head, members: 3, pushed: null });
    const body = fs.readFileSync(path.join(proposal.dir, PULL_REQUEST_FILE), 'utf8');
    expect(body).toContain('3 members');
    expect(body).toMatch(/\| validation \| \d\.\d\d \| \d\.\d\d \|/);
    expect(body).toContain('1 job seen from one member only was left out');
    for (const m of MEMBERS) expect(body).not.toContain(m);
    for (const rule of skill.rules!) expect(rule.members).toBeGreaterThanOrEqual(1);

    // the habit job (release notes, one member) reached neither the training nor the skill
    const releaseIds = new Set(pool().filter((p) => p.contentHash.startsWith('hash-habit')).map((p) => `team_${p.contentHash.slice(0, 24)}`));
    expect(proposal.perTask.filter((t) => releaseIds.has(t.taskId))).toEqual([]);
    expect(proposal.candidate).not.toMatch(/# Release v/);

    // the server: one summary, the lease released, a checkpoint after every step
    expect(server.nights).toHaveLength(1);
    expect(server.nights[0]).toMatchObject({ status: 'staged', branch, members: 3, sessions: 36 });
    expect(server.leases.size).toBe(0);
    expect(server.checkpointLog.length).toBeGreaterThanOrEqual(2);
  }, 240_000);

  it('renews its lease while it trains: a night longer than the lease time-to-live keeps it and stages', async () => {
    // a virtual clock: every training step takes 600 ms of a 1000 ms lease, so without renewals it expires at step 2
    let now = Date.now();
    const clock = { now: () => now };
    const timed = new InMemoryTeamServerDouble(clock.now);
    timed.push(pool());
    const renewals: number[] = [];
    const renew = timed.renewNight.bind(timed);
    timed.renewNight = async (lease, ttl) => {
      renewals.push(now);
      return renew(lease, ttl);
    };
    let steps = 0;
    const progress = { start() {}, tick() {}, done() {}, log: (line: string) => (/\[epoch \d+ step \d+\//.test(line) ? ((now += 600), steps++) : undefined) };
    const t0 = now;
    const r = await runTeamNight(timed, { path: repo, key: REPO_KEY }, sim(7), { db, paths, env: sb.env, memberId: MEMBERS[0], leaseTtlMs: 1000, clock, progress });
    expect(steps).toBeGreaterThanOrEqual(2);
    expect(now - t0).toBeGreaterThan(1000);
    expect(r.status, r.reason).toBe('staged');
    expect(renewals.length).toBeGreaterThanOrEqual(steps);
    expect(timed.nights).toHaveLength(1);
  }, 240_000);

  it('runs one night per repository: a second member starting it meanwhile gets "busy" and changes nothing', async () => {
    const held = await server.acquireNight(REPO_KEY, 'other-member:1', 60_000);
    expect(held).not.toBeNull();
    const refs = gitIn(repo, ['for-each-ref']);
    const r = await runTeamNight(server, { path: repo, key: REPO_KEY }, sim(7), { db, paths, env: sb.env, memberId: MEMBERS[0] });
    expect(r.status).toBe('busy');
    expect(r.reason).toMatch(/another member's team night/);
    expect(gitIn(repo, ['for-each-ref'])).toBe(refs);
    expect(server.nights).toEqual([]);
    expect(server.leases.get(REPO_KEY)!.holder).toBe('other-member:1');
  });

  it('stops when its lease is lost mid-training (expired and taken): no branch, no proposal, nothing recorded', async () => {
    let stolen = false;
    const steal = () => {
      if (stolen) return;
      stolen = true;
      // the lease expired (a stalled machine) and another member's night took it
      server.leases.set(REPO_KEY, { repoKey: REPO_KEY, holder: 'thief:1', token: 'thief-token', expiresAt: Date.now() + 60_000 });
    };
    const progress = { start() {}, tick() {}, done() {}, log: (line: string) => (/\[epoch 1 step 1\//.test(line) ? steal() : undefined) };
    const r = await runTeamNight(server, { path: repo, key: REPO_KEY }, sim(7), { db, paths, env: sb.env, memberId: MEMBERS[0], progress });
    expect(stolen).toBe(true);
    expect(r.status).toBe('failed');
    expect(r.reason).toMatch(/lease was lost/);
    expect(r.skills.filter((s) => s.status === 'staged')).toEqual([]);
    expect(gitIn(repo, ['for-each-ref', 'refs/heads/skillopt'])).toBe('');
    expect(listProposals(db)).toEqual([]);
    expect(server.nights).toEqual([]);
    expect(server.leases.get(REPO_KEY)!.holder).toBe('thief:1');
  }, 240_000);

  it('resumes from the server checkpoint after a night stopped mid-training', async () => {
    const stop = new AbortController();
    const progress = { start() {}, tick() {}, done() {}, log: (line: string) => (/\[epoch 1 step 1\//.test(line) ? stop.abort(new Error('killed')) : undefined) };
    const first = await runTeamNight(server, { path: repo, key: REPO_KEY }, sim(7), { db, paths, env: sb.env, memberId: MEMBERS[0], signal: stop.signal, progress });
    expect(first.status).toBe('failed');
    const saved = (await server.loadCheckpoint(REPO_KEY)) as { current: { file: string; state: { lastCompletedStep: number } } };
    expect(saved.current.file).toBe('.claude/skills/team-conventions/SKILL.md');
    expect(saved.current.state.lastCompletedStep).toBeGreaterThanOrEqual(1);
    expect(gitIn(repo, ['for-each-ref', 'refs/heads/skillopt'])).toBe('');

    const second = await runTeamNight(server, { path: repo, key: REPO_KEY }, sim(7), { db, paths, env: sb.env, memberId: MEMBERS[2] });
    const skill = second.skills.find((s) => s.file === '.claude/skills/team-conventions/SKILL.md')!;
    expect(skill.resumedAtStep).toBe(saved.current.state.lastCompletedStep);
    expect(second.status).toBe('staged');
    expect(gitIn(repo, ['rev-list', '--count', `HEAD..${skill.branch}`])).toBe('1');
  }, 240_000);

  it('lists the team proposal beside personal ones with its branch; apply refuses to write the file and prints the merge command', async () => {
    const r = await runTeamNight(server, { path: repo, key: REPO_KEY }, sim(7), { db, paths, env: sb.env, memberId: MEMBERS[0] });
    const skill = r.skills.find((s) => s.status === 'staged')!;
    db.close();
    try {
      const list = runCli(['proposals', 'list', '--json'], sb.env);
      expect(list.status, list.stderr).toBe(0);
      const listed = JSON.parse(list.stdout);
      expect(shapeProblems(listed, 'proposals')).toEqual([]);
      expect(listed.proposals[0].team).toMatchObject({ kind: 'team', branch: skill.branch, members: 3 });
      const line = runCli(['proposals', 'list'], sb.env);
      expect(line.stdout).toContain(`team: branch ${skill.branch}`);
      const show = runCli(['proposals', 'show', skill.proposalId!, '--json'], sb.env);
      const shown = JSON.parse(show.stdout);
      expect(shapeProblems(shown, 'proposal')).toEqual([]);
      expect(shown.team.merge).toBe(`git -C ${repo} merge ${skill.branch}`);
      expect(fs.existsSync(shown.team.pullRequest)).toBe(true);
      const live = fs.readFileSync(path.join(repo, '.claude/skills/team-conventions/SKILL.md'), 'utf8');
      const apply = runCli(['apply', skill.proposalId!], sb.env);
      expect(apply.status).not.toBe(0);
      expect(apply.stderr).toContain('is a team proposal');
      expect(apply.stderr).toContain(`git -C ${repo} merge ${skill.branch}`);
      expect(fs.readFileSync(path.join(repo, '.claude/skills/team-conventions/SKILL.md'), 'utf8')).toBe(live);
    } finally {
      db = openDb(paths.database);
    }
  }, 240_000);
});
