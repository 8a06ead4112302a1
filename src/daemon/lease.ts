/**
 * Single instance: the `daemon` lease in the store, cross-checked against the process table.
 * The store lease alone cannot tell a crashed daemon from a live one whose pid was reused, so the
 * lease info carries the holder's process start time (the pid file records the same).
 */
import os from 'node:os';
import type { Db } from '../store/db.js';
import { acquireLease, getLease, releaseLease, renewLease, type Lease } from '../store/repos/leases.js';
import { SleepError } from '../core/errors.js';
import { recordLiveness, systemProbe, type ProcessProbe } from './pidfile.js';

export const DAEMON_LEASE = 'daemon';
/** Heartbeat every 30 s; a lease survives three missed beats (a busy event loop, a slow disk). */
export const LEASE_TTL_MS = 120_000;
export const HEARTBEAT_MS = 30_000;

export type LeaseState =
  | { kind: 'free' }
  | { kind: 'live'; lease: Lease } // a daemon is running
  | { kind: 'stale'; lease: Lease; why: 'dead' | 'reused' | 'expired' };

/** Pure decision: what does an existing lease mean right now on this host? */
export function classifyLease(lease: Lease | undefined, now: number, host: string, probe: ProcessProbe): LeaseState {
  if (!lease) return { kind: 'free' };
  if (lease.host === host) {
    const startTime = typeof lease.info.startTime === 'string' ? lease.info.startTime : null;
    const l = recordLiveness({ pid: lease.pid, startTime }, probe);
    // Same host: the process table is the truth, whatever the expiry says (a laptop that slept
    // for hours has an expired lease and a perfectly healthy daemon).
    if (l === 'live') return { kind: 'live', lease };
    return { kind: 'stale', lease, why: l };
  }
  // Another host (a shared home directory): only expiry can tell.
  return lease.expiresAt > now ? { kind: 'live', lease } : { kind: 'stale', lease, why: 'expired' };
}

export interface AcquireResult {
  lease: Lease;
  /** the crashed daemon's lease we took over, if any */
  tookOver?: { pid: number; why: string };
}

/**
 * Takes the daemon lease or throws LEASE_HELD. A stale lease (dead holder, reused pid, expired on
 * another host) is removed first — holder-scoped, so two racing starts cannot both win.
 */
export function acquireDaemonLease(
  db: Db,
  holder: string,
  info: Record<string, unknown>,
  opts: { now?: number; probe?: ProcessProbe; host?: string } = {},
): AcquireResult {
  const now = opts.now ?? Date.now();
  const state = classifyLease(getLease(db, DAEMON_LEASE), now, opts.host ?? os.hostname(), opts.probe ?? systemProbe);
  if (state.kind === 'live' && state.lease.holder !== holder) {
    throw new SleepError('LEASE_HELD', `the daemon is already running (pid ${state.lease.pid} on ${state.lease.host})`, {
      hint: '`skillopt-sleep status` shows it; `skillopt-sleep stop` stops it',
      details: { lease: state.lease },
    });
  }
  let tookOver: AcquireResult['tookOver'];
  if (state.kind === 'stale') {
    releaseLease(db, DAEMON_LEASE, state.lease.holder);
    tookOver = { pid: state.lease.pid, why: state.why };
  }
  const lease = acquireLease(db, DAEMON_LEASE, holder, LEASE_TTL_MS, info, now);
  return { lease, tookOver };
}

/** Renews the lease; false means another process took it (we must stop). */
export function heartbeatLease(db: Db, holder: string, info?: Record<string, unknown>, now = Date.now()): boolean {
  return renewLease(db, DAEMON_LEASE, holder, LEASE_TTL_MS, info, now);
}

export function releaseDaemonLease(db: Db, holder: string): void {
  releaseLease(db, DAEMON_LEASE, holder);
}

export function daemonLeaseState(db: Db, probe: ProcessProbe = systemProbe, now = Date.now()): LeaseState {
  return classifyLease(getLease(db, DAEMON_LEASE), now, os.hostname(), probe);
}
