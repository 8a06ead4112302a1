/** The egress ledger table: one row per outbound model call (what the rows mean: llm/ledger.ts). */
import type { Db } from '../db.js';

export interface LedgerRow {
  id?: number;
  ts: number;
  runId: string | null;
  role: string;
  backend: string;
  model: string | null;
  destination: string;
  bytesSent: number;
  redactions: number;
  contentHash: string;
  tokensIn: number;
  tokensOut: number;
  /** of tokensIn: prompt tokens read from the provider's cache */
  cacheReadTokens?: number;
  costUsd: number;
  ok: boolean;
  error: string | null;
}

export function recordEgress(db: Db, row: LedgerRow): number {
  const info = db
    .prepare(
      `INSERT INTO ledger (ts, run_id, role, backend, model, destination, bytes_sent, redactions, content_hash, tokens_in, tokens_out, cost_usd, ok, error, cache_read_tokens)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      row.ts,
      row.runId,
      row.role,
      row.backend,
      row.model,
      row.destination,
      row.bytesSent,
      row.redactions,
      row.contentHash,
      Math.round(row.tokensIn),
      Math.round(row.tokensOut),
      row.costUsd,
      row.ok ? 1 : 0,
      row.error === null ? null : row.error.slice(0, 500),
      Math.round(row.cacheReadTokens ?? 0),
    );
  return Number(info.lastInsertRowid);
}

interface RawRow {
  id: number;
  ts: number;
  run_id: string | null;
  role: string;
  backend: string;
  model: string | null;
  destination: string;
  bytes_sent: number;
  redactions: number;
  content_hash: string;
  tokens_in: number;
  tokens_out: number;
  cost_usd: number;
  ok: number;
  error: string | null;
  cache_read_tokens: number;
}

/** `runIds`: rows of any of these runs (a night and the training runs it started). */
export function listEgress(db: Db, opts: { sinceMs?: number; runId?: string; runIds?: string[]; limit?: number } = {}): LedgerRow[] {
  const where: string[] = [];
  const args: unknown[] = [];
  if (opts.sinceMs !== undefined) {
    where.push('ts >= ?');
    args.push(opts.sinceMs);
  }
  if (opts.runId !== undefined) {
    where.push('run_id = ?');
    args.push(opts.runId);
  }
  if (opts.runIds !== undefined) {
    if (opts.runIds.length === 0) return [];
    where.push(`run_id IN (${opts.runIds.map(() => '?').join(', ')})`);
    args.push(...opts.runIds);
  }
  const sql = `SELECT * FROM ledger ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ts, id${opts.limit ? ` LIMIT ${Math.floor(opts.limit)}` : ''}`;
  return (db.prepare(sql).all(...args) as RawRow[]).map((r) => ({
    id: r.id,
    ts: r.ts,
    runId: r.run_id,
    role: r.role,
    backend: r.backend,
    model: r.model,
    destination: r.destination,
    bytesSent: r.bytes_sent,
    redactions: r.redactions,
    contentHash: r.content_hash,
    tokensIn: r.tokens_in,
    tokensOut: r.tokens_out,
    cacheReadTokens: r.cache_read_tokens ?? 0,
    costUsd: r.cost_usd,
    ok: r.ok === 1,
    error: r.error,
  }));
}

/** The newest successful calls of one backend in one role (for measured per-call overhead and cost). */
export function recentCallUsage(db: Db, backend: string, role: string, opts: { sinceMs: number; limit: number }): Array<{ tokensIn: number; tokensOut: number; bytesSent: number; costUsd: number }> {
  return (
    db
      .prepare(
        `SELECT tokens_in AS tokensIn, tokens_out AS tokensOut, bytes_sent AS bytesSent, cost_usd AS costUsd FROM ledger
         WHERE backend = ? AND role = ? AND ok = 1 AND ts >= ? ORDER BY ts DESC, id DESC LIMIT ?`,
      )
      .all(backend, role, opts.sinceMs, Math.max(1, Math.floor(opts.limit))) as Array<{ tokensIn: number; tokensOut: number; bytesSent: number; costUsd: number }>
  );
}

/** Models named by successful calls since `sinceMs`, with the backend that used them (what the agent CLIs really ran). */
export function recentModels(db: Db, sinceMs: number): Array<{ backend: string; model: string }> {
  return db
    .prepare('SELECT DISTINCT backend, model FROM ledger WHERE ok = 1 AND ts >= ? AND model IS NOT NULL ORDER BY backend, model')
    .all(sinceMs) as Array<{ backend: string; model: string }>;
}
