/** Training runs and their steps. `record` columns hold JSON written by the trainer. */
import type { Db } from '../db.js';

export type RunStatus = 'running' | 'done' | 'failed' | 'aborted';

export interface RunRow {
  id: string;
  kind: string;
  status: RunStatus;
  startedAt: number;
  endedAt: number | null;
  dir: string | null;
  record: Record<string, unknown>;
}

interface RawRun {
  id: string;
  kind: string;
  status: string;
  started_at: number;
  ended_at: number | null;
  dir: string | null;
  record: string;
}

const fromRaw = (r: RawRun): RunRow => ({
  id: r.id,
  kind: r.kind,
  status: r.status as RunStatus,
  startedAt: r.started_at,
  endedAt: r.ended_at,
  dir: r.dir,
  record: JSON.parse(r.record) as Record<string, unknown>,
});

export function createRun(db: Db, run: { id: string; kind: string; dir: string; record: Record<string, unknown>; startedAt?: number }): void {
  db.prepare(`INSERT INTO runs (id, kind, status, started_at, dir, record) VALUES (?, ?, 'running', ?, ?, ?)`).run(
    run.id,
    run.kind,
    run.startedAt ?? Date.now(),
    run.dir,
    JSON.stringify(run.record),
  );
}

export function getRun(db: Db, id: string): RunRow | null {
  const r = db.prepare(`SELECT * FROM runs WHERE id = ?`).get(id) as RawRun | undefined;
  return r ? fromRaw(r) : null;
}

export function updateRun(db: Db, id: string, patch: { status?: RunStatus; endedAt?: number | null; record?: Record<string, unknown> }): void {
  const cur = getRun(db, id);
  if (!cur) return;
  db.prepare(`UPDATE runs SET status = ?, ended_at = ?, record = ? WHERE id = ?`).run(
    patch.status ?? cur.status,
    patch.endedAt === undefined ? cur.endedAt : patch.endedAt,
    JSON.stringify(patch.record ?? cur.record),
    id,
  );
}

export function listRuns(db: Db, opts: { kind?: string; limit?: number } = {}): RunRow[] {
  const rows = opts.kind
    ? (db.prepare(`SELECT * FROM runs WHERE kind = ? ORDER BY started_at DESC LIMIT ?`).all(opts.kind, opts.limit ?? 50) as RawRun[])
    : (db.prepare(`SELECT * FROM runs ORDER BY started_at DESC LIMIT ?`).all(opts.limit ?? 50) as RawRun[]);
  return rows.map(fromRaw);
}

/** Upsert: a resumed run rewrites a step it redoes. */
export function saveStep(db: Db, runId: string, epoch: number, step: number, record: unknown): void {
  db.prepare(`INSERT INTO steps (run_id, epoch, step, record) VALUES (?, ?, ?, ?) ON CONFLICT (run_id, epoch, step) DO UPDATE SET record = excluded.record`).run(
    runId,
    epoch,
    step,
    JSON.stringify(record),
  );
}

export function listSteps<T = unknown>(db: Db, runId: string): Array<{ epoch: number; step: number; record: T }> {
  return (db.prepare(`SELECT epoch, step, record FROM steps WHERE run_id = ? ORDER BY step`).all(runId) as Array<{ epoch: number; step: number; record: string }>).map(
    (r) => ({ epoch: r.epoch, step: r.step, record: JSON.parse(r.record) as T }),
  );
}

/** When the last run of `kind` with one of `statuses` ended (its start when it has no end). */
export function lastRunEndedAt(db: Db, kind: string, statuses: readonly RunStatus[]): number | undefined {
  const row = db
    .prepare(`SELECT MAX(COALESCE(ended_at, started_at)) AS t FROM runs WHERE kind = ? AND status IN (${statuses.map(() => '?').join(', ')})`)
    .get(kind, ...statuses) as { t: number | null };
  return row.t ?? undefined;
}

/** The newest run of `kind` with its record as stored (text): a damaged record still names the run. */
export function latestRunRaw(db: Db, kind: string): { id: string; status: string; startedAt: number; endedAt: number | null; record: string } | undefined {
  const row = db.prepare(`SELECT id, status, started_at, ended_at, record FROM runs WHERE kind = ? ORDER BY started_at DESC LIMIT 1`).get(kind) as
    | { id: string; status: string; started_at: number; ended_at: number | null; record: string }
    | undefined;
  return row ? { id: row.id, status: row.status, startedAt: row.started_at, endedAt: row.ended_at, record: row.record } : undefined;
}
