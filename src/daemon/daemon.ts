/**
 * The resident daemon: one instance per state dir. It watches transcript roots and feeds changed
 * files to the incremental harvester, mines new sessions, runs the night on schedule in a child
 * process, answers `status`/`night --now` over IPC, and stops cleanly within 10 s.
 */
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import cron, { type ScheduledTask } from 'node-cron';
import type { Config } from '../core/config.js';
import type { SleepPaths } from '../core/paths.js';
import { refreshNudgeFile } from '../store/nudge-refresh.js';
import type { Logger } from '../core/logger.js';
import { errorMessage } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { checkpointWal, openDb, schemaVersion, type Db } from '../store/db.js';
import { LATEST_VERSION } from '../store/migrations/index.js';
import { getLease } from '../store/repos/leases.js';
import type { DaemonDeps, BackendChoice } from './deps.js';
import { acquireDaemonLease, heartbeatLease, releaseDaemonLease, HEARTBEAT_MS } from './lease.js';
import { processStartTime, removePidFile, writePidFile, recordLiveness } from './pidfile.js';
import { DebouncedQueue, type FlushBatch } from './queue.js';
import { TranscriptWatcher } from './watcher.js';
import { NightRunner, type NightOutcome, type NightTrigger } from './night-runner.js';
import { startIpcServer, socketPathFor, type IpcReply, type IpcRequest } from './ipc.js';
import { decideCatchUp, detectWake, nextRunAfter, validateSchedule } from './timing.js';
import * as health from './health.js';
import { backupDatabase, dbBackupDir, listDbBackups } from '../store/backup.js';

/** The daemon takes a database backup after each night and, between nights, at least this often. */
const BACKUP_EVERY_MS = 24 * 60 * 60 * 1000;

export interface DaemonOptions {
  paths: SleepPaths;
  config: Config;
  env: NodeJS.ProcessEnv;
  deps: DaemonDeps;
  logger: Logger;
  /** argv that runs one night: [node, cli, 'night', '--json'] */
  nightCommand: string[];
  version: string;
  debounceMs?: number;
  maxWaitMs?: number;
  maxQueue?: number;
  /** delay between new sessions and mining them (mining re-clusters; batch it) */
  mineDelayMs?: number;
  heartbeatMs?: number;
  /** returns memory to the OS after bursts of work (a forced GC when the process allows it) */
  compact?: () => void;
}

export class Daemon {
  readonly holder = newId("daemon");
  readonly startedAt = Date.now();
  private db!: Db;
  private readonly abort = new AbortController();
  private watcher!: TranscriptWatcher;
  private queue!: DebouncedQueue;
  private nights!: NightRunner;
  private ipc: net.Server | undefined;
  private cronTask: ScheduledTask | undefined;
  private beat: NodeJS.Timeout | undefined;
  private mineTimer: NodeJS.Timeout | undefined;
  private compactTimer: NodeJS.Timeout | undefined;
  private mining = false;
  private lastBeatWall = Date.now();
  private state: health.DaemonState = 'starting';
  private backend: BackendChoice = { name: null, detail: 'not checked yet' };
  private counters = { filesIngested: 0, sessionsIngested: 0, newSessions: 0 };
  private lastHarvestAt: number | undefined;
  private lastHarvestError: string | undefined;
  private harvesting = false;
  private backingUp = false;
  private stopping: Promise<void> | undefined;
  private readonly socket: string;
  private startTime: string | null = null;
  /** resolves when the daemon has fully stopped */
  readonly stopped: Promise<void>;
  private resolveStopped!: () => void;

  constructor(private readonly o: DaemonOptions) {
    this.socket = socketPathFor(o.paths.stateDir);
    this.stopped = new Promise((r) => (this.resolveStopped = r));
  }

  get log(): Logger {
    return this.o.logger;
  }

