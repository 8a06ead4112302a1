/**
 * The team server's repository functions: every SQL statement of team mode (the house keeps SQL in
 * src/store). Times the server compares (lease expiry) are the SERVER's clock, so members whose
 * clocks disagree still agree on who holds a night.
 */
import { SleepError } from '../../core/errors.js';
import { inTransaction, type PgPool } from './client.js';

/** Milliseconds since the epoch on the server's clock (changes within a transaction, unlike now()). */
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

export async function upsertMember(pool: PgPool, memberId: string, now = Date.now()): Promise<void> {
  await pool.query('INSERT INTO members (member_id, joined_at) VALUES ($1, $2) ON CONFLICT (member_id) DO NOTHING', [memberId, now]);
}

export async function optInRepo(pool: PgPool, memberId: string, repoKey: string, now = Date.now()): Promise<void> {
  await upsertMember(pool, memberId, now);
  await pool.query('INSERT INTO member_repos (repo_key, member_id, joined_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [repoKey, memberId, now]);
}

export interface WipeCounts {
  tasks: number;
  repos: number;
  member: number;
}

/**
 * A member leaves one repository (its opt-in row goes; its tasks too with `wipe`), or, with no
 * repository left, the team: with `wipe` its member row goes as well.
 */
export async function leaveRepo(pool: PgPool, memberId: string, repoKey: string, opts: { wipe: boolean; lastRepo: boolean }): Promise<WipeCounts> {
  return inTransaction(pool, async (c) => {
    const tasks = opts.wipe ? ((await c.query('DELETE FROM pooled_tasks WHERE repo_key = $1 AND member_id = $2', [repoKey, memberId])).rowCount ?? 0) : 0;
    const repos = (await c.query('DELETE FROM member_repos WHERE repo_key = $1 AND member_id = $2', [repoKey, memberId])).rowCount ?? 0;
    let member = 0;
    if (opts.wipe && opts.lastRepo) {
      const rest = (await c.query<{ n: string }>('SELECT count(*) AS n FROM pooled_tasks WHERE member_id = $1', [memberId])).rows[0]?.n;
      if (Number(rest) === 0) member = (await c.query('DELETE FROM members WHERE member_id = $1', [memberId])).rowCount ?? 0;
    }
    return { tasks, repos, member };
  });
}

/** One task as a push sends it (the JSON of a batch is what the ledger counts as bytes sent). */
export interface PushRow {
  repo_key: string;
  content_hash: string;
  member_id: string;
  task_ref: string;
  session_key: string;
  task: unknown;
}

export interface BatchOutcome {
  /** rows that were not on the server before */
  inserted: number;
  /** older contents of the same tasks, replaced by these */
  replaced: number;
  /** the bytes of the statements' parameters (the batch as JSON, then its keys) */
  bytes: number;
}

/**
 * One batch, in one transaction: new contents are inserted (an already-present content hash is left
 * as it is: a retried or repeated batch changes nothing), then each task's older contents from the
 * same member are removed, so a re-mined task is pooled once.
 */
export async function pushBatch(pool: PgPool, rows: PushRow[], now = Date.now()): Promise<BatchOutcome> {
  if (!rows.length) return { inserted: 0, replaced: 0, bytes: 0 };
  const json = JSON.stringify(rows);
  const keys = JSON.stringify(rows.map((r) => ({ repo_key: r.repo_key, content_hash: r.content_hash, member_id: r.member_id, task_ref: r.task_ref })));
  return inTransaction(pool, async (c) => {
    const ins = await c.query(
      `INSERT INTO pooled_tasks (repo_key, content_hash, member_id, task_ref, session_key, task, pushed_at)
       SELECT x.repo_key, x.content_hash, x.member_id, x.task_ref, x.session_key, x.task, $2
       FROM jsonb_to_recordset($1::jsonb) AS x(repo_key TEXT, content_hash TEXT, member_id TEXT, task_ref TEXT, session_key TEXT, task JSONB)
       ON CONFLICT (repo_key, content_hash) DO NOTHING`,
      [json, now],
    );
    const del = await c.query(
      `DELETE FROM pooled_tasks p
       USING jsonb_to_recordset($1::jsonb) AS x(repo_key TEXT, content_hash TEXT, member_id TEXT, task_ref TEXT)
       WHERE p.repo_key = x.repo_key AND p.member_id = x.member_id AND p.task_ref = x.task_ref AND p.content_hash <> x.content_hash`,
      // the keys only: the tasks were sent once already, by the INSERT
      [keys],
    );
    const members = [...new Set(rows.map((r) => r.member_id))];
    await c.query('UPDATE members SET last_push_at = $2 WHERE member_id = ANY($1::text[])', [members, now]);
    return { inserted: ins.rowCount ?? 0, replaced: del.rowCount ?? 0, bytes: Buffer.byteLength(json) + Buffer.byteLength(keys) };
  });
}

/** Removes a member's tasks that are no longer active on its machine (disabled, deleted, left the repository). */
export async function retireTasks(pool: PgPool, memberId: string, repoKey: string, taskRefs: string[]): Promise<number> {
  if (!taskRefs.length) return 0;
  const r = await pool.query('DELETE FROM pooled_tasks WHERE repo_key = $1 AND member_id = $2 AND task_ref = ANY($3::text[])', [repoKey, memberId, taskRefs]);
  return r.rowCount ?? 0;
}

/** How many tasks the server holds of this member in this repository (a cheap check that the local push record still holds). */
export async function memberTaskCount(pool: PgPool, memberId: string, repoKey: string): Promise<number> {
  const r = await pool.query<{ n: string }>('SELECT count(*) AS n FROM pooled_tasks WHERE repo_key = $1 AND member_id = $2', [repoKey, memberId]);
  return Number(r.rows[0]?.n ?? 0);
}

/** The content hashes the server holds of this member in this repository, by task. */
export async function memberTaskHashes(pool: PgPool, memberId: string, repoKey: string): Promise<Map<string, string>> {
  const r = await pool.query<{ task_ref: string; content_hash: string }>('SELECT task_ref, content_hash FROM pooled_tasks WHERE repo_key = $1 AND member_id = $2', [repoKey, memberId]);
  return new Map(r.rows.map((x) => [x.task_ref, x.content_hash]));
}

export interface PooledRow {
  repoKey: string;
  memberId: string;
  sessionKey: string;
  contentHash: string;
  task: unknown;
}

export async function listPooledTasks(pool: PgPool, repoKey: string): Promise<PooledRow[]> {
  const r = await pool.query<{ member_id: string; session_key: string; content_hash: string; task: unknown }>(
    'SELECT member_id, session_key, content_hash, task FROM pooled_tasks WHERE repo_key = $1 ORDER BY pushed_at, content_hash',
    [repoKey],
  );
  return r.rows.map((x) => ({ repoKey, memberId: x.member_id, sessionKey: x.session_key, contentHash: x.content_hash, task: x.task }));
}

export interface RepoCounts {
  members: number;
  optedIn: number;
  sessions: number;
  tasks: number;
  mine: number;
}

export async function repoCounts(pool: PgPool, repoKey: string, memberId: string): Promise<RepoCounts> {
  const r = await pool.query<{ members: string; sessions: string; tasks: string; mine: string; opted: string }>(
    `SELECT count(DISTINCT member_id) AS members, count(DISTINCT session_key) AS sessions, count(*) AS tasks,
            count(*) FILTER (WHERE member_id = $2) AS mine,
            (SELECT count(*) FROM member_repos WHERE repo_key = $1) AS opted
     FROM pooled_tasks WHERE repo_key = $1`,
    [repoKey, memberId],
  );
  const x = r.rows[0];
  return { members: Number(x?.members ?? 0), optedIn: Number(x?.opted ?? 0), sessions: Number(x?.sessions ?? 0), tasks: Number(x?.tasks ?? 0), mine: Number(x?.mine ?? 0) };
}

export interface LeaseRow {
  repoKey: string;
  holder: string;
  token: string;
  expiresAt: number;
  /** the server's clock when this was read, to say "expired" without trusting ours */
  serverNow: number;
}

/**
 * Takes the repository's night when no live lease exists (none yet, released, or expired), with a
 * fresh fencing token. Atomic: concurrent callers serialize on the row, and only one sees it free.
 */
export async function acquireLease(pool: PgPool, repoKey: string, holder: string, ttlMs: number): Promise<LeaseRow | null> {
  const r = await pool.query<{ token: string; expires_at: string; now: string }>(
    `INSERT INTO night_leases (repo_key, holder, token, expires_at, acquired_at)
     VALUES ($1, $2, nextval('lease_tokens'), ${NOW_MS} + $3, ${NOW_MS})
     ON CONFLICT (repo_key) DO UPDATE SET holder = EXCLUDED.holder, token = EXCLUDED.token, expires_at = EXCLUDED.expires_at, acquired_at = EXCLUDED.acquired_at
     WHERE night_leases.expires_at <= EXCLUDED.acquired_at
     RETURNING token, expires_at, acquired_at AS now`,
    [repoKey, holder, Math.max(1, Math.round(ttlMs))],
  );
  const x = r.rows[0];
  return x ? { repoKey, holder, token: String(x.token), expiresAt: Number(x.expires_at), serverNow: Number(x.now) } : null;
}

/** Extends the lease when its token is still the current one; null when it was taken (the night must stop). */
export async function renewLease(pool: PgPool, repoKey: string, token: string, ttlMs: number): Promise<number | null> {
  const r = await pool.query<{ expires_at: string }>(`UPDATE night_leases SET expires_at = ${NOW_MS} + $3 WHERE repo_key = $1 AND token = $2 RETURNING expires_at`, [
    repoKey,
    token,
    Math.max(1, Math.round(ttlMs)),
  ]);
  return r.rows[0] ? Number(r.rows[0].expires_at) : null;
}

export async function releaseLease(pool: PgPool, repoKey: string, token: string): Promise<void> {
  await pool.query(`UPDATE night_leases SET expires_at = ${NOW_MS} WHERE repo_key = $1 AND token = $2`, [repoKey, token]);
}

export async function readLease(pool: PgPool, repoKey: string): Promise<LeaseRow | null> {
  const r = await pool.query<{ holder: string; token: string; expires_at: string; now: string }>(`SELECT holder, token, expires_at, ${NOW_MS} AS now FROM night_leases WHERE repo_key = $1`, [repoKey]);
  const x = r.rows[0];
  return x ? { repoKey, holder: x.holder, token: String(x.token), expiresAt: Number(x.expires_at), serverNow: Number(x.now) } : null;
}

/** Runs `fn` only while `token` is the repository's current lease (the lease row is locked meanwhile). */
async function fenced<T>(pool: PgPool, repoKey: string, token: string, doing: string, fn: (c: import('./client.js').PgClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, async (c) => {
    const r = await c.query<{ token: string }>('SELECT token FROM night_leases WHERE repo_key = $1 FOR UPDATE', [repoKey]);
    if (String(r.rows[0]?.token ?? '') !== token) {
      throw new SleepError('STALE', `${doing} refused: this night's lease (token ${token}) was taken over by another night`, {
        hint: 'the lease expired while this night ran; the night that holds it now carries on from the last checkpoint',
      });
    }
    return fn(c);
  });
}

export async function saveCheckpoint(pool: PgPool, repoKey: string, token: string, state: unknown): Promise<void> {
  await fenced(pool, repoKey, token, 'saving the checkpoint', async (c) => {
    await c.query(
      `INSERT INTO night_checkpoints (repo_key, token, state, saved_at) VALUES ($1, $2, $3::jsonb, $4)
       ON CONFLICT (repo_key) DO UPDATE SET token = EXCLUDED.token, state = EXCLUDED.state, saved_at = EXCLUDED.saved_at`,
      [repoKey, token, JSON.stringify(state ?? null), Date.now()],
    );
  });
}

export async function loadCheckpoint(pool: PgPool, repoKey: string): Promise<unknown | null> {
  const r = await pool.query<{ state: unknown }>('SELECT state FROM night_checkpoints WHERE repo_key = $1', [repoKey]);
  return r.rows[0] ? r.rows[0].state : null;
}

/** The night's summary; the finished night's checkpoint goes with it (the next night starts afresh). */
export async function recordNightSummary(pool: PgPool, repoKey: string, token: string, status: string, summary: unknown, finishedAt: number): Promise<void> {
  await fenced(pool, repoKey, token, 'recording the night', async (c) => {
    await c.query('INSERT INTO night_summaries (repo_key, token, status, summary, finished_at) VALUES ($1, $2, $3, $4::jsonb, $5)', [repoKey, token, status, JSON.stringify(summary), finishedAt]);
    await c.query('DELETE FROM night_checkpoints WHERE repo_key = $1', [repoKey]);
  });
}

export async function lastNightSummary(pool: PgPool, repoKey: string): Promise<unknown | null> {
  const r = await pool.query<{ summary: unknown }>('SELECT summary FROM night_summaries WHERE repo_key = $1 ORDER BY finished_at DESC, id DESC LIMIT 1', [repoKey]);
  return r.rows[0]?.summary ?? null;
}
