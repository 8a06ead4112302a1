/**
 * Team-mode faults against a real PostgreSQL (issue 42), each ending with nothing lost and nothing
 * applied twice (rows, distinct task refs and content hashes counted on the server):
 * - `kill -9` of a member process in the middle of a big push, then the push run again;
 * - a PostgreSQL restart (`pg_ctl restart -m fast`) while a push is in flight: the push retries;
 * - three member processes starting the team night at once: exactly one takes the lease;
 * - `kill -9` of a process holding the night lease mid-"training": the lease expires, the next
 *   holder gets a new fencing token and resumes from the last checkpoint.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, makeTempDir } from '../helpers/sandbox.js';
import { pgAvailable, startPgCluster, type PgCluster } from '../helpers/pg-cluster.js';
import { openTeamServer, type TeamServerConnection } from '../../src/team/server.js';
import { pushItems, type PushItem } from '../../src/team/push.js';
import { optInRepo } from '../../src/store/team/repo.js';
import { makeTask } from '../helpers/tasks.js';

const run = pgAvailable();
const DIST = path.join(REPO_ROOT, 'dist/src');

/** The same synthetic items in this process and in the child (the child's copy is in CHILD_PUSH below). */
function items(n: number): PushItem[] {
  return Array.from({ length: n }, (_, i) => ({
    taskRef: `ref-${i}`,
    sessionKey: `s-${i % 50}`,
    task: makeTask({ id: `t-${i}`, intent: `job ${i}: ${'describe the change in the changelog '.repeat(8)}`, judge: { checks: [], reference: { kind: 'rule' } }, split: 'train' }),
  }));
}

/** A member process pushing `n` items in batches, printing a line after each committed batch. */
const CHILD_PUSH = `
const [url, memberId, repoKey, n, pushedFile, batch] = process.argv.slice(1);
const { openTeamServer } = await import(${JSON.stringify(path.join(DIST, 'team/server.js'))});
const { pushItems } = await import(${JSON.stringify(path.join(DIST, 'team/push.js'))});
const { optInRepo } = await import(${JSON.stringify(path.join(DIST, 'store/team/repo.js'))});
const server = await openTeamServer(url);
await optInRepo(server.pool, memberId, repoKey);
const items = Array.from({ length: Number(n) }, (_, i) => ({ taskRef: 'ref-' + i, sessionKey: 's-' + (i % 50), task: {
  project: null, context: '', origin: 'real', skillHint: null, family: null, occurrences: 1, firstSeen: null, lastSeen: null,
  status: 'active', reviewed: false, corrections: [], agents: [],
  id: 't-' + i, intent: 'job ' + i + ': ' + 'describe the change in the changelog '.repeat(8), judge: { checks: [], reference: { kind: 'rule' } }, split: 'train' } }));
await pushItems(server, { memberId, repoKey, items, pushedFile, batchSize: Number(batch), onBatch: (sent, total) => process.stdout.write('batch ' + sent + ' ' + total + '\\n') });
process.stdout.write('done\\n');
await server.close();
`;

/** A night holder saving a checkpoint every 40 ms (renewing its lease), printing each step it saved. */
const CHILD_NIGHT = `
const [url, repoKey] = process.argv.slice(1);
const { openTeamServer } = await import(${JSON.stringify(path.join(DIST, 'team/server.js'))});
const server = await openTeamServer(url);
const lease = await server.acquireNight(repoKey, 'child-night', 1500);
if (!lease) { process.stdout.write('no lease\\n'); process.exit(3); }
process.stdout.write('lease ' + lease.token + '\\n');
for (let step = 1; ; step++) {
  await server.saveCheckpoint(lease, { step, skill: 'skill after step ' + step });
  await server.renewNight(lease, 1500);
  process.stdout.write('step ' + step + '\\n');
  await new Promise((r) => setTimeout(r, 40));
}
`;