  /** Acquires the lease and starts everything; throws LEASE_HELD if another daemon runs. */
  async start(): Promise<void> {
    const { paths, config } = this.o;
    validateSchedule(config.schedule.cron, config.schedule.timezone);
    this.db = openDb(paths.database);
    const startTime = processStartTime(process.pid);
    this.startTime = startTime;
    let acquired;
    try {
      acquired = acquireDaemonLease(this.db, this.holder, { startTime, socket: this.socket, version: this.o.version });
    } catch (err) {
      this.db.close();
      throw err;
    }
    if (acquired.tookOver) this.log.warn(acquired.tookOver, 'took over the lease of a daemon that is gone');
    writePidFile(paths.pidFile, { pid: process.pid, startTime, startedAt: this.startedAt, socket: this.socket, host: os.hostname(), version: this.o.version });
    health.firstStartAt(this.db, this.startedAt);

    this.queue = new DebouncedQueue({
      debounceMs: this.o.debounceMs ?? 200,
      maxWaitMs: this.o.maxWaitMs ?? 1000,
      maxPending: this.o.maxQueue ?? 5000,
      onFlush: (b) => this.ingest(b),
      onError: (err) => this.log.error({ err: errorMessage(err) }, 'ingest failed'),
    });
    this.nights = new NightRunner({
      command: this.o.nightCommand,
      env: this.o.env,
      logger: this.log,
      detectBackend: () => this.refreshBackend(),
      otherNightRunning: () => this.otherNight(),
    });
    this.ipc = await startIpcServer(this.socket, (req, reply) => this.onIpc(req, reply));

    const roots = this.o.deps.discoverRoots(config, this.o.env);
    this.watcher = new TranscriptWatcher({
      roots,
      isTranscriptFile: (a, f) => this.o.deps.isTranscriptFile(a, f),
      ignoreDirs: [paths.stateDir, paths.workspacesDir, paths.proposalsDir, paths.runsDir, paths.backupsDir],
      // Claude Code's project folder for a replay run in our workspaces dir: the path with every
      // non-alphanumeric character turned into '-'
      ignoreNamePrefixes: [paths.workspacesDir.replace(/[^a-zA-Z0-9]/g, '-')],
      onFile: (f) => this.queue.push(f),
      onRootAppeared: () => {
        // now, and once more when the new root's watchers are surely up (files copied in
        // right after the folder was created would otherwise wait for their next change)
        this.queue.requestRescan();
        setTimeout(() => this.queue.requestRescan(), 2000).unref();
      },
      logger: this.log,
    });
    await this.watcher.start();
    await this.refreshBackend();

    this.cronTask = cron.schedule(config.schedule.cron, () => void this.runNight('scheduled'), {
      timezone: config.schedule.timezone,
      name: 'skillopt-sleep-night',
      noOverlap: true,
      logger: {
        info: (m) => this.log.debug(m),
        warn: (m) => this.log.info(`scheduler: ${m}`),
        error: (m, e) => this.log.error({ err: e ? errorMessage(e) : undefined }, `scheduler: ${errorMessage(m)}`),
        debug: () => undefined,
      },
    });
    const interval = this.o.heartbeatMs ?? HEARTBEAT_MS;
    this.beat = setInterval(() => this.heartbeat(interval), interval);
    this.state = 'running';
    const st = this.watcher.status();
    this.log.info(
      {
        pid: process.pid,
        roots: st.map((r) => ({ agent: r.agent, path: r.path, exists: r.exists })),
        backend: this.backend,
        nextNight: this.nextNightAt() ? new Date(this.nextNightAt()!).toISOString() : null,
      },
      `daemon started; watching ${st.filter((r) => r.exists).length}/${st.length} transcript folders`,
    );
    // logs the missing backend once (and only once until it changes)
    if (!this.backend.name) await this.nights.preflight();
    this.writeHealth();
    // initial catch-up: one incremental pass over everything, then the missed-night check
    this.queue.requestRescan();
    void this.queue.idle().then(() => this.maybeCatchUp('start'));
  }

