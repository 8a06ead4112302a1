/**
 * Process lifecycle around the Daemon: run in the foreground (systemd, launchd, containers),
 * start detached and report, stop by signal, and read status whether it runs or not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Config } from '../core/config.js';
import type { SleepPaths } from '../core/paths.js';
import { errorMessage, isSleepError, SleepError } from '../core/errors.js';
import { ensurePrivateDir } from '../core/fsutil.js';
import type { Db } from '../store/db.js';
import type { DaemonDeps } from './deps.js';
import { ipcRequest } from './ipc.js';
import { pidAlive, readPidFile, recordLiveness, removePidFile, type PidRecord } from './pidfile.js';
import { daemonLeaseState, releaseDaemonLease } from './lease.js';
import * as health from './health.js';
import { nextRunAfter } from './timing.js';

/**
 * V8 flags for the resident process: a small young generation (the default grows to ~48 MB and
 * stays there) and an explicit GC after bursts of work keep an idle daemon near 60-80 MB.
 */
/** `start --foreground` when another daemon holds the lease: a distinct code a supervisor does not retry (schedule-install.ts). */
export const EXIT_ALREADY_RUNNING = 3;

export const DAEMON_NODE_FLAGS = ['--max-semi-space-size=1', '--expose-gc'];

/** dist/src/daemon/lifecycle.js → dist/src/daemon/main.js (the lean daemon entry) */
export function daemonEntryPath(): string {
  return fileURLToPath(new URL('./main.js', import.meta.url));
}

/** argv that runs the daemon in the foreground (used by `start` and the service files). */
export function foregroundArgv(): string[] {
  return [process.execPath, ...DAEMON_NODE_FLAGS, daemonEntryPath()];
}

/** dist/src/daemon/lifecycle.js → dist/src/cli/main.js */
export function cliPath(): string {
  return fileURLToPath(new URL('../cli/main.js', import.meta.url));
}

export interface ForegroundOptions {
  paths: SleepPaths;
  config: Config;
  env: NodeJS.ProcessEnv;
  version: string;
  print(line: string): void;
  deps?: DaemonDeps;
  /** override for tests/bench */
  debounceMs?: number;
  mineDelayMs?: number;
}

/** Runs the daemon in this process until SIGTERM/SIGINT. Returns the exit code. */
export async function runForeground(o: ForegroundOptions): Promise<number> {
  // the daemon, its watcher and logger load here: `status`, `stop` and `start` (which spawns this
  // in another process) use the rest of this module and must start fast (issue 40)
  const [{ createDaemonLogger }, { Daemon }, { loadDefaultDeps }] = await Promise.all([import('./log-writer.js'), import('./daemon.js'), import('./deps-default.js')]);
  const { logger, flush } = await createDaemonLogger({
    logsDir: o.paths.logsDir,
    name: 'daemon',
    level: o.config.log.level,
    maxSizeMb: o.config.log.maxSizeMb,
    keep: o.config.log.keep,
  });
  const gc = (globalThis as { gc?: () => void }).gc;
  const daemon = new Daemon({
    paths: o.paths,
    config: o.config,
    env: o.env,
    deps: o.deps ?? (await loadDefaultDeps()),
    logger,
    nightCommand: [process.execPath, cliPath(), 'night', '--json'],
    version: o.version,
    debounceMs: o.debounceMs ?? envInt(o.env.SKILLOPT_SLEEP_DAEMON_DEBOUNCE_MS),
    mineDelayMs: o.mineDelayMs ?? envInt(o.env.SKILLOPT_SLEEP_DAEMON_MINE_DELAY_MS),
    compact: gc ? () => gc() : undefined,
  });
  try {
    await daemon.start();
  } catch (err) {
    if (isSleepError(err) && err.code === 'LEASE_HELD') {
      // not this process's daemon: a non-zero exit so scripts see it, a code the systemd unit does not retry
      const other = liveDaemon(o.paths);
      process.stderr.write(`error: skillopt-sleep is already running${other ? ` (pid ${other.pid})` : ''}: ${err.message}\nhint: \`skillopt-sleep status\` shows it; \`skillopt-sleep stop\` stops it\n`);
      flush();
      return EXIT_ALREADY_RUNNING;
    }
    logger.error({ err: errorMessage(err) }, 'daemon failed to start');
    flush();
    throw err;
  }
  for (const line of describeHealth(daemon.liveHealth(), o.paths)) o.print(line);

  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      logger.warn({ sig }, 'second signal: exiting now');
      flush();
      process.exit(130);
    }
    // the spec: everything stopped within 10 s, whatever hangs
    setTimeout(() => {
      logger.error('shutdown took longer than 9.5 s; exiting');
      flush();
      process.exit(1);
    }, 9500).unref();
    void daemon.stop(`signal ${sig}`);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', () => logger.info('SIGHUP ignored (the daemon outlives its terminal)'));
  process.on('uncaughtException', (err) => {
    logger.fatal({ err: errorMessage(err), stack: err.stack }, 'uncaught exception; stopping');
    void daemon.stop('crash').finally(() => process.exit(1));
  });
  await daemon.stopped;
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  flush();
  return 0;
}

