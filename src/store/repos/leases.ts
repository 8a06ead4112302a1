import os from 'node:os';
import type { Db } from '../db.js';
import { SleepError } from '../../core/errors.js';

export interface Lease {
  name: string;
  holder: string;
  pid: number;
  host: string;
  acquiredAt: number;
  heartbeatAt: number;
  expiresAt: number;
  info: Record<string, unknown>;
}

interface LeaseRow {
  name: string;
  holder: string;
  pid: number;
  host: string;
  acquired_at: number;
  heartbeat_at: number;
  expires_at: number;
  info: string;
}

const toLease = (r: LeaseRow): Lease => ({
  name: r.name,
  holder: r.holder,
  pid: r.pid,
  host: r.host,
  acquiredAt: r.acquired_at,
  heartbeatAt: r.heartbeat_at,
  expiresAt: r.expires_at,
  info: JSON.parse(r.info) as Record<string, unknown>,
});

export function getLease(db: Db, name: string): Lease | undefined {
  const row = db.prepare('SELECT * FROM leases WHERE name = ?').get(name) as LeaseRow | undefined;
  return row ? toLease(row) : undefined;
}

/** True if the process that holds a lease on this host is gone (so the lease can be taken over). */
export function holderIsDead(lease: Lease): boolean {
  if (lease.host !== os.hostname()) return false;
  try {
    process.kill(lease.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Acquires a named lease atomically. Succeeds if free, expired, held by a dead process on this
 * host, or already ours. Otherwise throws LEASE_HELD naming the holder.
 */
export function acquireLease(
  db: Db,
  name: string,
  holder: string,
  ttlMs: number,
  info: Record<string, unknown> = {},
  now = Date.now(),
): Lease {
  const tx = db.transaction(() => {
    const cur = getLease(db, name);
    if (cur && cur.holder !== holder && cur.expiresAt > now && !holderIsDead(cur)) {
      throw new SleepError('LEASE_HELD', `${name} is already running (pid ${cur.pid} on ${cur.host}, since ${new Date(cur.acquiredAt).toISOString()})`, {
        hint: name === 'daemon' ? '`skillopt-sleep status` shows it; `skillopt-sleep stop` stops it' : 'wait for it to finish, or stop it first',
        details: { lease: cur },
      });
    }
    db.prepare(
      `INSERT INTO leases(name, holder, pid, host, acquired_at, heartbeat_at, expires_at, info)
       VALUES (@name, @holder, @pid, @host, @now, @now, @expires, @info)
       ON CONFLICT(name) DO UPDATE SET holder=@holder, pid=@pid, host=@host, acquired_at=@now, heartbeat_at=@now, expires_at=@expires, info=@info`,
    ).run({ name, holder, pid: process.pid, host: os.hostname(), now, expires: now + ttlMs, info: JSON.stringify(info) });
  });
  tx.immediate();
  return getLease(db, name)!;
}

export function renewLease(db: Db, name: string, holder: string, ttlMs: number, info?: Record<string, unknown>, now = Date.now()): boolean {
  const res = info
    ? db
        .prepare('UPDATE leases SET heartbeat_at = ?, expires_at = ?, info = ? WHERE name = ? AND holder = ?')
        .run(now, now + ttlMs, JSON.stringify(info), name, holder)
    : db.prepare('UPDATE leases SET heartbeat_at = ?, expires_at = ? WHERE name = ? AND holder = ?').run(now, now + ttlMs, name, holder);
  return res.changes === 1;
}

export function releaseLease(db: Db, name: string, holder: string): void {
  db.prepare('DELETE FROM leases WHERE name = ? AND holder = ?').run(name, holder);
}
