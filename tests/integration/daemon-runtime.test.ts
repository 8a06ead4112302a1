/**
 * The Daemon class in-process with injected deps (a recording harvester, a scripted night child),
 * real chokidar, a real SQLite file and real child processes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { Writable } from 'node:stream';
import { resolvePaths } from '../../src/core/paths.js';
import { defaultConfig } from '../../src/core/config.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { dbBackupDir, isHealthyDatabase, listDbBackups } from '../../src/store/backup.js';
import type { DaemonDeps, HarvestOutcome } from '../../src/daemon/deps.js';
import { readPidFile } from '../../src/daemon/pidfile.js';
import { ipcRequest, socketPathFor } from '../../src/daemon/ipc.js';
import { openDb } from '../../src/store/db.js';
import { readHealth, readLastNight } from '../../src/daemon/health.js';
import { HEARTBEAT_MS } from '../../src/daemon/lease.js';
import { LATEST_VERSION } from '../../src/store/migrations/index.js';
import Database from 'better-sqlite3';
import { makeTempDir } from '../helpers/sandbox.js';

function memLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as { level: number; msg: string });
      cb();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

const until = async (cond: () => boolean, ms = 8000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

interface Setup {
  daemon: Daemon;
  root: string;
  harvests: Array<{ files?: string[] }>;
  lines: Array<{ level: number; msg: string }>;
}

describe('Daemon runtime', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  function setup(opts: { night?: string; backend?: string | null; cron?: string; keepBackups?: number; heartbeatMs?: number } = {}): Setup {
    const dir = makeTempDir();
    const env = { SKILLOPT_SLEEP_HOME: path.join(dir, 'home') };
    const paths = resolvePaths({ env });
    const root = path.join(dir, 'agent', 'projects');
    fs.mkdirSync(root, { recursive: true });
    const harvests: Array<{ files?: string[] }> = [];
    const deps: DaemonDeps = {
      discoverRoots: () => [{ agent: 'claude-code', path: root, exists: true, kind: 'projects' }],
      isTranscriptFile: (_a, f) => f.endsWith('.jsonl'),
      harvest: async (_db, _c, o): Promise<HarvestOutcome> => {
        harvests.push({ files: o.files });
        return { newSessionIds: [], filesRead: o.files?.length ?? 0, sessionsTouched: 0 };
      },
      mine: async () => undefined,
      detectBackend: async () => (opts.backend === null ? { name: null, detail: 'nothing installed' } : { name: opts.backend ?? 'sim', detail: 'sim' }),
    };
    const { logger, lines } = memLogger();
    const base = opts.keepBackups ? { ...defaultConfig(), backups: { keep: opts.keepBackups } } : defaultConfig();
    const daemon = new Daemon({
      paths,
      config: opts.cron ? { ...base, schedule: { cron: opts.cron, catchUp: true } } : base,
      ...(opts.heartbeatMs ? { heartbeatMs: opts.heartbeatMs } : {}),
      env: process.env,
      deps,
      logger,
      nightCommand: [process.execPath, '-e', opts.night ?? 'process.stdout.write(JSON.stringify({id:"night_x",summary:"staged 1 proposal"}))'],
      version: 'test',
      debounceMs: 50,
    });
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    cleanups.push(() => daemon.stop('test cleanup'));
    return { daemon, root, harvests, lines };
  }

  it('writes the pid file with its start time, answers over IPC, harvests changed files, and cleans up on stop', async () => {
    const { daemon, root, harvests } = setup();
    await daemon.start();
    const rec = readPidFile(daemon['o'].paths.pidFile)!;
    expect(rec.pid).toBe(process.pid);
    const reply = await ipcRequest(socketPathFor(daemon['o'].paths.stateDir), { op: 'status' });
    expect((reply.health as { state: string }).state).toBe('running');
    await until(() => harvests.some((h) => h.files === undefined)); // the startup rescan
    const f = path.join(root, 'p', 's.jsonl');
    fs.mkdirSync(path.dirname(f));
    await new Promise((r) => setTimeout(r, 150));
    fs.writeFileSync(f, '{}\n');
    fs.appendFileSync(f, '{}\n');
    await until(() => harvests.some((h) => h.files?.includes(f)));
    await daemon.stop('test');
    expect(fs.existsSync(daemon['o'].paths.pidFile)).toBe(false);
  });

  it('stops, saying why, when a newer skillopt-sleep upgrades the store under it', async () => {
    const { daemon, lines } = setup();
    await daemon.start();
    const other = new Database(daemon['o'].paths.database);
    other.pragma(`user_version = ${LATEST_VERSION + 1}`);
    other.close();
    daemon['heartbeat'](HEARTBEAT_MS);
    await until(() => daemon['stopping'] !== undefined);
    await daemon['stopping'];
    expect(fs.existsSync(daemon['o'].paths.pidFile)).toBe(false);
    expect(lines.some((l) => /upgraded by a newer skillopt-sleep/.test(l.msg))).toBe(true);
    // (opened raw: this version's openDb refuses the newer store, as it should)
    const check = new Database(daemon['o'].paths.database, { readonly: true });
    const h = readHealth(check);
    check.close();
    expect(h?.state).toBe('stopped');
    expect(h?.stopReason).toMatch(/schema v\d+ by a newer skillopt-sleep/);
  });

  it('never runs two nights at once, and a crashing night leaves the daemon up', async () => {
    const { daemon } = setup({ night: 'setTimeout(() => process.exit(137), 400)' });
    await daemon.start();
    const first = daemon.runNight('manual');
    const second = await daemon.runNight('scheduled');
    expect(second).toMatchObject({ status: 'skipped', reason: 'a night is already running' });
    const out = await first;
    expect(out.status).toBe('failed');
    expect(out.reason).toMatch(/exit code 137/);
    expect(daemon.liveHealth().state).toBe('running');
  });

  it('relays the night report from the child', async () => {
    const { daemon } = setup();
    await daemon.start();
    const out = await daemon.runNight('manual');
    expect(out).toMatchObject({ status: 'done', runId: 'night_x', reason: 'staged 1 proposal' });
  });

  it('backs the database up after each night that ran, keeping the newest backups.keep', async () => {
    const { daemon, root } = setup({ keepBackups: 2 });
    await daemon.start();
    const dir = dbBackupDir(path.join(path.dirname(path.dirname(root)), 'home', 'state'));
    for (let i = 0; i < 3; i++) expect((await daemon.runNight('manual')).status).toBe('done');
    const kept = listDbBackups(dir);
    expect(kept).toHaveLength(2);
    expect(kept.every((b) => isHealthyDatabase(b.file))).toBe(true);
  });

  it('takes a daily backup between nights (the first heartbeat finds none)', async () => {
    const { daemon, root } = setup({ heartbeatMs: 100 });
    await daemon.start();
    const dir = dbBackupDir(path.join(path.dirname(path.dirname(root)), 'home', 'state'));
    const t0 = Date.now();
    while (listDbBackups(dir).length === 0 && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 50));
    expect(listDbBackups(dir)).toHaveLength(1);
    // a fresh one is not due again the same day
    await new Promise((r) => setTimeout(r, 400));
    expect(listDbBackups(dir)).toHaveLength(1);
  });

  it('stops within 10 s even when the night child ignores SIGTERM', async () => {
    const { daemon, lines } = setup({ night: 'process.on("SIGTERM", () => {}); process.stderr.write("ready\\n"); setInterval(() => {}, 1000)' });
    await daemon.start();
    const night = daemon.runNight('manual');
    await until(() => lines.some((l) => l.msg === 'ready')); // its SIGTERM handler is installed
    const pid = daemon.liveHealth().nightPid!;
    const t0 = Date.now();
    await daemon.stop('SIGTERM');
    const took = Date.now() - t0;
    expect(took).toBeGreaterThan(5000); // it really ignored SIGTERM and needed the SIGKILL
    expect(took).toBeLessThan(10_000);
    expect((await night).status).toBe('aborted');
    expect(() => process.kill(pid, 0)).toThrow();
  }, 15_000);

  it('skips nights without a backend and says so once', async () => {
    const { daemon, lines } = setup({ backend: null });
    await daemon.start();
    for (let i = 0; i < 3; i++) expect((await daemon.runNight('scheduled')).status).toBe('skipped');
    expect(lines.filter((l) => /no backend available/.test(l.msg))).toHaveLength(1);
  });

  it('runs the night on the cron schedule (node-cron), in a child, and records it', async () => {
    const { daemon } = setup({ cron: '* * * * * *' }); // every second
    await daemon.start();
    const db = openDb(daemon['o'].paths.database);
    try {
      await until(() => readLastNight(db)?.trigger === 'scheduled', 8000);
      expect(readLastNight(db)).toMatchObject({ status: 'done', runId: 'night_x' });
    } finally {
      db.close();
    }
  });
});
