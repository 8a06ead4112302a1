/**
 * The team night against the REAL PostgreSQL server (issue 42): three members' pooled tasks pushed
 * to a throwaway cluster, the night trains the repository's committed skill behind the gate and
 * stages one commit on a new branch, the summary lands on the server and the lease is released;
 * two members starting the night at once: exactly one runs; a night killed with SIGKILL mid-training
 * leaves its lease to expire, and the next night resumes from the server's checkpoint. (The night's logic in more cases runs
 * against the interface's test double in team-night.test.ts.)
 */
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { gitIn } from '../helpers/user-repo.js';
import { markProjectSeen } from '../helpers/seen-project.js';
import { pgAvailable, startPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { simPersonaTasks } from '../../bench/persona.js';
import { resolvePaths, type SleepPaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { defaultConfig, type Config } from '../../src/core/config.js';
import { runTeamNight } from '../../src/team/night.js';
import { openTeamServer, type TeamServerConnection } from '../../src/team/server.js';
import { lastNightSummary, loadCheckpoint, optInRepo, pushBatch, readLease } from '../../src/store/team/repo.js';

const MEMBERS = ['member-aa11', 'member-bb22', 'member-cc33'];
const REPO_KEY = 'repo-key-pg-1';

function sim(seed: number): Config {
  const c = defaultConfig();
  for (const role of Object.keys(c.roles) as Array<keyof Config['roles']>) c.roles[role].backend = 'sim';
  c.backends.sim.seed = seed;
  c.training.seed = seed;
  c.training.epochs = 1;
  Object.assign(c.budget, { maxCalls: 5000, maxTokens: 20_000_000, maxTasks: 300 });
  return c;
}

const SKILL = '---\nname: team-conventions\ndescription: Our team conventions for changelogs and commits.\n---\n\n# Team conventions\n';

describe.skipIf(!pgAvailable())('the team night on a real PostgreSQL', () => {
  let cluster: PgCluster;
  let server: TeamServerConnection;
  let sb: Sandbox;
  let repo: string;
  let paths: SleepPaths;
  let db: Db;

  beforeAll(async () => {
    cluster = await startPgCluster();
    await cluster.createDatabase('team');
    server = await openTeamServer(cluster.urlFor('team'));
    // two jobs every member shares, pushed by each member as its own tasks
    const shared = simPersonaTasks(3, 36, { families: ['changelog', 'commit'] });
    for (const m of MEMBERS) await optInRepo(server.pool, m, REPO_KEY);
    await pushBatch(
      server.pool,
      shared.map((t, i) => {
        const member = MEMBERS[i % 3];
        return { repo_key: REPO_KEY, content_hash: `hash-${i}`, member_id: member, task_ref: t.id, session_key: `s-${member}-${i}`, task: { ...t, origin: 'real', family: `${member}:${t.family}` } };
      }),
    );
    sb = makeSandbox({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@example.com', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@example.com' });
    repo = path.join(sb.root, 'repo');
    fs.mkdirSync(path.join(repo, '.claude/skills/team-conventions'), { recursive: true });
    fs.writeFileSync(path.join(repo, '.claude/skills/team-conventions/SKILL.md'), SKILL);
    gitIn(repo, ['init', '-q', '-b', 'main']);
    gitIn(repo, ['add', '-A']);
    gitIn(repo, ['commit', '-qm', 'first']);
    paths = resolvePaths({ env: sb.env });
    fs.mkdirSync(paths.stateDir, { recursive: true });
    db = openDb(paths.database);
    markProjectSeen(db, repo);
  }, 180_000);
  afterAll(async () => {
    db?.close();
    await server?.close();
    cluster?.stop();
    sb?.cleanup();
  });

  it('two members start it at once: exactly one runs; it stages one commit on a new branch and records the night', async () => {
    const head = gitIn(repo, ['rev-parse', 'HEAD']);
    const second = await openTeamServer(cluster.urlFor('team'));
    try {
      const [a, b] = await Promise.all([
        runTeamNight(server, { path: repo, key: REPO_KEY }, sim(7), { db, paths, env: sb.env, memberId: MEMBERS[0] }),
        runTeamNight(second, { path: repo, key: REPO_KEY }, sim(7), { db, paths, env: sb.env, memberId: MEMBERS[1] }),
      ]);
      const statuses = [a.status, b.status].sort();
      expect(statuses.filter((s) => s === 'busy')).toHaveLength(1);
      const ran = a.status === 'busy' ? b : a;
      expect(ran.status, JSON.stringify(ran, null, 2)).toBe('staged');
      expect(ran.pool).toEqual({ members: 3, sessions: 36, tasks: 36 });
      const skill = ran.skills.find((s) => s.file === '.claude/skills/team-conventions/SKILL.md')!;
      expect(skill.val!.after).toBeGreaterThan(skill.val!.before);
      expect(gitIn(repo, ['rev-list', '--count', `HEAD..${skill.branch!}`])).toBe('1');
      expect(gitIn(repo, ['rev-parse', 'HEAD'])).toBe(head);
      // the server holds the night's summary, and the lease is free again
      expect(await lastNightSummary(server.pool, REPO_KEY)).toMatchObject({ status: 'staged', members: 3 });
      const lease = await readLease(server.pool, REPO_KEY);
      expect(lease === null || lease.expiresAt <= lease.serverNow).toBe(true);
    } finally {
      await second.close();
    }
  }, 600_000);

  it('kill -9 of the team night mid-training: the lease expires and the next night resumes from the checkpoint', async () => {
    const TTL = 4000;
    const url = cluster.urlFor('team');
    const child = spawn(process.execPath, [path.join(import.meta.dirname, '../helpers/team-night-child.mjs'), url, repo, REPO_KEY, MEMBERS[2], String(TTL), '11'], { env: sb.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // kill it as soon as the server holds a checkpoint of a skill in training
    let killedAt: number | null = null;
    const deadline = Date.now() + 240_000;
    while (killedAt === null && Date.now() < deadline && child.exitCode === null) {
      const cp = (await loadCheckpoint(server.pool, REPO_KEY)) as { current?: { state?: { lastCompletedStep?: number } } | null } | null;
      if (cp?.current?.state?.lastCompletedStep) {
        child.kill('SIGKILL');
        killedAt = cp.current.state.lastCompletedStep;
      } else await new Promise((r) => setTimeout(r, 15));
    }
    await exited;
    expect(killedAt, 'the child finished before a checkpoint was seen').not.toBeNull();
    // its lease is still held, so a night now is busy; after the TTL the next one takes over and resumes
    const busy = await runTeamNight(server, { path: repo, key: REPO_KEY }, sim(11), { db, paths, env: sb.env, memberId: MEMBERS[0] });
    expect(busy.status).toBe('busy');
    await new Promise((r) => setTimeout(r, TTL + 500));
    const next = await runTeamNight(server, { path: repo, key: REPO_KEY }, sim(11), { db, paths, env: sb.env, memberId: MEMBERS[0] });
    expect(next.status, JSON.stringify(next, null, 2)).not.toBe('failed');
    const skill = next.skills.find((s) => s.file === '.claude/skills/team-conventions/SKILL.md')!;
    expect(skill.resumedAtStep).toBeGreaterThanOrEqual(killedAt!);
  }, 600_000);
});
