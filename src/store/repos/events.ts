/** The `events` table: normalized, redacted transcript events (SessionEvent), keyed by (session, seq). */
import type { Db } from '../db.js';
import { cachedStatement } from './cached.js';
import type { AgentId, SessionEvent } from '../../core/records.js';

interface EventDbRow {
  session_id: string;
  seq: number;
  ts: number | null;
  role: string;
  kind: string;
  tool_name: string | null;
  is_error: number;
  text: string;
  cwd: string | null;
  meta: string;
}

// OR IGNORE: a concurrent harvest of the same bytes computes identical rows (same seq); resets delete first
const INSERT_HEAD = 'INSERT OR IGNORE INTO events(session_id, seq, ts, role, kind, tool_name, is_error, text, cwd, meta) VALUES ';
const ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
/** Rows per statement: one native call per 32 rows instead of per row. */
const MULTI = 32;

function bind(out: unknown[], e: SessionEvent): void {
  const meta = e.meta && Object.keys(e.meta).length ? JSON.stringify(e.meta) : '{}';
  out.push(e.sessionId, e.seq, e.ts, e.role, e.kind, e.toolName ?? null, e.isError ? 1 : 0, e.text, e.cwd ?? null, meta);
}

export function insertEvents(db: Db, events: SessionEvent[]): void {
  let i = 0;
  if (events.length >= MULTI) {
    const multi = cachedStatement(db, INSERT_HEAD + Array(MULTI).fill(ROW).join(', '));
    const args: unknown[] = [];
    for (; i + MULTI <= events.length; i += MULTI) {
      args.length = 0;
      for (let k = i; k < i + MULTI; k++) bind(args, events[k]);
      multi.run(args);
    }
  }
  if (i < events.length) {
    const one = cachedStatement(db, INSERT_HEAD + ROW);
    const args: unknown[] = [];
    for (; i < events.length; i++) {
      args.length = 0;
      bind(args, events[i]);
      one.run(args);
    }
  }
}

/** Sets or clears `meta.final` on an already stored event. */
export function setEventFinal(db: Db, sessionId: string, seq: number, final: boolean): void {
  const sql = final
    ? "UPDATE events SET meta = json_set(meta, '$.final', json('true')) WHERE session_id = ? AND seq = ?"
    : "UPDATE events SET meta = json_remove(meta, '$.final') WHERE session_id = ? AND seq = ?";
  cachedStatement(db, sql).run(sessionId, seq);
}

export function deleteSessionEvents(db: Db, sessionId: string): number {
  return cachedStatement(db, 'DELETE FROM events WHERE session_id = ?').run(sessionId).changes;
}

export function listEvents(db: Db, sessionId: string, opts: { kinds?: SessionEvent['kind'][]; limit?: number } = {}): SessionEvent[] {
  const kinds = opts.kinds?.length ? `AND kind IN (${opts.kinds.map(() => '?').join(',')})` : '';
  const rows = db
    .prepare(`SELECT * FROM events WHERE session_id = ? ${kinds} ORDER BY seq LIMIT ?`)
    .all(sessionId, ...(opts.kinds ?? []), opts.limit ?? 1_000_000) as EventDbRow[];
  const agent = (sessionId.split(':')[0] ?? 'claude-code') as AgentId;
  return rows.map((r) => {
    const e: SessionEvent = {
      agent,
      sessionId: r.session_id,
      seq: r.seq,
      ts: r.ts,
      role: r.role as SessionEvent['role'],
      kind: r.kind as SessionEvent['kind'],
      text: r.text,
      meta: JSON.parse(r.meta) as Record<string, unknown>,
    };
    if (r.tool_name !== null) e.toolName = r.tool_name;
    if (r.is_error) e.isError = true;
    if (r.cwd !== null) e.cwd = r.cwd;
    return e;
  });
}

export function countEvents(db: Db, sessionId?: string): number {
  const row = sessionId
    ? (db.prepare('SELECT count(*) AS n FROM events WHERE session_id = ?').get(sessionId) as { n: number })
    : (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number });
  return row.n;
}
