/** The `sessions` table: one row per transcript session (`<agent>:<vendor id>`). */
import fs from 'node:fs';
import type { Db } from '../db.js';
import { cachedStatement } from './cached.js';
import type { AgentId, Session, SessionKind } from '../../core/records.js';
import { deleteSessionEvents } from './events.js';

interface SessionDbRow {
  id: string;
  agent: string;
  vendor_id: string;
  project: string | null;
  cwd: string | null;
  git_branch: string | null;
  started_at: number | null;
  ended_at: number | null;
  kind: string;
  parent_id: string | null;
  file: string;
  title: string | null;
  prompt_count: number;
  tool_error_count: number;
  mined_at: number | null;
  updated_at: number;
}

export type SessionRow = Session & { minedAt: number | null; updatedAt: number };

function fromDb(r: SessionDbRow): SessionRow {
  return {
    id: r.id,
    agent: r.agent as AgentId,
    vendorId: r.vendor_id,
    project: r.project,
    cwd: r.cwd,
    gitBranch: r.git_branch,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    kind: r.kind as SessionKind,
    parentId: r.parent_id,
    file: r.file,
    title: r.title,
    promptCount: r.prompt_count,
    toolErrorCount: r.tool_error_count,
    minedAt: r.mined_at,
    updatedAt: r.updated_at,
  };
}

/**
 * Inserts or updates a session; returns its session number (`sid`), the key its events are stored
 * under. A new session gets the next number, so a harvest appends events at the end of the events
 * B-tree (see migration 6); an existing one keeps its number.
 */
export function upsertSession(db: Db, s: Session, now = Date.now()): number {
  // positional parameters: binding by name looks every key up on an object, per call
  cachedStatement(
    db,
    `INSERT INTO sessions(id, agent, vendor_id, project, cwd, git_branch, started_at, ended_at, kind, parent_id, file, title, prompt_count, tool_error_count, updated_at, sid)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(sid), 0) + 1 FROM sessions))
     ON CONFLICT(id) DO UPDATE SET project = excluded.project, cwd = excluded.cwd, git_branch = excluded.git_branch,
       started_at = excluded.started_at, ended_at = excluded.ended_at, kind = excluded.kind, parent_id = excluded.parent_id,
       file = excluded.file, title = excluded.title, prompt_count = excluded.prompt_count,
       tool_error_count = excluded.tool_error_count, updated_at = excluded.updated_at, sid = coalesce(sessions.sid, excluded.sid)`,
  ).run(
    s.id,
    s.agent,
    s.vendorId,
    s.project,
    s.cwd,
    s.gitBranch ?? null,
    s.startedAt,
    s.endedAt,
    s.kind,
    s.parentId ?? null,
    s.file,
    s.title ?? null,
    s.promptCount,
    s.toolErrorCount,
    now,
  );
  // (not `RETURNING sid`: it made each upsert ~8× slower; this lookup is one index probe)
  return sessionSid(db, s.id)!;
}

/** The session number (`sid`) of a session id, if the session is stored. */
export function sessionSid(db: Db, id: string): number | undefined {
  const row = cachedStatement(db, 'SELECT sid FROM sessions WHERE id = ?').raw(true).get(id) as [number] | undefined;
  return row?.[0] ?? undefined; // (NULL: a row written without a number)
}

export function getSession(db: Db, id: string): SessionRow | undefined {
  const r = cachedStatement(db, 'SELECT * FROM sessions WHERE id = ?').get(id) as SessionDbRow | undefined;
  return r ? fromDb(r) : undefined;
}

/** Finds a session by full id, vendor id, or a unique prefix of either. */
export function findSession(db: Db, idOrPrefix: string): SessionRow[] {
  const exact = getSession(db, idOrPrefix);
  if (exact) return [exact];
  const rows = db
    .prepare('SELECT * FROM sessions WHERE vendor_id = ? OR id LIKE ? OR vendor_id LIKE ? ORDER BY started_at DESC LIMIT 5')
    .all(idOrPrefix, `${idOrPrefix}%`, `${idOrPrefix}%`) as SessionDbRow[];
  return rows.map(fromDb);
}

export interface SessionFilter {
  agent?: AgentId;
  project?: string;
  kind?: SessionKind;
  sinceMs?: number;
  limit?: number;
}

