/**
 * The connection to a team's shared PostgreSQL (issue 42, team mode), through node-postgres.
 *
 * The URL may carry a password; it never leaves this module in a message: every error and every
 * description of the server names it by `describeServer` (user@host:port/database), and an error
 * from the driver is re-thrown with the password cut out of its text.
 */
import pg from 'pg';
import { SleepError } from '../../core/errors.js';

export type PgPool = pg.Pool;
export type PgClient = pg.PoolClient;

/** What a URL names, without its secret: user@host:port/database. */
export function describeServer(url: string): string {
  const u = parseTeamUrl(url);
  return `${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.hostname}:${u.port || '5432'}${u.pathname || '/'}`;
}

/** A postgres:// or postgresql:// URL, or a clear error (a typo must not become a silent local fallback). */
export function parseTeamUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new SleepError('INVALID_INPUT', 'the team server must be a URL like postgres://user@host:5432/database', {
      hint: 'pass the URL your team uses (the password may be left out: PGPASSWORD or ~/.pgpass supply it)',
    });
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new SleepError('INVALID_INPUT', `the team server must be a postgres:// URL, not ${u.protocol}//…`, { hint: 'e.g. postgres://alice@db.example.com:5432/skillopt' });
  }
  return u;
}

/** The URL with its password removed (what the non-secret state file keeps), and the password apart. */
export function splitPassword(url: string): { url: string; password: string | null } {
  const u = parseTeamUrl(url);
  // libpq also reads a password from the query (?password=…): kept apart the same way
  const inQuery = u.searchParams.get('password');
  const password = u.password ? decodeURIComponent(u.password) : inQuery;
  u.password = '';
  u.searchParams.delete('password');
  return { url: u.toString(), password };
}

/** The password cut out of any text (a driver message may quote the connection string). */
export function scrub(text: string, secret: string | null | undefined): string {
  if (!secret) return text;
  return text.split(secret).join('***').split(encodeURIComponent(secret)).join('***');
}

/** Errors that mean "the server went away or is not there yet": a push retries them, nothing else. */
export function isTransient(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  const code = e?.code ?? '';
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH'].includes(code)) return true;
  // admin_shutdown, crash_shutdown, cannot_connect_now, connection exceptions (class 08), too_many_connections
  if (['57P01', '57P02', '57P03', '53300'].includes(code) || code.startsWith('08')) return true;
  return /Connection terminated|terminating connection|server closed the connection|Client has encountered a connection error|not queryable/i.test(e?.message ?? '');
}

export interface PoolOptions {
  /** a password to use when the URL has none (from the credentials file); else PGPASSWORD / ~/.pgpass */
  password?: string | null;
  max?: number;
  connectTimeoutMs?: number;
}

/** The bytes this process wrote to the pool's sockets (statements, parameters, protocol), live and closed connections. */
const wireBytes = new WeakMap<PgPool, () => number>();

/** What the pool sent on the wire so far: the egress a push records in the ledger. */
export function bytesSent(pool: PgPool): number {
  return wireBytes.get(pool)?.() ?? 0;
}

interface WithSocket {
  connection?: { stream?: { bytesWritten?: number } };
}

/** A pool of connections. Its idle clients' errors (a server restart) are swallowed: the next query reconnects. */
export function openPool(url: string, opts: PoolOptions = {}): PgPool {
  const u = parseTeamUrl(url);
  // node-postgres lets the connection string's fields win over the options: the password goes into
  // the URL it is handed (in memory only); without one, it reads PGPASSWORD or ~/.pgpass itself
  if (opts.password && !u.password) u.password = encodeURIComponent(opts.password);
  const pool = new pg.Pool({
    connectionString: u.toString(),
    max: opts.max ?? 4,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
    idleTimeoutMillis: 10_000,
    application_name: 'skillopt-sleep',
  });
  // an idle connection cut by a restart must not crash the process; the next checkout opens a new one
  pool.on('error', () => {});
  // counts the real bytes on the wire, so "an unchanged re-push sends almost nothing" is measured, not assumed
  const live = new Set<WithSocket>();
  let closed = 0;
  const written = (c: WithSocket) => c.connection?.stream?.bytesWritten ?? 0;
  pool.on('connect', (c) => live.add(c as unknown as WithSocket));
  pool.on('remove', (c) => {
    const s = c as unknown as WithSocket;
    if (live.delete(s)) closed += written(s);
  });
  wireBytes.set(pool, () => closed + [...live].reduce((n, c) => n + written(c), 0));
  return pool;
}

/** Runs `fn` in one transaction on one connection; rolls back on any error. */
export async function inTransaction<T>(pool: PgPool, fn: (c: PgClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  let broken = false;
  // a connection cut mid-transaction (a server restart) is also emitted as an 'error' event on the
  // client: the failing query already rejects with it, so the event must not crash the process
  const onError = () => {
    broken = true;
  };
  c.on('error', onError);
  try {
    await c.query('BEGIN');
    const out = await fn(c);
    await c.query('COMMIT');
    return out;
  } catch (err) {
    try {
      await c.query('ROLLBACK');
    } catch {
      broken = true; // the connection itself died: drop it instead of returning it to the pool
    }
    throw err;
  } finally {
    c.removeListener('error', onError);
    c.release(broken);
  }
}

/** A driver error as a SleepError whose text never holds the password. */
export function serverError(err: unknown, url: string, secret: string | null | undefined, doing: string): SleepError {
  const raw = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: string })?.code;
  const where = describeServer(url);
  if (code === '28P01' || code === '28000') {
    return new SleepError('BACKEND_AUTH', `${doing}: ${where} refused the credentials (${scrub(raw, secret)})`, {
      hint: 'check the user and password: the URL, PGPASSWORD or ~/.pgpass (`skillopt-sleep team join` again with the right URL)',
    });
  }
  if (code === '42501') {
    return new SleepError('NO_PERMISSION', `${doing}: the role lacks a permission on ${where} (${scrub(raw, secret)})`, {
      hint: 'docs/TEAM.md lists the permissions the role needs (CONNECT, CREATE on the schema for the first join)',
    });
  }
  return new SleepError(isTransient(err) ? 'BACKEND_UNAVAILABLE' : 'INTERNAL', `${doing} on ${where}: ${scrub(raw, secret)}`, {
    hint: isTransient(err) ? 'is the server up and reachable from here? `skillopt-sleep doctor` checks the connection' : 'run with --debug for details',
  });
}
