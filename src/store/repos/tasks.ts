/**
 * Tasks and their occurrences. A task row mirrors a few fields of the full `Task` record (kept as
 * JSON in `record`) so they can be filtered in SQL; the record is the source of truth.
 */
import type { Db } from '../db.js';
import { TaskSchema, type Split, type Task } from '../../core/records.js';
import { SleepError } from '../../core/errors.js';

export interface TaskFilter {
  /** exactly this project (null = tasks seen in several projects) — what a night trains per project */
  project?: string | null;
  /** what a person means by "tasks of project P": P's own tasks plus cross-project ones seen in P */
  seenIn?: string;
  split?: Split;
  status?: Task['status'];
}

interface TaskRow {
  id: string;
  record: string;
  cluster_id: string | null;
}

function parseTask(row: TaskRow): Task {
  const parsed = TaskSchema.safeParse(JSON.parse(row.record));
  if (!parsed.success) {
    throw new SleepError('DB_CORRUPT', `task ${row.id} in the database is not a valid task record: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
      hint: '`skillopt-sleep tasks edit ' + row.id + '` to fix it, or `tasks disable` it',
    });
  }
  return parsed.data;
}

/** Lists tasks, oldest first. `project: null` selects cross-project tasks. */
export function listTasks(db: Db, filter: TaskFilter = {}): Task[] {
  const where: string[] = [];
  const args: unknown[] = [];
  if (filter.project !== undefined) {
    if (filter.project === null) where.push('project IS NULL');
    else {
      where.push('project = ?');
      args.push(filter.project);
    }
  }
  if (filter.seenIn !== undefined) {
    where.push(
      `(project = ? OR (project IS NULL AND EXISTS (SELECT 1 FROM task_occurrences o JOIN sessions s ON s.id = o.session_id WHERE o.task_id = tasks.id AND s.project = ?)))`,
    );
    args.push(filter.seenIn, filter.seenIn);
  }
  if (filter.split) {
    where.push('split = ?');
    args.push(filter.split);
  }
  if (filter.status) {
    where.push('status = ?');
    args.push(filter.status);
  }
  const sql = `SELECT id, record, cluster_id FROM tasks ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY created_at, id`;
  return (db.prepare(sql).all(...args) as TaskRow[]).map(parseTask);
}

export function getTask(db: Db, id: string): Task | undefined {
  const row = db.prepare('SELECT id, record, cluster_id FROM tasks WHERE id = ?').get(id) as TaskRow | undefined;
  return row ? parseTask(row) : undefined;
}

/** Resolves a full id or a unique prefix (for the CLI). */
export function findTask(db: Db, idOrPrefix: string): Task | undefined {
  const exact = getTask(db, idOrPrefix);
  if (exact) return exact;
  const rows = db.prepare("SELECT id, record, cluster_id FROM tasks WHERE id LIKE ? ESCAPE '\\' LIMIT 2").all(
    idOrPrefix.replace(/[\\%_]/g, (c) => '\\' + c) + '%',
  ) as TaskRow[];
  if (rows.length > 1) {
    throw new SleepError('INVALID_INPUT', `task id prefix "${idOrPrefix}" is ambiguous`, { hint: 'give more characters of the id' });
  }
  return rows[0] ? parseTask(rows[0]) : undefined;
}

export function getTaskClusterId(db: Db, id: string): string | null {
  const row = db.prepare('SELECT cluster_id FROM tasks WHERE id = ?').get(id) as { cluster_id: string | null } | undefined;
  return row?.cluster_id ?? null;
}

/** Inserts or replaces a task; validates the record first. */
export function upsertTask(db: Db, task: Task, opts: { clusterId?: string | null; now?: number } = {}): Task {
  const valid = TaskSchema.parse(task);
  const now = opts.now ?? Date.now();
  db.prepare(
    `INSERT INTO tasks(id, project, intent, split, origin, status, cluster_id, record, created_at, updated_at)
     VALUES (@id, @project, @intent, @split, @origin, @status, @cluster, @record, @now, @now)
     ON CONFLICT(id) DO UPDATE SET project = excluded.project, intent = excluded.intent, split = excluded.split,
       origin = excluded.origin, status = excluded.status, record = excluded.record, updated_at = excluded.updated_at,
       cluster_id = COALESCE(excluded.cluster_id, tasks.cluster_id)`,
  ).run({
    id: valid.id,
    project: valid.project,
    intent: valid.intent,
    split: valid.split,
    origin: valid.origin,
    status: valid.status,
    cluster: opts.clusterId ?? null,
    record: JSON.stringify(valid),
    now,
  });
  return valid;
}

export function setTaskStatus(db: Db, id: string, status: Task['status'], now = Date.now()): Task {
  const task = getTask(db, id);
  if (!task) throw new SleepError('NOT_FOUND', `no task ${id}`, { hint: '`skillopt-sleep tasks list` shows task ids' });
  return upsertTask(db, { ...task, status }, { now });
}

export function deleteTask(db: Db, id: string): boolean {
  return db.prepare('DELETE FROM tasks WHERE id = ?').run(id).changes > 0;
}

// ---- occurrences ------------------------------------------------------------------------------

export interface TaskOccurrence {
  taskId: string;
  sessionId: string;
  eventSeq: number;
  ts: number | null;
  prompt: string;
  /** what the agent did and how the user reacted (see src/mine/outcome.ts) */
  outcome: Record<string, unknown>;
}

export function addOccurrences(db: Db, occurrences: TaskOccurrence[]): number {
  const stmt = db.prepare(
    `INSERT INTO task_occurrences(task_id, session_id, event_seq, ts, prompt, outcome) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT(task_id, session_id, event_seq) DO UPDATE SET outcome = excluded.outcome, prompt = excluded.prompt`,
  );
  let n = 0;
  for (const o of occurrences) n += stmt.run(o.taskId, o.sessionId, o.eventSeq, o.ts, o.prompt, JSON.stringify(o.outcome)).changes;
  return n;
}

/**
 * Removes a task's occurrence rows for asks that are no longer its members (a re-synthesis moved
 * them to an instance of their own), so one prompt never feeds two tasks. Returns rows removed.
 */
export function pruneOccurrences(db: Db, taskId: string, keep: Array<{ sessionId: string; eventSeq: number }>): number {
  const keepKeys = new Set(keep.map((k) => `${k.sessionId}\u0000${k.eventSeq}`));
  const rows = db.prepare('SELECT session_id AS s, event_seq AS q FROM task_occurrences WHERE task_id = ?').all(taskId) as Array<{ s: string; q: number }>;
  const del = db.prepare('DELETE FROM task_occurrences WHERE task_id = ? AND session_id = ? AND event_seq = ?');
  let n = 0;
  for (const r of rows) if (!keepKeys.has(`${r.s}\u0000${r.q}`)) n += del.run(taskId, r.s, r.q).changes;
  return n;
}

/**
 * Makes a task's occurrence rows the given asks: removes rows of asks no longer its members, inserts
 * the missing ones, and rewrites only those `rewrite` names (asks read again in this run, whose
 * outcome may have grown). A family instance of hundreds of asks that gained one is one insert,
 * not hundreds of rewrites. Returns rows inserted or rewritten, and rows removed.
 */
export function syncOccurrences(db: Db, taskId: string, occurrences: TaskOccurrence[], rewrite: (o: TaskOccurrence) => boolean): { written: number; removed: number } {
  const keyOf = (s: string, q: number) => `${s}\u0000${q}`;
  const stored = new Set(
    (db.prepare('SELECT session_id AS s, event_seq AS q FROM task_occurrences WHERE task_id = ?').all(taskId) as Array<{ s: string; q: number }>).map((r) => keyOf(r.s, r.q)),
  );
  const keep = new Set<string>();
  const write: TaskOccurrence[] = [];
  for (const o of occurrences) {
    const k = keyOf(o.sessionId, o.eventSeq);
    keep.add(k);
    if (!stored.has(k) || rewrite(o)) write.push(o);
  }
  const del = db.prepare('DELETE FROM task_occurrences WHERE task_id = ? AND session_id = ? AND event_seq = ?');
  let removed = 0;
  for (const k of stored) {
    if (keep.has(k)) continue;
    const at = k.indexOf('\u0000');
    removed += del.run(taskId, k.slice(0, at), Number(k.slice(at + 1))).changes;
  }
  return { written: write.length ? addOccurrences(db, write) : 0, removed };
}

export function listOccurrences(db: Db, taskId: string, limit = 1000): Array<TaskOccurrence & { agent: string | null; project: string | null }> {
  const rows = db
    .prepare(
      `SELECT o.task_id, o.session_id, o.event_seq, o.ts, o.prompt, o.outcome, s.agent, s.project
       FROM task_occurrences o LEFT JOIN sessions s ON s.id = o.session_id
       WHERE o.task_id = ? ORDER BY o.ts, o.session_id, o.event_seq LIMIT ?`,
    )
    .all(taskId, limit) as Array<{
    task_id: string;
    session_id: string;
    event_seq: number;
    ts: number | null;
    prompt: string;
    outcome: string | null;
    agent: string | null;
    project: string | null;
  }>;
  return rows.map((r) => ({
    taskId: r.task_id,
    sessionId: r.session_id,
    eventSeq: r.event_seq,
    ts: r.ts,
    prompt: r.prompt,
    outcome: r.outcome ? (JSON.parse(r.outcome) as Record<string, unknown>) : {},
    agent: r.agent,
    project: r.project,
  }));
}

/** Distinct projects a task was seen in (a cross-project task has project null). */
export function taskProjects(db: Db, taskId: string): string[] {
  return (
    db
      .prepare(
        `SELECT DISTINCT s.project FROM task_occurrences o JOIN sessions s ON s.id = o.session_id WHERE o.task_id = ? AND s.project IS NOT NULL ORDER BY s.project`,
      )
      .all(taskId) as Array<{ project: string }>
  ).map((r) => r.project);
}

/** Where and when the latest occurrence of a task happened: the repository state a replay of it starts from. */
export function latestOccurrenceSession(db: Db, taskId: string): { cwd: string | null; project: string | null; gitBranch: string | null; startedAt: number | null; ts: number | null } | undefined {
  const row = db
    .prepare(
      `SELECT s.cwd, s.project, s.git_branch, s.started_at, o.ts
       FROM task_occurrences o JOIN sessions s ON s.id = o.session_id
       WHERE o.task_id = ? AND (s.cwd IS NOT NULL OR s.project IS NOT NULL)
       ORDER BY COALESCE(o.ts, s.started_at) DESC LIMIT 1`,
    )
    .get(taskId) as { cwd: string | null; project: string | null; git_branch: string | null; started_at: number | null; ts: number | null } | undefined;
  return row ? { cwd: row.cwd, project: row.project, gitBranch: row.git_branch, startedAt: row.started_at, ts: row.ts } : undefined;
}
