/** The `events` table: normalized, redacted transcript events (SessionEvent), keyed by (session number, seq). */
import type Database from 'better-sqlite3';
import type { Db } from '../db.js';
import { cachedStatement } from './cached.js';
import type { AgentId, SessionEvent } from '../../core/records.js';

interface EventDbRow {
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
const INSERT_HEAD = 'INSERT OR IGNORE INTO events(sid, seq, ts, role, kind, tool_name, is_error, text, cwd, meta) VALUES ';
const ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
/** Values per row in the flat form; the first is the session number, filled in by the writer. */
export const EVENT_COLUMNS = 10;
/** Rows per statement: one native call per 32 rows instead of per row (the rest in halves: 16, 8…). */
const MULTI = 32;
/** The session id of a session number, for queries keyed by the text id. */
const SID_OF = '(SELECT sid FROM sessions WHERE id = ?)';

/**
 * An event as its row values, in column order, appended to `out`: the form the writer binds as is.
 * (Harvest workers post the same values columnar, see src/harvest/packed-events.ts, and the writer
 * turns them back into this form.) The session number is assigned by the writer, so the first
 * value is a 0 placeholder.
 */
export function eventRowValues(out: unknown[], e: SessionEvent): void {
  out.push(0, e.seq, e.ts, e.role, e.kind, e.toolName ?? null, e.isError ? 1 : 0, e.text, e.cwd ?? null, eventMetaValue(e));
}

/** An event's `meta` column value: its meta as JSON text (`{}` when empty). */
export function eventMetaValue(e: SessionEvent): string {
  for (const _k in e.meta) return JSON.stringify(e.meta);
  return '{}';
}

/** Inserts one session's events (`sid` from `upsertSession`). */
export function insertEvents(db: Db, sid: number, events: SessionEvent[]): void {
  const rows: unknown[] = [];
  for (const e of events) eventRowValues(rows, e);
  insertEventRows(db, sid, rows);
}

const insertStatements = new WeakMap<Db, Database.Statement[]>();

/** Inserts one session's events given as flat row values (`EVENT_COLUMNS` per event, see `eventRowValues`). */
export function insertEventRows(db: Db, sid: number, rows: unknown[]): void {
  for (let i = 0; i < rows.length; i += EVENT_COLUMNS) rows[i] = sid;
  const n = rows.length / EVENT_COLUMNS;
  let stmts = insertStatements.get(db);
  if (!stmts) insertStatements.set(db, (stmts = []));
  const cache = stmts;
  const run = (i: number, size: number) => {
    const stmt = cache[size] ?? (cache[size] = cachedStatement(db, INSERT_HEAD + Array(size).fill(ROW).join(', ')));
    stmt.run(rows.slice(i * EVENT_COLUMNS, (i + size) * EVENT_COLUMNS));
    return i + size;
  };
  let i = 0;
  while (n - i >= MULTI) i = run(i, MULTI);
  // the remainder (< MULTI) in binary: at most one statement per power of two
  for (let size = MULTI >> 1; size >= 1; size >>= 1) if (n - i >= size) i = run(i, size);
}

/** Sets or clears `meta.final` on an already stored event. */
export function setEventFinal(db: Db, sid: number, seq: number, final: boolean): void {
  const sql = final
    ? "UPDATE events SET meta = json_set(meta, '$.final', json('true')) WHERE sid = ? AND seq = ?"
    : "UPDATE events SET meta = json_remove(meta, '$.final') WHERE sid = ? AND seq = ?";
  cachedStatement(db, sql).run(sid, seq);
}

/** Replaces the text of an already stored event (an assistant message continued in a later read). */
export function setEventText(db: Db, sid: number, seq: number, text: string): void {
  cachedStatement(db, 'UPDATE events SET text = ? WHERE sid = ? AND seq = ?').run(text, sid, seq);
}

/** The stored text of one event by session number, or undefined. */
export function storedEventText(db: Db, sid: number, seq: number): string | undefined {
  return (cachedStatement(db, 'SELECT text FROM events WHERE sid = ? AND seq = ?').get(sid, seq) as { text: string } | undefined)?.text;
}

/** How many of the newest tool results `toolOutputHolding` reads: one bounded pass per question. */
export const TOOL_OUTPUT_SCAN_LIMIT = 200_000;

/**
 * Which of `needles` the stored tool results hold (case-insensitive), in one pass over the newest
 * TOOL_OUTPUT_SCAN_LIMIT of them (a planted instruction that recurs lives in recent output), stopping
 * once every needle is found.
 */
export function toolOutputHolding(db: Db, needles: readonly string[]): Set<string> {
  const found = new Set<string>();
  if (!needles.length) return found;
  const lower = needles.map((n) => n.toLowerCase());
  const rows = cachedStatement(db, "SELECT text FROM events WHERE kind = 'tool_result' ORDER BY sid DESC, seq DESC LIMIT ?").iterate(TOOL_OUTPUT_SCAN_LIMIT) as IterableIterator<{ text: string }>;
  for (const { text } of rows) {
    const t = text.toLowerCase();
    for (let i = 0; i < lower.length; i++) if (!found.has(needles[i]) && t.includes(lower[i])) found.add(needles[i]);
    if (found.size === needles.length) break;
  }
  return found;
}

/** Deletes a session's events (the session row stays). */
export function deleteSessionEvents(db: Db, sessionId: string): number {
  return cachedStatement(db, `DELETE FROM events WHERE sid = ${SID_OF}`).run(sessionId).changes;
}

export function listEvents(db: Db, sessionId: string, opts: { kinds?: SessionEvent['kind'][]; limit?: number } = {}): SessionEvent[] {
  const kinds = opts.kinds?.length ? `AND kind IN (${opts.kinds.map(() => '?').join(',')})` : '';
  const rows = db
    .prepare(`SELECT seq, ts, role, kind, tool_name, is_error, text, cwd, meta FROM events WHERE sid = ${SID_OF} ${kinds} ORDER BY seq LIMIT ?`)
    .all(sessionId, ...(opts.kinds ?? []), opts.limit ?? 1_000_000) as EventDbRow[];
  const agent = sessionId.split(':')[0] as AgentId; // session ids are `<agent>:<vendor id>`
  return rows.map((r) => {
    const e: SessionEvent = {
      agent,
      sessionId,
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
    ? (db.prepare(`SELECT count(*) AS n FROM events WHERE sid = ${SID_OF}`).get(sessionId) as { n: number })
    : (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number });
  return row.n;
}

/** One event's text by session id and sequence number (the review's transcript excerpts). */
export function eventText(db: Db, sessionId: string, seq: number): { seq: number; ts: number | null; text: string } | undefined {
  return db.prepare(`SELECT seq, ts, text FROM events WHERE sid = ${SID_OF} AND seq = ?`).get(sessionId, seq) as
    | { seq: number; ts: number | null; text: string }
    | undefined;
}
