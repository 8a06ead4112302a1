/**
 * Team-mode load benchmark (issue 42): N simulated members (default 20), each with S sessions
 * (default 2,000) spread over R shared repositories (default 3), push their mined tasks to one real
 * PostgreSQL at the same time, each member its own connection, through the product's push
 * (src/team/push.ts: content-hash idempotency, batches, local record).
 *
 * Reported, in the same run:
 * - tasks lost and duplicated (expected set of member task refs against the server's rows);
 * - push throughput (tasks/s over the wall time) and p95 batch latency, beside a bare batched
 *   `INSERT … VALUES` baseline of the same rows into a plain table, same members, same batch size;
 * - an unchanged re-push's bytes on the wire as a share of the first push's (target ≤ 2%);
 * - the machine's load (`uptime`) and this process's CPU: the server shares the machine.
 *
 * One task per session (what mining leaves of a session that had a recurring job), ~1.3 KB each.
 * Usage: npm run bench -- team [--members N] [--sessions S] [--repos R] [--batch B] [--url postgres://…]
 *        npm run bench -- team --quick      (5 members × 200 sessions: a minute-long check)
 * Without --url it starts a throwaway cluster (initdb/pg_ctl; bench/pg-cluster.ts) and removes it after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import type { BenchResult } from './types.js';
import { startPgCluster, type PgCluster } from './pg-cluster.js';
import { openTeamServer, type TeamServerConnection } from '../src/team/server.js';
import { pushItems, type PushItem, type PushOutcome } from '../src/team/push.js';
import { optInRepo } from '../src/store/team/repo.js';
import { sha256 } from '../src/core/fsutil.js';
import type { Task } from '../src/core/records.js';

function numArg(args: string[], name: string, dflt: number): number {
  const i = args.indexOf(name);
  const v = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isInteger(v) && v > 0 ? v : dflt;
}

function strArg(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

const repoKeyOf = (r: number) => sha256(`bench-repo-${r}`);

/** The task a member's session left: shared jobs (the same wording for everyone) with per-session details. */
function sessionTask(member: number, session: number): Task {
  const job = ['bump the version and update the changelog', 'add a route and its test', 'fix the failing lint rule'][session % 3]!;
  return {
    id: `m${member}-t${session}`,
    project: null,
    intent: `${job} (${session}): keep entries one line each, the PR number last, and run the tests before committing`,
    context: `CHANGELOG.md keeps one line per change under the next version heading. ${'Conventions: imperative mood, no trailing period. '.repeat(6)}`,
    judge: {
      checks: [
        { id: 'c1', op: 'contains', value: 'CHANGELOG', weight: 1, sealed: false },
        { id: 'c2', op: 'regex', value: '#\\d+$', weight: 1, sealed: false, description: 'the PR number ends the entry' },
      ],
      reference: { kind: 'rule' },
    },
    split: session % 5 === 0 ? 'val' : session % 7 === 0 ? 'test' : 'train',
    origin: 'real',
    skillHint: null,
    family: `family-${session % 3}`,
    occurrences: 1 + (session % 4),
    firstSeen: 1_790_000_000_000 + session * 60_000,
    lastSeen: 1_790_000_000_000 + session * 60_000,
    status: 'active',
    reviewed: false,
    corrections: [`no, put the PR number at the end (${session})`],
    agents: ['claude-code'],
  };
}

/** One member's items per repository (session s belongs to repository s mod R). */
function memberItems(member: number, sessions: number, repos: number): PushItem[][] {
  const out: PushItem[][] = Array.from({ length: repos }, () => []);
  for (let s = 0; s < sessions; s++) {
    out[s % repos]!.push({ taskRef: `m${member}-ref-${s}`, sessionKey: sha256(`m${member}-s${s}`).slice(0, 32), task: sessionTask(member, s) });
  }
  return out;
}

const p95 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)]! : NaN;
};

interface PhaseResult {
  wallS: number;
  latenciesMs: number[];
  outcomes: PushOutcome[];
}

/** Every member pushes each of its repositories (one after the other), all members at once. */
async function pushPhase(servers: TeamServerConnection[], items: PushItem[][][], dir: string, batch: number): Promise<PhaseResult> {
  const latenciesMs: number[] = [];
  const outcomes: PushOutcome[] = [];
  const t0 = performance.now();
  await Promise.all(
    servers.map(async (server, m) => {
      for (let r = 0; r < items[m]!.length; r++) {
        let last = performance.now();
        const out = await pushItems(server, {
          memberId: `member-${m}`,
          repoKey: repoKeyOf(r),
          items: items[m]![r]!,
          pushedFile: path.join(dir, `m${m}-r${r}.json`),
          batchSize: batch,
          onBatch: () => {
            const now = performance.now();
            latenciesMs.push(now - last);
            last = now;
          },
        });
        outcomes.push(out);
      }
    }),
  );
  return { wallS: (performance.now() - t0) / 1000, latenciesMs, outcomes };
}