function envInt(v: string | undefined): number | undefined {
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** The live daemon's pid record, or undefined. */
export function liveDaemon(paths: SleepPaths): PidRecord | undefined {
  const rec = readPidFile(paths.pidFile);
  return rec && recordLiveness(rec) === 'live' ? rec : undefined;
}

export async function fetchLiveHealth(rec: PidRecord, timeoutMs = 3000): Promise<health.DaemonHealth | undefined> {
  if (!rec.socket) return undefined;
  try {
    const reply = await ipcRequest(rec.socket, { op: 'status' }, { timeoutMs });
    return reply.health as health.DaemonHealth | undefined;
  } catch {
    return undefined;
  }
}

export interface StartResult {
  already: boolean;
  pid: number;
  health?: health.DaemonHealth;
}

/** Starts the daemon detached (its own session, output to logs/daemon.out) and waits until it answers. */
export async function startDetached(paths: SleepPaths, env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<StartResult> {
  const running = liveDaemon(paths);
  if (running) return { already: true, pid: running.pid, health: await fetchLiveHealth(running) };
  ensurePrivateDir(paths.logsDir);
  const outFile = path.join(paths.logsDir, 'daemon.out');
  const out = fs.openSync(outFile, 'a', 0o600);
  const outStart = fs.fstatSync(out).size;
  const [exe, ...args] = foregroundArgv();
  const child = spawn(exe, args, {
    detached: true,
    stdio: ['ignore', out, out],
    env,
    cwd: ensureDir(paths.stateDir), // never keep a user's directory busy
    windowsHide: true,
  });
  fs.closeSync(out);
  let exited: number | null = null;
  child.on('exit', (code) => (exited = code ?? 1));
  child.unref();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    const rec = liveDaemon(paths);
    if (rec) {
      const h = await fetchLiveHealth(rec, 2000);
      if (h && h.state !== 'starting') return { already: rec.pid !== child.pid, pid: rec.pid, health: h };
    }
    if (exited !== null) {
      const other = liveDaemon(paths);
      if (other) return { already: true, pid: other.pid, health: await fetchLiveHealth(other) };
      const tail = readTail(outFile, outStart);
      throw new SleepError('INTERNAL', `the daemon exited at start (code ${exited})${tail ? `: ${tail}` : ''}`, {
        hint: `\`skillopt-sleep start --foreground\` shows the error directly; logs: ${paths.logsDir}`,
      });
    }
  }
  throw new SleepError('INTERNAL', `the daemon (pid ${child.pid}) did not answer within ${Math.round(timeoutMs / 1000)} s`, {
    hint: '`skillopt-sleep logs` shows what it is doing; `skillopt-sleep status` checks again',
  });
}

function ensureDir(d: string): string {
  ensurePrivateDir(d);
  return d;
}

function readTail(file: string, from: number): string {
  try {
    const text = fs.readFileSync(file, 'utf8').slice(from);
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    return lines.filter((l) => /^error:/.test(l)).pop() ?? lines.pop() ?? '';
  } catch {
    return '';
  }
}

export interface StopResult {
  wasRunning: boolean;
  pid?: number;
  forced: boolean;
  /** a crashed daemon's leftovers removed */
  cleanedStale: boolean;
  stillRunning: boolean;
}

/**
 * After the daemon stopped at a user's request: its last health record says who stopped it (and, for
 * a `restart` that could not start it again, why), so `status` can tell the user why it is not running.
 */
export function noteStopReason(db: Db, reason: string): void {
  const h = health.readHealth(db);
  if (h) health.writeHealth(db, { ...h, state: 'stopped', stoppedAt: h.stoppedAt ?? Date.now(), stopReason: reason });
}

/**
 * SIGTERM, wait for the exit (the daemon promises ≤ 10 s), SIGKILL only with `force`.
 * `by`: who asked (e.g. "`skillopt-sleep stop`"), recorded as the stop reason `status` shows.
 */
export async function stopDaemon(paths: SleepPaths, db: Db, opts: { timeoutMs?: number; force?: boolean; by?: string } = {}): Promise<StopResult> {
  const rec = liveDaemon(paths);
  const lease = daemonLeaseState(db);
  const pid = rec?.pid ?? (lease.kind === 'live' ? lease.lease.pid : undefined);
  if (pid === undefined) {
    let cleanedStale = false;
    if (lease.kind === 'stale') {
      releaseDaemonLease(db, lease.lease.holder);
      cleanedStale = true;
    }
    const stale = readPidFile(paths.pidFile);
    if (stale) {
      removePidFile(paths.pidFile, stale.pid);
      cleanedStale = true;
    }
    return { wasRunning: false, forced: false, cleanedStale, stillRunning: false };
  }
  const startTime = rec?.startTime ?? null;
  // gone = the process itself has exited (it releases its lease and pid file ~1 s before it does)
  const gone = () => recordLiveness({ pid, startTime }) !== 'live' && !pidAlive(pid);
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  while (!gone() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  let forced = false;
  if (!gone() && opts.force) {
    process.kill(pid, 'SIGKILL');
    forced = true;
    const d2 = Date.now() + 3000;
    while (pidAlive(pid) && Date.now() < d2) await new Promise((r) => setTimeout(r, 50));
  }
  const stillRunning = !gone();
  if (!stillRunning && forced) {
    // it could not clean up after itself
    const l = daemonLeaseState(db);
    if (l.kind === 'stale') releaseDaemonLease(db, l.lease.holder);
    removePidFile(paths.pidFile, pid);
  }
  if (!stillRunning && opts.by) noteStopReason(db, `stopped by ${opts.by}${forced ? ' (killed: it did not stop in time)' : ''}`);
  return { wasRunning: true, pid, forced, cleanedStale: false, stillRunning };
}

export interface StatusReport {
  running: boolean;
  state: health.DaemonState | 'not started' | 'crashed';
  pid?: number;
  uptimeMs?: number;
  health?: health.DaemonHealth;
  lastNight?: health.LastNightSummary;
  stagedProposals: number;
  nextNightAt?: number;
  schedule: { cron: string; timezone: string | null; catchUp: boolean };
  dataDir: string;
  logsDir: string;
}

/** `db` undefined: no store yet (nothing harvested, no daemon ever started), so nothing stored to read. */
export async function collectStatus(paths: SleepPaths, db: Db | undefined, config: Config): Promise<StatusReport> {
  const rec = liveDaemon(paths);
  const stored = db && health.readHealth(db);
  const live = rec ? ((await fetchLiveHealth(rec)) ?? stored) : undefined;
  let state: StatusReport['state'];
  if (rec) state = live?.state ?? 'running';
  else if (!stored) state = 'not started';
  else if (stored.state === 'stopped') state = 'stopped';
  else state = 'crashed'; // it said it was running and never said goodbye
  let nextNightAt: number | undefined;
  try {
    nextNightAt = nextRunAfter(config.schedule.cron, config.schedule.timezone, new Date()).getTime();
  } catch {
    nextNightAt = undefined;
  }
  return {
    running: !!rec,
    state,
    pid: rec?.pid,
    uptimeMs: rec ? Date.now() - rec.startedAt : undefined,
    health: live ?? stored,
    lastNight: db && health.lastNightSummary(db),
    stagedProposals: db ? health.stagedProposalCount(db) : 0,
    nextNightAt,
    schedule: { cron: config.schedule.cron, timezone: config.schedule.timezone ?? null, catchUp: config.schedule.catchUp },
    dataDir: paths.stateDir,
    logsDir: paths.logsDir,
  };
}

const fmtTime = (t: number) => {
  const d = new Date(t);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

export function fmtDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86400)}d${Math.floor((s % 86400) / 3600)}h`;
}

export { fmtTime };

/**
 * A watched folder's sessions in the store. None is "none harvested yet", not "0 sessions": the
 * folder may hold transcripts the daemon has not read (a first start, or after `wipe`).
 */
export function sessionsLabel(n: number): string {
  return n === 0 ? 'no sessions harvested yet' : n === 1 ? '1 session' : `${n} sessions`;
}

/** The lines `start` prints: roots, backend, next night, where data lives. */
export function describeHealth(h: health.DaemonHealth, paths: SleepPaths): string[] {
  const lines: string[] = [];
  const byAgent = new Map<string, health.RootHealth[]>();
  for (const r of h.roots) byAgent.set(r.agent, [...(byAgent.get(r.agent) ?? []), r]);
  lines.push('watching:');
  if (h.roots.length === 0) lines.push('  (no agent is enabled in the config)');
  for (const [agent, roots] of byAgent) {
    const present = roots.filter((r) => r.exists);
    if (present.length === 0) {
      lines.push(`  ${agent.padEnd(12)} none yet; watching for it (${roots.length} folder${roots.length === 1 ? '' : 's'})`);
      continue;
    }
    for (const r of present) lines.push(`  ${agent.padEnd(12)} ${r.path}  (${sessionsLabel(r.sessions)})`);
  }
  lines.push(
    h.backend.name
      ? `backend:  ${h.backend.detail || h.backend.name}`
      : `backend:  none found (${h.backend.detail}); nights are skipped until one is available — see \`skillopt-sleep doctor\``,
  );
  if (h.nextNightAt) lines.push(`next night: ${fmtTime(h.nextNightAt)}`);
  lines.push(`data:     ${paths.stateDir}`);
  lines.push(`logs:     ${paths.logsDir}  (\`skillopt-sleep logs -f\`)`);
  return lines;
}