  nextNightAt(): number | undefined {
    try {
      return nextRunAfter(this.o.config.schedule.cron, this.o.config.schedule.timezone, new Date()).getTime();
    } catch {
      return undefined;
    }
  }

  private async refreshBackend(): Promise<BackendChoice> {
    try {
      this.backend = await this.o.deps.detectBackend(this.o.config, this.o.env);
    } catch (err) {
      this.backend = { name: null, detail: `backend detection failed: ${errorMessage(err)}` };
    }
    return this.backend;
  }

  private otherNight(): string | undefined {
    const l = getLease(this.db, 'night');
    if (!l || l.expiresAt <= Date.now()) return undefined;
    const startTime = typeof l.info.startTime === 'string' ? l.info.startTime : null;
    if (l.host === os.hostname() && recordLiveness({ pid: l.pid, startTime }) !== 'live') return undefined;
    if (l.pid === this.nights.childPid) return undefined;
    return `a night is already running (pid ${l.pid})`;
  }

  private async ingest(b: FlushBatch): Promise<void> {
    if (this.abort.signal.aborted) return;
    this.harvesting = true;
    try {
      const out = await this.o.deps.harvest(this.db, this.o.config, b.rescanAll ? { signal: this.abort.signal } : { files: b.files, signal: this.abort.signal });
      this.counters.filesIngested += out.filesRead;
      this.counters.sessionsIngested += out.sessionsTouched;
      this.counters.newSessions += out.newSessionIds.length;
      this.lastHarvestAt = Date.now();
      this.lastHarvestError = undefined;
      if (out.reread) this.log.info({ files: out.filesRead }, 'this version reads more of the transcripts: every file was read again from its start, once');
      if (out.filesRead > 0 || out.newSessionIds.length > 0) {
        this.log.debug({ files: b.files.length, rescan: b.rescanAll, read: out.filesRead, newSessions: out.newSessionIds.length }, 'harvested');
      }
      if (out.newSessionIds.length > 0 || out.sessionsTouched > 0) this.scheduleMining();
      if (b.rescanAll || out.filesRead > 50) this.scheduleCompact();
    } catch (err) {
      if (this.abort.signal.aborted) return;
      this.lastHarvestError = errorMessage(err);
      this.log.error({ err: this.lastHarvestError }, 'harvest failed');
    } finally {
      this.harvesting = false;
      this.writeHealth();
    }
  }

  /** Mining re-clusters intents: batch it a little after the last new material. */
  private scheduleMining(): void {
    if (this.mineTimer) clearTimeout(this.mineTimer);
    this.mineTimer = setTimeout(() => {
      this.mineTimer = undefined;
      if (this.abort.signal.aborted || this.nights.running) return;
      this.mining = true;
      this.o.deps
        .mine(this.db, this.o.config, { signal: this.abort.signal })
        .then(
          async () => {
            this.log.debug('mined new sessions');
            await this.pushToTeam();
          },
          (err: unknown) => {
            if (!this.abort.signal.aborted) this.log.error({ err: errorMessage(err) }, 'mining failed');
          },
        )
        .finally(() => {
          this.mining = false;
          this.scheduleCompact();
          if (!this.abort.signal.aborted) this.writeHealth();
        });
    }, this.o.mineDelayMs ?? 15_000);
  }