/** The baseline: the same rows, bare multi-row INSERTs into a plain table, same members and batch size. */
async function baselinePhase(url: string, items: PushItem[][][], batch: number): Promise<{ wallS: number; latenciesMs: number[] }> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('DROP TABLE IF EXISTS baseline_tasks');
  await admin.query('CREATE TABLE baseline_tasks (repo_key TEXT, content_hash TEXT, member_id TEXT, task_ref TEXT, session_key TEXT, task JSONB, pushed_at BIGINT)');
  await admin.end();
  const latenciesMs: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    items.map(async (perRepo, m) => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        for (let r = 0; r < perRepo.length; r++) {
          const list = perRepo[r]!;
          for (let i = 0; i < list.length; i += batch) {
            const chunk = list.slice(i, i + batch);
            const t = performance.now();
            const values: unknown[] = [];
            const rows = chunk.map((it, k) => {
              values.push(repoKeyOf(r), sha256(JSON.stringify(it.task)), `member-${m}`, it.taskRef, it.sessionKey, JSON.stringify(it.task), Date.now());
              const b = k * 7;
              return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}::jsonb, $${b + 7})`;
            });
            await c.query(`INSERT INTO baseline_tasks VALUES ${rows.join(', ')}`, values);
            latenciesMs.push(performance.now() - t);
          }
        }
      } finally {
        await c.end();
      }
    }),
  );
  return { wallS: (performance.now() - t0) / 1000, latenciesMs };
}

export async function run(args: string[]): Promise<BenchResult[]> {
  const quick = args.includes('--quick');
  const members = numArg(args, '--members', quick ? 5 : 20);
  const sessions = numArg(args, '--sessions', quick ? 200 : 2000);
  const repos = numArg(args, '--repos', 3);
  const batch = numArg(args, '--batch', 250);
  const given = strArg(args, '--url');
  let cluster: PgCluster | undefined;
  let url = given;
  if (!url) {
    cluster = await startPgCluster();
    await cluster.createDatabase('team_bench');
    url = cluster.urlFor('team_bench');
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-bench-team-'));
  const servers: TeamServerConnection[] = [];
  const cpu0 = process.cpuUsage();
  try {
    const items = Array.from({ length: members }, (_, m) => memberItems(m, sessions, repos));
    const total = members * sessions;
    const firstServer = await openTeamServer(url, { max: 2 });
    servers.push(firstServer);
    for (let m = 1; m < members; m++) servers.push(await openTeamServer(url, { max: 1 }));
    for (let m = 0; m < members; m++) for (let r = 0; r < repos; r++) await optInRepo(firstServer.pool, `member-${m}`, repoKeyOf(r));

    const first = await pushPhase(servers, items, dir, batch);
    const again = await pushPhase(servers, items, dir, batch);
    const base = await baselinePhase(url, items, batch);

    // the server's rows against the expected set: nothing lost, nothing twice
    const q = await firstServer.pool.query<{ rows: number; refs: number; hashes: number }>(
      'SELECT count(*)::int AS rows, count(DISTINCT task_ref)::int AS refs, count(DISTINCT content_hash)::int AS hashes FROM pooled_tasks',
    );
    const present = new Set((await firstServer.pool.query<{ task_ref: string }>('SELECT task_ref FROM pooled_tasks')).rows.map((r) => r.task_ref));
    let lost = 0;
    for (const perRepo of items) for (const list of perRepo) for (const it of list) if (!present.has(it.taskRef)) lost++;
    const facts = q.rows[0]!;
    const duplicated = facts.rows - facts.refs;

    const firstBytes = first.outcomes.reduce((n, o) => n + o.bytes, 0);
    const againBytes = again.outcomes.reduce((n, o) => n + o.bytes, 0);
    const ratio = againBytes / firstBytes;
    const pushTput = total / first.wallS;
    const baseTput = total / base.wallS;
    const cpu = process.cpuUsage(cpu0);
    const uptime = (() => {
      try {
        return execFileSync('uptime', { encoding: 'utf8' }).trim();
      } catch {
        return `load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`;
      }
    })();
    process.stderr.write(`team: ${members} members × ${sessions} sessions × ${repos} repositories, batch ${batch}; ${uptime}\n`);
    return [
      { name: `tasks pushed (${members} members × ${sessions} sessions, ${repos} repos)`, value: facts.rows, unit: 'tasks', target: `= ${total}`, pass: facts.rows === total },
      { name: 'tasks lost', value: lost, unit: 'tasks', target: '= 0', pass: lost === 0 },
      { name: 'tasks duplicated', value: duplicated, unit: 'tasks', target: '= 0', pass: duplicated === 0 },
      { name: 'push throughput (team push, concurrent)', value: Math.round(pushTput), unit: 'tasks/s' },
      { name: 'baseline throughput (bare batched INSERT)', value: Math.round(baseTput), unit: 'tasks/s' },
      { name: 'push throughput / baseline', value: Number((pushTput / baseTput).toFixed(3)), unit: 'x' },
      { name: `push p95 batch latency (${batch} tasks)`, value: Math.round(p95(first.latenciesMs)), unit: 'ms' },
      { name: `baseline p95 batch latency (${batch} tasks)`, value: Math.round(p95(base.latenciesMs)), unit: 'ms' },
      { name: 'first push bytes on the wire', value: Number((firstBytes / 1e6).toFixed(2)), unit: 'MB' },
      { name: 'unchanged re-push bytes, share of the first push', value: Number((ratio * 100).toFixed(3)), unit: '%', target: '<= 2', pass: ratio <= 0.02 },
      { name: 'unchanged re-push tasks sent', value: again.outcomes.reduce((n, o) => n + o.sent, 0), unit: 'tasks', target: '= 0', pass: again.outcomes.every((o) => o.sent === 0) },
      { name: 'bench process CPU (user+sys; the server shares the machine)', value: Number(((cpu.user + cpu.system) / 1e6).toFixed(1)), unit: 's' },
      { name: `load average (1 min, ${os.availableParallelism?.() ?? os.cpus().length} cores)`, value: Number(os.loadavg()[0]!.toFixed(2)), unit: '' },
    ];
  } finally {
    await Promise.all(servers.map((s) => s.close().catch(() => {})));
    fs.rmSync(dir, { recursive: true, force: true });
    cluster?.stop();
  }
}