export function listSessions(db: Db, f: SessionFilter = {}): SessionRow[] {
  const where: string[] = [];
  const args: Record<string, unknown> = {};
  if (f.agent) {
    where.push('agent = @agent');
    args.agent = f.agent;
  }
  if (f.project) {
    where.push('(project = @project OR project LIKE @projectPrefix)');
    args.project = f.project;
    args.projectPrefix = `${f.project.replace(/\/+$/, '')}/%`;
  }
  if (f.kind) {
    where.push('kind = @kind');
    args.kind = f.kind;
  }
  if (f.sinceMs !== undefined) {
    where.push('coalesce(ended_at, started_at, updated_at) >= @since');
    args.since = f.sinceMs;
  }
  const sql = `SELECT * FROM sessions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY coalesce(started_at, updated_at) DESC LIMIT @limit`;
  return (db.prepare(sql).all({ ...args, limit: f.limit ?? 50 }) as SessionDbRow[]).map(fromDb);
}

export function countSessionsByKind(db: Db): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of db.prepare('SELECT kind, count(*) AS n FROM sessions GROUP BY kind').all() as Array<{ kind: string; n: number }>) out[r.kind] = r.n;
  return out;
}

/** Newest ingested material: the latest session update. */
export function lastSessionUpdateAt(db: Db): number | undefined {
  const row = db.prepare('SELECT MAX(updated_at) AS t FROM sessions').get() as { t: number | null };
  return row.t ?? undefined;
}

/** Sessions whose transcript file path starts with `prefix` (exactly, no pattern). */
export function countSessionsWithFilePrefix(db: Db, prefix: string): number {
  const row = db.prepare(`SELECT COUNT(*) AS n FROM sessions WHERE substr(file, 1, ?) = ?`).get(prefix.length, prefix) as { n: number };
  return row.n;
}

/** The agents the store has seen sessions of in this project (its root or a folder inside it). */
export function agentsInProject(db: Db, project: string): AgentId[] {
  const inside = project.endsWith('/') ? project : `${project}/`;
  const rows = db.prepare('SELECT DISTINCT agent FROM sessions WHERE project = ? OR cwd = ? OR substr(cwd, 1, ?) = ?').all(project, project, inside.length, inside) as Array<{ agent: AgentId }>;
  return rows.map((r) => r.agent);
}

/** Has the store seen a session in this project (its root or a folder inside it)? Write targets are derived from this. */
export function hasSessionsInProject(db: Db, project: string): boolean {
  const inside = project.endsWith('/') ? project : `${project}/`;
  return db.prepare('SELECT 1 FROM sessions WHERE project = ? OR cwd = ? OR substr(cwd, 1, ?) = ? LIMIT 1').get(project, project, inside.length, inside) !== undefined;
}

/**
 * What the store keeps of one agent's sessions beyond the agent's own retention: how many stored
 * sessions ended before `cutoffMs` (the agent deletes those transcripts), and how many of the
 * stored sessions' files are already gone from disk.
 */
export function retainedSessions(db: Db, agent: string, cutoffMs: number): { total: number; older: number; fileGone: number } {
  const rows = db.prepare(`SELECT file, COALESCE(ended_at, started_at, updated_at) AS t FROM sessions WHERE agent = ?`).all(agent) as Array<{ file: string; t: number | null }>;
  let older = 0;
  let fileGone = 0;
  for (const r of rows) {
    if (r.t !== null && r.t < cutoffMs) older++;
    if (!fs.existsSync(r.file)) fileGone++;
  }
  return { total: rows.length, older, fileGone };
}

/**
 * Per agent: how many sessions the store holds and the earliest and latest activity among them
 * (null when none carries a time). Our own replay sessions (`self`) are not the user's activity.
 */
export function sessionSpanByAgent(db: Db): Record<string, { sessions: number; first: number | null; last: number | null }> {
  const rows = db
    .prepare(`SELECT agent, COUNT(*) AS n, MIN(COALESCE(started_at, ended_at)) AS first, MAX(COALESCE(ended_at, started_at)) AS last FROM sessions WHERE kind != 'self' GROUP BY agent`)
    .all() as Array<{ agent: string; n: number; first: number | null; last: number | null }>;
  return Object.fromEntries(rows.map((r) => [r.agent, { sessions: r.n, first: r.first, last: r.last }]));
}

/** Every project folder the store knows: where harvested sessions ran, or where mined tasks belong. */
export function listKnownProjects(db: Db): string[] {
  return (db.prepare('SELECT DISTINCT project FROM sessions WHERE project IS NOT NULL UNION SELECT DISTINCT project FROM tasks WHERE project IS NOT NULL ORDER BY 1').pluck().all() as string[]);
}

/** Removes a session and its events (explicitly: the harvest writes with foreign keys off). */
export function deleteSession(db: Db, id: string): void {
  deleteSessionEvents(db, id);
  db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
}
