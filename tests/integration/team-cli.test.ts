/**
 * `team join | push | status | leave` against a real PostgreSQL (issue 42): opt-in per repository
 * (a project not opted in has 0 rows on the server: the whole database is grepped), redaction and
 * local paths removed before the push, an incremental re-push that sends ≤ 2% of the first push's
 * bytes, every push in the egress ledger, the password in no file the runs wrote and in no output,
 * `doctor` reporting the connection, schema and lease, and `leave --wipe` deleting the member's rows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { makeUserRepo } from '../helpers/user-repo.js';
import { pgAvailable, startPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { dumpDatabase, seedProjectTasks } from '../helpers/team-world.js';
import { shapeProblems } from '../helpers/json-docs.js';
import { openDb } from '../../src/store/db.js';
import { listEgress } from '../../src/store/repos/ledger.js';

const run = pgAvailable();
type PushJson = { repos: Array<{ redactions: number; outcome: { bytes: number } & Record<string, unknown> }> };
const SECRET = 'sk-live-0123456789abcdefABCDEF0123';

/** Every file under `dir` (skipping git objects), for the password grep. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === '.git' ? [] : filesUnder(p);
    return e.isFile() ? [p] : [];
  });
}

describe.skipIf(!run)('team mode from the CLI, on a real PostgreSQL', () => {
  let cluster: PgCluster;
  let sb: Sandbox;
  let shared: string;
  let privateRepo: string;
  let url: string;
  const outputs: string[] = [];
  const cli = (args: string[], cwd?: string) => {
    const r = runCli(args, sb.env, { cwd, timeout: 120_000 });
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  const json = <T = Record<string, unknown>>(args: string[], cwd?: string): T => {
    const r = cli([...args, '--json'], cwd);
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as T;
  };

  beforeAll(async () => {
    cluster = await startPgCluster();
    await cluster.createDatabase('team');
    url = cluster.urlFor('team');
    sb = makeSandbox();
    shared = path.join(sb.root, 'work', 'shared-app');
    privateRepo = path.join(sb.root, 'work', 'zebra-private');
    fs.mkdirSync(shared, { recursive: true });
    fs.mkdirSync(privateRepo, { recursive: true });
    makeUserRepo(shared);
    makeUserRepo(privateRepo, { 'NOTE.md': 'a different root commit\n' });
    const dbFile = path.join(sb.home, 'state', 'sleep.db');
    fs.mkdirSync(path.dirname(dbFile), { recursive: true });
    seedProjectTasks(dbFile, shared, 200, 'sharedjob', { secret: SECRET });
    seedProjectTasks(dbFile, privateRepo, 30, 'zebrahabit');
  }, 120_000);
  afterAll(() => {
    cluster?.stop();
    sb?.cleanup();
  });

  it('refuses a bad password without printing it', () => {
    const wrong = url.replace(cluster.password, 'not-the-password-xyz');
    const r = cli(['team', 'join', wrong, '--project', shared]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/refused the credentials/);
    expect(r.stderr + r.stdout).not.toContain('not-the-password-xyz');
    expect(fs.existsSync(path.join(sb.home, 'state', 'team.json'))).toBe(false);
  });

  it('joins one repository; the password is kept only in a private credentials file', () => {
    const out = json(['team', 'join', url, '--project', shared]);
    expect(shapeProblems(out, 'team-join')).toEqual([]);
    expect(out).toMatchObject({ ok: true, project: shared, alreadyJoined: false, credentials: 'file' });
    const state = fs.readFileSync(path.join(sb.home, 'state', 'team.json'), 'utf8');
    expect(state).not.toContain(cluster.password);
    const cred = path.join(sb.home, 'state', 'team-credentials.json');
    expect(fs.statSync(cred).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(cred, 'utf8')).toContain(cluster.password);
  });

  it('pushes the opted-in repository, redacted, without local paths; a re-push sends ≤ 2% of the bytes', async () => {
    const first = json<PushJson>(['team', 'push']);
    expect(shapeProblems(first, 'team-push')).toEqual([]);
    expect(first.repos).toHaveLength(1);
    expect(first.repos[0].outcome).toMatchObject({ tasks: 200, sent: 200, inserted: 200, unchanged: 0 });
    expect(first.repos[0].redactions).toBeGreaterThan(0);
    const again = json<PushJson>(['team', 'push']);
    expect(again.repos[0].outcome).toMatchObject({ tasks: 200, sent: 0, inserted: 0, unchanged: 200, resynced: false });
    const ratio = again.repos[0].outcome.bytes / first.repos[0].outcome.bytes;
    expect(ratio).toBeLessThanOrEqual(0.02);

    const dump = await dumpDatabase(url);
    expect(dump).toContain('sharedjob');
    expect(dump).not.toContain(SECRET);
    expect(dump).not.toContain(shared);
    expect(dump).not.toContain(sb.root);
    // the project that was not opted in: not its path, not its name, not one word of its tasks
    expect(dump).not.toContain(privateRepo);
    expect(dump).not.toContain('zebra-private');
    expect(dump).not.toContain('zebrahabit');
    const counts = await countRows(url);
    expect(counts.pooled_tasks).toBe(200);

    // each push is in the egress ledger, with the bytes and the server (never the password)
    const db = openDb(path.join(sb.home, 'state', 'sleep.db'), { readonly: true });
    const rows = listEgress(db).filter((r) => r.role === 'team');
    db.close();
    expect(rows).toHaveLength(2);
    expect(rows[0]!.bytesSent).toBe(first.repos[0].outcome.bytes);
    expect(rows[0]!.destination).toBe(`postgres@127.0.0.1:${cluster.port}/team`);
  });

  it('sends a changed task again, once', async () => {
    const dbFile = path.join(sb.home, 'state', 'sleep.db');
    seedProjectTasks(dbFile, shared, 1, 'sharedjob-changed');
    const out = json<PushJson>(['team', 'push']);
    expect(out.repos[0].outcome).toMatchObject({ tasks: 201, sent: 1, inserted: 1, unchanged: 200 });
    expect((await countRows(url)).pooled_tasks).toBe(201);
  });

  it('status and doctor report the server, the schema version and the lease', () => {
    const s = json<{ repos: Array<{ server: unknown }> }>(['team', 'status']);
    expect(shapeProblems(s, 'team-status')).toEqual([]);
    expect(s).toMatchObject({ joined: true, reachable: true, schemaVersion: 1 });
    expect(s.repos[0].server).toMatchObject({ tasks: 201, members: 1, mine: 201, optedIn: 1 });
    const d = cli(['doctor']);
    expect(d.stdout).toMatch(/team server\s+.*127\.0\.0\.1:\d+\/team.*schema v1/);
    expect(d.stdout).toMatch(/team lease\s+.*free/);
  });

  it('night --team runs the repository\'s team night under the lease and records it; a job seen from one member stays personal', () => {
    type TeamNightJson = { status: string; pool: { tasks: number; members: number }; jobs: { team: number; personalLeftOut: number }; skills: unknown[]; notes: string[] };
    const r = json<TeamNightJson>(['night', '--team', '--project', shared]);
    expect(shapeProblems(r, 'night-team')).toEqual([]);
    expect(r.status).not.toBe('failed');
    expect(r.status).not.toBe('busy');
    // one member's jobs are that member's habits: the team skill never learns them, so nothing is pooled to train
    expect(r.jobs.team).toBe(0);
    expect(r.jobs.personalLeftOut).toBeGreaterThan(0);
    expect(r.pool.tasks).toBe(0);
    expect(r.status).toBe('no_gain');
    expect(r.notes.join('\n')).toMatch(/seen from fewer than 2 members left out/);
    const s = json<{ repos: Array<{ project: string; lease: { live: boolean } | null; lastNight: { status: string } | null }> }>(['team', 'status']);
    const repo = s.repos.find((x) => x.project === shared)!;
    expect(repo.lease?.live ?? false).toBe(false);
    expect(repo.lastNight?.status).toBe(r.status);
    // --push without --team is refused before anything runs
    const bad = cli(['night', '--push', 'origin']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--push goes with --team/);
  }, 300_000);

  it('leave --wipe deletes every row of the member; nothing of the password was written anywhere', async () => {
    const out = json(['team', 'leave', '--project', shared, '--wipe']);
    expect(shapeProblems(out, 'team-leave')).toEqual([]);
    expect(out).toMatchObject({ wiped: true, leftTeam: true, deleted: { tasks: 201, repos: 1, member: 1 } });
    const counts = await countRows(url);
    expect(counts.pooled_tasks).toBe(0);
    expect(counts.members).toBe(0);
    expect(counts.member_repos).toBe(0);
    expect(fs.existsSync(path.join(sb.home, 'state', 'team-credentials.json'))).toBe(false);
    // every file the runs wrote (state, logs, ledger database, repositories) and every output
    const leaks = filesUnder(sb.root).filter((f) => fs.readFileSync(f).includes(cluster.password));
    expect(leaks).toEqual([]);
    expect(outputs.filter((o) => o.includes(cluster.password))).toEqual([]);
  });
});

async function countRows(url: string): Promise<Record<string, number>> {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const out: Record<string, number> = {};
    for (const t of ['members', 'member_repos', 'pooled_tasks']) out[t] = Number((await c.query(`SELECT count(*) AS n FROM ${t}`)).rows[0].n);
    return out;
  } finally {
    await c.end();
  }
}
