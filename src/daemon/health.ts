/**
 * Health records the daemon keeps in the store (kv), read by `status` whether or not the daemon
 * is alive — so a daemon that died still says when and in what state.
 */
import type { Db } from '../store/db.js';
import { kvGet, kvSet } from '../store/repos/kv.js';
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
  const row = db
    .prepare(`SELECT MAX(COALESCE(ended_at, started_at)) AS t FROM runs WHERE kind = 'night' AND status IN ('done', 'failed')`)
    .get() as { t: number | null };
  const last = readLastNight(db);
  const fromKv = last && (last.status === 'done' || last.status === 'failed') ? last.endedAt : undefined;
  const vals = [row.t ?? undefined, fromKv].filter((x): x is number => typeof x === 'number');
  return vals.length ? Math.max(...vals) : undefined;
}

/** Newest ingested material: the latest session update. */
export function lastMaterialAt(db: Db): number | undefined {
  const row = db.prepare('SELECT MAX(updated_at) AS t FROM sessions').get() as { t: number | null };
  return row.t ?? undefined;
}

export function stagedProposalCount(db: Db): number {
  const row = db.prepare(`SELECT COUNT(*) AS n FROM proposals WHERE status = 'staged'`).get() as { n: number };
  return row.n;
}

/** Sessions per watched root (by transcript file path prefix). */
export function sessionsUnder(db: Db, root: string): number {
  const prefix = root.endsWith('/') || root.endsWith('\\') ? root : root + (root.includes('\\') && !root.includes('/') ? '\\' : '/');
  const row = db.prepare(`SELECT COUNT(*) AS n FROM sessions WHERE substr(file, 1, ?) = ?`).get(prefix.length, prefix) as { n: number };
  return row.n;
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
  const row = db
    .prepare(`SELECT id, status, started_at, ended_at, record FROM runs WHERE kind = 'night' ORDER BY started_at DESC LIMIT 1`)
    .get() as { id: string; status: string; started_at: number; ended_at: number | null; record: string } | undefined;
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
    fromRuns = { status: row.status, reason, startedAt: row.started_at, endedAt: row.ended_at ?? undefined, runId: row.id };
  }
  if (kv && (!fromRuns || kv.startedAt >= fromRuns.startedAt - 1000)) {
    return { status: kv.status, reason: kv.reason || fromRuns?.reason || '', trigger: kv.trigger, startedAt: kv.startedAt, endedAt: kv.endedAt, runId: kv.runId ?? fromRuns?.runId };
  }
  return fromRuns;
}
