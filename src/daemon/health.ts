/**
 * Health records the daemon keeps in the store (kv), read by `status` whether or not the daemon
 * is alive — so a daemon that died still says when and in what state.
 */
import type { Db } from '../store/db.js';
import { kvGet, kvSet } from '../store/repos/kv.js';
import { lastRunEndedAt, latestRunRaw } from '../store/repos/runs.js';
import { countSessionsWithFilePrefix, lastSessionUpdateAt } from '../store/repos/sessions.js';
import { countProposals } from '../store/repos/proposal-counts.js';
import type { WatchedRootStatus } from './watcher.js';
import type { NightOutcome } from './night-runner.js';
import type { BackendChoice } from './deps.js';

export const KV_HEALTH = 'daemon.health';
export const KV_LAST_NIGHT = 'daemon.lastNight';
export const KV_FIRST_START = 'daemon.firstStartAt';

export type DaemonState = 'starting' | 'running' | 'night' | 'stopping' | 'stopped';

export interface RootHealth extends WatchedRootStatus {
  sessions: number;
}

export interface DaemonHealth {
  pid: number;
  state: DaemonState;
  startedAt: number;
  heartbeatAt: number;
  version: string;
  roots: RootHealth[];
  filesIngested: number;
  sessionsIngested: number;
  newSessions: number;
  queueDepth: number;
  harvesting: boolean;
  mining?: boolean;
  lastHarvestAt?: number;
  lastHarvestError?: string;
  watcherError?: string;
  backend: BackendChoice;
  nextNightAt?: number;
  nightPid?: number;
  rssBytes: number;
  heapUsedBytes: number;
  heapTotalBytes?: number;
  externalBytes?: number;
  stoppedAt?: number;
  stopReason?: string;
}

export function readHealth(db: Db): DaemonHealth | undefined {
  return kvGet<DaemonHealth>(db, KV_HEALTH);
}

export function writeHealth(db: Db, h: DaemonHealth, now = Date.now()): void {
  kvSet(db, KV_HEALTH, h, now);
}

export function readLastNight(db: Db): NightOutcome | undefined {
  return kvGet<NightOutcome>(db, KV_LAST_NIGHT);
}

export function writeLastNight(db: Db, o: NightOutcome): void {
  kvSet(db, KV_LAST_NIGHT, o);
}

/** First daemon start on this machine (the catch-up anchor before any night ran). */
export function firstStartAt(db: Db, now: number): number {
  const v = kvGet<number>(db, KV_FIRST_START);
  if (typeof v === 'number') return v;
  kvSet(db, KV_FIRST_START, now, now);
  return now;
}

/** End of the last night that actually ran (daemon-run or by hand, from the runs table). */
export function lastNightEndedAt(db: Db): number | undefined {
  const fromRuns = lastRunEndedAt(db, 'night', ['done', 'failed']);
  const last = readLastNight(db);
  const fromKv = last && (last.status === 'done' || last.status === 'failed') ? last.endedAt : undefined;
  const vals = [fromRuns, fromKv].filter((x): x is number => typeof x === 'number');
  return vals.length ? Math.max(...vals) : undefined;
}

/** Newest ingested material: the latest session update. */
export function lastMaterialAt(db: Db): number | undefined {
  return lastSessionUpdateAt(db);
}

export function stagedProposalCount(db: Db): number {
  return countProposals(db, 'staged');
}

/** Sessions per watched root (by transcript file path prefix). */
export function sessionsUnder(db: Db, root: string): number {
  const prefix = root.endsWith('/') || root.endsWith('\\') ? root : root + (root.includes('\\') && !root.includes('/') ? '\\' : '/');
  return countSessionsWithFilePrefix(db, prefix);
}

export interface LastNightSummary {
  status: string;
  reason: string;
  trigger?: string;
  startedAt: number;
  endedAt?: number;
  runId?: string;
}

/** The most recent night: the daemon's record or the runs table, whichever is newer. */
export function lastNightSummary(db: Db): LastNightSummary | undefined {
  const kv = readLastNight(db);
  const row = latestRunRaw(db, 'night');
  let fromRuns: LastNightSummary | undefined;
  if (row) {
    let reason = '';
    try {
      const rec = JSON.parse(row.record) as Record<string, unknown>;
      const s = rec.summary ?? rec.reason ?? (rec.report as Record<string, unknown> | undefined)?.summary;
      reason = typeof s === 'string' ? s : '';
    } catch {
      /* keep empty */
    }
    fromRuns = { status: row.status, reason, startedAt: row.startedAt, endedAt: row.endedAt ?? undefined, runId: row.id };
  }
  if (kv && (!fromRuns || kv.startedAt >= fromRuns.startedAt - 1000)) {
    return { status: kv.status, reason: kv.reason || fromRuns?.reason || '', trigger: kv.trigger, startedAt: kv.startedAt, endedAt: kv.endedAt, runId: kv.runId ?? fromRuns?.runId };
  }
  return fromRuns;
}