  /** Team mode: what mining produced for the opted-in repositories goes to the team's server (a failure is retried at the next pass). */
  private async pushToTeam(): Promise<void> {
    if (!this.o.deps.teamPush || this.abort.signal.aborted) return;
    try {
      for (const r of await this.o.deps.teamPush(this.db, this.o.config)) {
        if (r.ok) this.log.info({ team: r.line }, 'pushed to the team server');
        else this.log.warn({ team: r.line }, 'team push failed');
      }
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'team push failed');
    }
  }

  /** After a burst (startup harvest, mining) give the memory back instead of keeping a grown heap. */
  private scheduleCompact(): void {
    if (!this.o.compact || this.compactTimer) return;
    this.compactTimer = setTimeout(() => {
      this.compactTimer = undefined;
      if (this.harvesting || this.mining || this.queue.busy) return this.scheduleCompact();
      this.o.compact?.();
    }, 3000);
  }

  async runNight(trigger: NightTrigger): Promise<NightOutcome> {
    const prev = this.state;
    if (!this.nights.running) this.state = 'night';
    this.writeHealth();
    const outcome = await this.nights.run(trigger, this.abort.signal);
    if (this.state === 'night') this.state = prev === 'night' ? 'running' : prev;
    // a skipped request while a night runs must not overwrite that night's record
    if (!(outcome.status === 'skipped' && this.nights.running)) health.writeLastNight(this.db, outcome);
    this.writeHealth();
    // a night stages proposals (and autoApply applies them): keep a copy of the store with them in it
    if (outcome.status === 'done') await this.backupDb('after a night');
    return outcome;
  }

  /**
   * An online backup of the store (store/backup.ts), the newest `backups.keep` kept. A failed
   * backup is logged and retried on the next heartbeat's daily check; it never stops the daemon.
   */
  async backupDb(why: string): Promise<void> {
    if (this.backingUp || this.abort.signal.aborted) return;
    this.backingUp = true;
    try {
      const file = await backupDatabase(this.db, dbBackupDir(this.o.paths.stateDir), this.o.config.backups.keep);
      this.log.info({ file }, `database backed up (${why})`);
    } catch (err) {
      this.log.error({ err: errorMessage(err) }, `database backup failed (${why}); \`skillopt-sleep doctor\` checks the state folder`);
    } finally {
      this.backingUp = false;
    }
  }

  private backupDue(now: number): boolean {
    const newest = listDbBackups(dbBackupDir(this.o.paths.stateDir))[0];
    if (!newest) return true;
    try {
      return now - fs.statSync(newest.file).mtimeMs >= BACKUP_EVERY_MS;
    } catch {
      return true;
    }
  }

  private maybeCatchUp(why: 'start' | 'wake'): void {
    if (this.abort.signal.aborted || this.nights.running) return;
    const { config } = this.o;
    const now = Date.now();
    const lastNightAt = health.lastNightEndedAt(this.db);
    const firstStart = health.firstStartAt(this.db, now);
    const anchor = lastNightAt ?? firstStart;
    const d = decideCatchUp({
      now,
      enabled: config.schedule.catchUp,
      lastNightAt,
      firstStartAt: firstStart,
      lastMaterialAt: health.lastMaterialAt(this.db),
      nextSlotAfterAnchor: nextRunAfter(config.schedule.cron, config.schedule.timezone, new Date(anchor)).getTime(),
    });
    this.log.info({ at: why, run: d.run }, `catch-up check: ${d.reason}`);
    if (d.run) void this.runNight('catch-up');
  }

  private heartbeat(interval: number): void {
    const now = Date.now();
    const wake = detectWake(this.lastBeatWall, now, interval);
    this.lastBeatWall = now;
    if (!heartbeatLease(this.db, this.holder, { startTime: this.startTime, socket: this.socket, version: this.o.version })) {
      this.log.error('lost the daemon lease to another process; stopping');
      void this.stop('lease lost');
      return;
    }
    // An upgrade while this daemon runs: the new version's first command migrates the store past
    // what this code understands, and every pass here would then fail. Stop cleanly and say why.
    const schema = schemaVersion(this.db);
    if (schema > LATEST_VERSION) {
      this.log.error({ schema, understands: LATEST_VERSION }, 'the store was upgraded by a newer skillopt-sleep; stopping');
      void this.stop(`the store was upgraded to schema v${schema} by a newer skillopt-sleep; \`skillopt-sleep start\` runs the new version`);
      return;
    }
    this.writeHealth();
    if (!this.nights.running && this.backupDue(now)) void this.backupDb('daily');
    if (wake.woke) {
      this.log.info({ sleptMs: wake.sleptMs }, 'woke from sleep');
      this.queue.requestRescan();
      void this.queue.idle().then(() => this.maybeCatchUp('wake'));
    }
  }

  liveHealth(): health.DaemonHealth {
    const mem = process.memoryUsage();
    return {
      pid: process.pid,
      state: this.state,
      startedAt: this.startedAt,
      heartbeatAt: Date.now(),
      version: this.o.version,
      roots: (this.watcher?.status() ?? []).map((r) => ({ ...r, sessions: r.exists ? health.sessionsUnder(this.db, r.path) : 0 })),
      ...this.counters,
      queueDepth: this.queue?.depth ?? 0,
      harvesting: this.harvesting,
      mining: this.mining,
      lastHarvestAt: this.lastHarvestAt,
      lastHarvestError: this.lastHarvestError,
      watcherError: this.watcher?.lastError,
      backend: this.backend,
      nextNightAt: this.nextNightAt(),
      nightPid: this.nights?.childPid,
      rssBytes: mem.rss,
      heapUsedBytes: mem.heapUsed,
      heapTotalBytes: mem.heapTotal,
      externalBytes: mem.external,
    };
  }

  private writeHealth(): void {
    try {
      health.writeHealth(this.db, this.liveHealth());
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'could not write the heartbeat');
    }
    // a night stages from its own process: the nudge file catches up here, within a heartbeat
    refreshNudgeFile(this.db, this.o.paths.database);
  }

  private async onIpc(req: IpcRequest, reply: (m: IpcReply) => void): Promise<void> {
    switch (req.op) {
      case 'ping':
        return reply({ ok: true, done: true, pid: process.pid });
      case 'status':
        return reply({ ok: true, done: true, health: this.liveHealth() });
      case 'night': {
        if (this.stopping) return reply({ ok: false, done: true, accepted: false, reason: 'the daemon is stopping' });
        if (this.nights.running) return reply({ ok: true, done: true, accepted: false, reason: 'a night is already running' });
        const why = await this.nights.preflight();
        if (why) {
          const t = Date.now();
          health.writeLastNight(this.db, { trigger: 'manual', status: 'skipped', reason: why, startedAt: t, endedAt: t, exitCode: null, signal: null });
          return reply({ ok: true, done: true, accepted: false, reason: why });
        }
        const p = this.runNight('manual');
        const wait = req.wait !== false;
        reply({ ok: true, accepted: true, reason: 'night started', done: !wait });
        if (wait) {
          const outcome = await p;
          reply({ ok: outcome.status !== 'failed', done: true, outcome });
        }
        return;
      }
      default:
        return reply({ ok: false, done: true, error: 'unknown op' });
    }
  }

  /** Aborts in-flight work, checkpoints, releases the lease. Idempotent. */
  stop(reason: string): Promise<void> {
    if (!this.stopping) this.stopping = this.doStop(reason).finally(() => this.resolveStopped());
    return this.stopping;
  }

  private async doStop(reason: string): Promise<void> {
    this.log.info({ reason }, 'daemon stopping');
    this.state = 'stopping';
    this.abort.abort(new Error(reason));
    if (this.beat) clearInterval(this.beat);
    if (this.mineTimer) clearTimeout(this.mineTimer);
    if (this.compactTimer) clearTimeout(this.compactTimer);
    await this.cronTask?.destroy();
    const closeIpc = new Promise<void>((r) => (this.ipc ? this.ipc.close(() => r()) : r()));
    await Promise.allSettled([this.queue?.close(), this.watcher?.close(), this.nights?.settle(), closeIpc]);
    try {
      const h = this.liveHealth();
      health.writeHealth(this.db, { ...h, state: 'stopped', stoppedAt: Date.now(), stopReason: reason, queueDepth: 0 });
      checkpointWal(this.db);
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'checkpoint at stop failed');
    }
    releaseDaemonLease(this.db, this.holder);
    removePidFile(this.o.paths.pidFile, process.pid);
    this.db.close();
    this.log.info({ reason }, 'daemon stopped');
  }
}