/** A member process that starts the team night: waits for the go file, then tries to take the lease. */
const CHILD_START_NIGHT = `
const [url, repoKey, holder, go] = process.argv.slice(1);
const fs = await import('node:fs');
const { openTeamServer } = await import(${JSON.stringify(path.join(DIST, 'team/server.js'))});
const server = await openTeamServer(url);
process.stdout.write('ready\\n');
while (!fs.existsSync(go)) await new Promise((r) => setTimeout(r, 2));
const lease = await server.acquireNight(repoKey, holder, 60000);
process.stdout.write((lease ? 'won ' + lease.token : 'lost') + '\\n');
await server.close();
`;

function runChild(script: string, args: string[], onLine: (l: string) => void = () => {}): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      for (const l of d.toString().split('\n').filter(Boolean)) {
        lines.push(l);
        onLine(l);
      }
    });
    child.on('exit', (code) => (code === 0 ? resolve(lines) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

/** Starts a child and resolves once a stdout line satisfies `when` (the child is then SIGKILLed). */
function killWhen(script: string, args: string[], when: (line: string) => boolean): Promise<{ lines: string[]; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let err = '';
    let buf = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const parts = buf.split('\n');
      buf = parts.pop()!;
      for (const l of parts) {
        lines.push(l);
        if (when(l)) child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve({ lines, signal }) : reject(new Error(`child exited ${code} before the kill: ${err}`))));
  });
}

async function poolFacts(server: TeamServerConnection, repoKey: string): Promise<{ rows: number; refs: number; hashes: number }> {
  const r = await server.pool.query('SELECT count(*)::int AS rows, count(DISTINCT task_ref)::int AS refs, count(DISTINCT content_hash)::int AS hashes FROM pooled_tasks WHERE repo_key = $1', [repoKey]);
  return r.rows[0];
}

