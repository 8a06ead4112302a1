import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { getLease } from '../../src/store/repos/leases.js';
import {
  parseProcStatStartTime,
  parseProcStatState,
  processStartTime,
  readPidFile,
  recordLiveness,
  removePidFile,
  writePidFile,
  type ProcessProbe,
} from '../../src/daemon/pidfile.js';
import { acquireDaemonLease, classifyLease, DAEMON_LEASE, heartbeatLease, releaseDaemonLease } from '../../src/daemon/lease.js';
import { makeTempDir } from '../helpers/sandbox.js';

const probe = (procs: Record<number, string>): ProcessProbe => ({
  alive: (pid) => pid in procs,
  startTime: (pid) => procs[pid] ?? null,
});

describe('pid file and process start time', () => {
  it('parses start time and state from /proc/<pid>/stat even when the command name has spaces and parens', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    fields[0] = 'S';
    fields[19] = '987654';
    const stat = `1234 (node (my) daemon) ${fields.join(' ')}`;
    expect(parseProcStatStartTime(stat)).toBe('987654');
    expect(parseProcStatState(stat)).toBe('S');
  });

  it.runIf(process.platform === 'linux')('reads a real start time for this process and none for a missing pid', () => {
    const t = processStartTime(process.pid);
    expect(t).toMatch(/^\d+$/);
    expect(processStartTime(process.pid)).toBe(t);
    expect(processStartTime(2 ** 22 + 17)).toBeNull();
  });

  it('detects PID reuse: same pid, different start time', () => {
    expect(recordLiveness({ pid: 10, startTime: '100' }, probe({ 10: '100' }))).toBe('live');
    expect(recordLiveness({ pid: 10, startTime: '100' }, probe({ 10: '555' }))).toBe('reused');
    expect(recordLiveness({ pid: 10, startTime: '100' }, probe({}))).toBe('dead');
    // unknown start time: trust the pid
    expect(recordLiveness({ pid: 10, startTime: null }, probe({ 10: '555' }))).toBe('live');
  });

  it('writes, reads and removes the pid file only when it still names us', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'daemon.pid');
    writePidFile(file, { pid: 42, startTime: '7', startedAt: 1, socket: '/s', host: 'h', version: '1' });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(readPidFile(file)).toMatchObject({ pid: 42, startTime: '7', socket: '/s' });
    removePidFile(file, 43);
    expect(fs.existsSync(file)).toBe(true);
    removePidFile(file, 42);
    expect(fs.existsSync(file)).toBe(false);
    fs.writeFileSync(file, '  99\n');
    expect(readPidFile(file)).toMatchObject({ pid: 99, startTime: null });
    fs.writeFileSync(file, 'garbage');
    expect(readPidFile(file)).toBeUndefined();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('daemon lease', () => {
  let db: Db;
  afterEach(() => db?.close());
  const host = os.hostname();

  it('classifies a lease by the process table on this host, by expiry on another', () => {
    const base = { name: 'daemon', holder: 'a', host, acquiredAt: 0, heartbeatAt: 0, expiresAt: 1000, info: { startTime: '5' } };
    expect(classifyLease(undefined, 0, host, probe({}))).toEqual({ kind: 'free' });
    expect(classifyLease({ ...base, pid: 7 }, 0, host, probe({ 7: '5' })).kind).toBe('live');
    // expired but alive on this host (a laptop that slept): still live
    expect(classifyLease({ ...base, pid: 7 }, 5000, host, probe({ 7: '5' })).kind).toBe('live');
    expect(classifyLease({ ...base, pid: 7 }, 0, host, probe({ 7: '6' }))).toMatchObject({ kind: 'stale', why: 'reused' });
    expect(classifyLease({ ...base, pid: 7 }, 0, host, probe({}))).toMatchObject({ kind: 'stale', why: 'dead' });
    expect(classifyLease({ ...base, pid: 7, host: 'other' }, 0, host, probe({})).kind).toBe('live');
    expect(classifyLease({ ...base, pid: 7, host: 'other' }, 2000, host, probe({}))).toMatchObject({ kind: 'stale', why: 'expired' });
  });

  it('acquires a free lease, refuses a live one, takes over a reused pid, and releases', () => {
    db = openDb(':memory:');
    const me = process.pid;
    const first = acquireDaemonLease(db, 'holder-1', { startTime: 'T1' }, { probe: probe({ [me]: 'T1' }) });
    expect(first.tookOver).toBeUndefined();
    expect(getLease(db, DAEMON_LEASE)?.holder).toBe('holder-1');

    // a second daemon while the first is alive with the same start time: refused
    expect(() => acquireDaemonLease(db, 'holder-2', { startTime: 'T2' }, { probe: probe({ [me]: 'T1' }) })).toThrow(/already running/);

    // the first crashed and the OS reused its pid for something else: taken over
    const second = acquireDaemonLease(db, 'holder-2', { startTime: 'T2' }, { probe: probe({ [me]: 'OTHER' }) });
    expect(second.tookOver).toEqual({ pid: me, why: 'reused' });
    expect(getLease(db, DAEMON_LEASE)?.holder).toBe('holder-2');

    // the old holder can no longer renew: it must stop
    expect(heartbeatLease(db, 'holder-1')).toBe(false);
    expect(heartbeatLease(db, 'holder-2')).toBe(true);
    releaseDaemonLease(db, 'holder-1'); // holder-scoped: no effect
    expect(getLease(db, DAEMON_LEASE)?.holder).toBe('holder-2');
    releaseDaemonLease(db, 'holder-2');
    expect(getLease(db, DAEMON_LEASE)).toBeUndefined();
  });

  it('takes over the lease of a dead holder (kill -9)', () => {
    db = openDb(':memory:');
    acquireDaemonLease(db, 'crashed', { startTime: 'T1' }, { probe: probe({ [process.pid]: 'T1' }) });
    const res = acquireDaemonLease(db, 'next', { startTime: 'T9' }, { probe: probe({}) });
    expect(res.tookOver?.why).toBe('dead');
    expect(getLease(db, DAEMON_LEASE)?.holder).toBe('next');
  });
});
