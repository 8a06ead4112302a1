/**
 * The daemon's pid file. It records the pid AND the process start time, because a pid alone lies
 * after a crash: the OS may hand the same number to an unrelated process. A record is "live" only
 * when a process with that pid exists and started at the recorded time.
 */
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { writeFileAtomic } from '../core/fsutil.js';

export interface PidRecord {
  pid: number;
  /** Opaque start-time token of the process (Linux: /proc starttime ticks; macOS: ps lstart); null when unknown. */
  startTime: string | null;
  startedAt: number;
  /** IPC endpoint (unix socket path or Windows pipe name). */
  socket: string;
  host: string;
  version: string;
}

/**
 * Start-time token of a process, or null if it does not exist or the platform gives no way to
 * read it. Cheap on Linux (one small /proc read); macOS shells out to `ps` (only used by
 * start/stop/status, never in the daemon's idle path).
 */
export function processStartTime(pid: number, platform: NodeJS.Platform = process.platform): string | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (platform === 'linux') {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return parseProcStatStartTime(stat);
    } catch {
      return null;
    }
  }
  if (platform === 'darwin' || platform === 'freebsd' || platform === 'openbsd') {
    const res = spawnSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000 });
    const out = res.status === 0 ? res.stdout.trim() : '';
    return out === '' ? null : out;
  }
  return null;
}

/** Field 22 of /proc/<pid>/stat; the command name (field 2) may contain spaces and parentheses. */
export function parseProcStatStartTime(stat: string): string | null {
  const close = stat.lastIndexOf(')');
  if (close < 0) return null;
  const fields = stat.slice(close + 2).split(' ');
  // fields[0] is field 3 (state), so field 22 is fields[19]
  const v = fields[19];
  return v && /^\d+$/.test(v) ? v : null;
}

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: exists but belongs to someone else
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // An exited daemon whose parent has not reaped it yet is a zombie: gone for our purposes.
  if (process.platform === 'linux') {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return parseProcStatState(stat) !== 'Z';
    } catch {
      return false;
    }
  }
  return true;
}

/** Field 3 of /proc/<pid>/stat (R, S, D, Z, ...). */
export function parseProcStatState(stat: string): string | null {
  const close = stat.lastIndexOf(')');
  return close < 0 ? null : (stat[close + 2] ?? null);
}

export interface ProcessProbe {
  alive(pid: number): boolean;
  startTime(pid: number): string | null;
}

export const systemProbe: ProcessProbe = { alive: pidAlive, startTime: (pid) => processStartTime(pid) };

export type Liveness = 'live' | 'dead' | 'reused';

/**
 * Is the process a record describes still the same process? `reused` = the pid exists but started
 * at another time (PID reuse after a crash). When either start time is unknown we trust the pid.
 */
export function recordLiveness(rec: { pid: number; startTime: string | null }, probe: ProcessProbe = systemProbe): Liveness {
  if (!probe.alive(rec.pid)) return 'dead';
  if (rec.startTime === null) return 'live';
  const now = probe.startTime(rec.pid);
  if (now === null) return probe.alive(rec.pid) ? 'live' : 'dead';
  return now === rec.startTime ? 'live' : 'reused';
}

export function readPidFile(file: string): PidRecord | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<PidRecord> | number;
    // a bare number (hand-written or another tool's format) still names a pid
    const v: Partial<PidRecord> = typeof parsed === 'number' ? { pid: parsed } : (parsed ?? {});
    if (typeof v.pid !== 'number' || !Number.isInteger(v.pid) || v.pid <= 0) return undefined;
    return {
      pid: v.pid,
      startTime: typeof v.startTime === 'string' ? v.startTime : null,
      startedAt: typeof v.startedAt === 'number' ? v.startedAt : 0,
      socket: typeof v.socket === 'string' ? v.socket : '',
      host: typeof v.host === 'string' ? v.host : '',
      version: typeof v.version === 'string' ? v.version : '',
    };
  } catch {
    return undefined;
  }
}

export function writePidFile(file: string, rec: PidRecord): void {
  writeFileAtomic(file, JSON.stringify(rec) + '\n', { mode: 0o600 });
}

/** Removes the pid file only if it still names `pid` (a newer daemon may have replaced it). */
export function removePidFile(file: string, pid: number): void {
  const cur = readPidFile(file);
  if (cur && cur.pid !== pid) return;
  fs.rmSync(file, { force: true });
}