describe.skipIf(!run)('team faults on a real PostgreSQL', () => {
  let cluster: PgCluster;
  let server: TeamServerConnection;
  let tmp: string;
  let url: string;

  beforeAll(async () => {
    cluster = await startPgCluster();
    await cluster.createDatabase('team');
    url = cluster.urlFor('team');
    server = await openTeamServer(url);
    tmp = makeTempDir('sos-team-faults-');
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    cluster?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('kill -9 of a member mid-push: the next push completes it, nothing lost, nothing twice', async () => {
    const N = 6000;
    const pushedFile = path.join(tmp, 'pushed-kill.json');
    const killed = await killWhen(CHILD_PUSH, [url, 'member-k', 'repo-kill', String(N), pushedFile, '200'], (l) => l.startsWith('batch 1000 '));
    expect(killed.lines.some((l) => l === 'done')).toBe(false);
    const mid = await poolFacts(server, 'repo-kill');
    expect(mid.rows).toBeGreaterThanOrEqual(1000);
    expect(mid.rows).toBeLessThan(N);
    // the same member pushes again (here, in this process) from its local record
    const out = await pushItems(server, { memberId: 'member-k', repoKey: 'repo-kill', items: items(N), pushedFile, batchSize: 200 });
    expect(out.inserted + mid.rows).toBe(N);
    expect(await poolFacts(server, 'repo-kill')).toEqual({ rows: N, refs: N, hashes: N });
    const refs = (await server.pool.query("SELECT task_ref FROM pooled_tasks WHERE repo_key = 'repo-kill'")).rows.map((r) => r.task_ref as string);
    expect(new Set(refs)).toEqual(new Set(items(N).map((i) => i.taskRef)));
  }, 120_000);

  it('a PostgreSQL restart while a push is in flight: the push retries and completes, nothing lost, nothing twice', async () => {
    const N = 4000;
    await optInRepo(server.pool, 'member-r', 'repo-restart');
    const pushedFile = path.join(tmp, 'pushed-restart.json');
    let restart: Promise<void> | undefined;
    const out = await pushItems(server, {
      memberId: 'member-r',
      repoKey: 'repo-restart',
      items: items(N),
      pushedFile,
      batchSize: 100,
      retry: { attempts: 30, baseMs: 100, maxMs: 1_000 },
      onBatch: (sent) => {
        if (sent === 500) restart = cluster.restartAsync();
      },
    });
    await restart;
    expect(restart).toBeDefined();
    expect(out.retries).toBeGreaterThan(0);
    expect(out.sent).toBe(N);
    expect(await poolFacts(server, 'repo-restart')).toEqual({ rows: N, refs: N, hashes: N });
    // and a re-push after the restart sends nothing again
    const again = await pushItems(server, { memberId: 'member-r', repoKey: 'repo-restart', items: items(N), pushedFile });
    expect(again).toMatchObject({ sent: 0, inserted: 0, unchanged: N });
    // tasks no longer active on the member's machine leave the pool at the next push
    const fewer = await pushItems(server, { memberId: 'member-r', repoKey: 'repo-restart', items: items(N).slice(10), pushedFile });
    expect(fewer).toMatchObject({ sent: 0, retired: 10 });
    expect(await poolFacts(server, 'repo-restart')).toEqual({ rows: N - 10, refs: N - 10, hashes: N - 10 });
  }, 120_000);

  it('two member processes starting the team night at the same moment: exactly one runs it', async () => {
    const go = path.join(tmp, 'go');
    let ready = 0;
    const both = Promise.all(['alice', 'bob', 'carol'].map((h) => runChild(CHILD_START_NIGHT, [url, 'repo-race-proc', h, go], (l) => l === 'ready' && ready++)));
    let failed: unknown;
    both.catch((err: unknown) => (failed = err));
    for (let waited = 0; ready < 3; waited += 10) {
      if (failed || waited > 30_000) throw failed ?? new Error('the member processes did not start');
      await new Promise((r) => setTimeout(r, 10));
    }
    fs.writeFileSync(go, '');
    const outs = (await both).map((lines) => lines.at(-1)!);
    expect(outs.filter((o) => o.startsWith('won '))).toHaveLength(1);
    expect(outs.filter((o) => o === 'lost')).toHaveLength(2);
    const holder = await server.pool.query("SELECT count(*)::int AS n FROM night_leases WHERE repo_key = 'repo-race-proc'");
    expect(holder.rows[0].n).toBe(1);
  }, 60_000);

  it('kill -9 of the night holder mid-training: the lease expires, the next night resumes from the checkpoint', async () => {
    const killed = await killWhen(CHILD_NIGHT, [url, 'repo-night'], (l) => l === 'step 5');
    const firstToken = killed.lines.find((l) => l.startsWith('lease '))!.slice(6);
    const lastStep = Math.max(...killed.lines.filter((l) => l.startsWith('step ')).map((l) => Number(l.slice(5))));
    // the dead holder's lease is still live: nobody else runs the night yet
    expect(await server.acquireNight('repo-night', 'next-night', 60_000)).toBeNull();
    let lease = null;
    for (let i = 0; i < 60 && !lease; i++) {
      await new Promise((r) => setTimeout(r, 100));
      lease = await server.acquireNight('repo-night', 'next-night', 60_000);
    }
    expect(lease).not.toBeNull();
    expect(BigInt(lease!.token)).toBeGreaterThan(BigInt(firstToken));
    const cp = (await server.loadCheckpoint('repo-night')) as { step: number; skill: string };
    expect(cp.step).toBeGreaterThanOrEqual(lastStep);
    expect(cp.skill).toBe(`skill after step ${cp.step}`);
    // the dead holder's token can no longer write
    await expect(server.saveCheckpoint({ repoKey: 'repo-night', holder: 'child-night', token: firstToken, expiresAt: 0 }, { step: 99 })).rejects.toMatchObject({ code: 'STALE' });
    await server.releaseNight(lease!);
  }, 60_000);
});
