/**
 * A member's push (issue 42): what mining produced for ONE opted-in repository goes to the team's
 * server, redacted, tagged with the opaque member id. Never a transcript: only the mined task
 * records (intent, context, judge, corrections, outcome evidence), as `tasks` holds them.
 *
 * - Idempotent: a task's row is keyed by the hash of its content; a batch sent twice (a retry, a
 *   kill -9 between the commit and the local record) inserts nothing the second time.
 * - Incremental: a local record (task → content hash the server holds) skips what is unchanged; a
 *   cheap count on the server checks that record, and a mismatch (a wipe, a restored server) falls
 *   back to reading the member's hashes from the server.
 * - Retried: a batch that meets a transient failure (the server restarting, a cut connection) is
 *   sent again with a growing wait; anything else fails loudly.
 * - Batched: one statement per batch (the rows as one JSON parameter), one transaction each.
 * - Recorded: the caller writes the push to the egress ledger with the real bytes on the wire.
 */
import fs from 'node:fs';
import { sha256, writeFileAtomic } from '../core/fsutil.js';
import { redactValue } from '../core/redact.js';
import { SleepError, errorMessage } from '../core/errors.js';
import type { Task } from '../core/records.js';
import type { Db } from '../store/db.js';
import { listOccurrences, listTasks } from '../store/repos/tasks.js';
import { bytesSent, isTransient } from '../store/team/client.js';
import * as repo from '../store/team/repo.js';
import type { RepoKey } from './contract.js';
import type { TeamServerConnection } from './server.js';

/** One task ready to leave the machine: already redacted and stripped of local paths and ids. */
export interface PushItem {
  /** the member's task, hashed with the member id: stable across re-mining, meaningless elsewhere */
  taskRef: string;
  sessionKey: string;
  task: Task;
}

export interface RetryPolicy {
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 10, baseMs: 250, maxMs: 5_000 };
export const DEFAULT_BATCH = 250;

export interface PushOptions {
  memberId: string;
  repoKey: RepoKey;
  items: PushItem[];
  /** where the local record of what the server holds lives (task ref → content hash) */
  pushedFile: string;
  batchSize?: number;
  retry?: RetryPolicy;
  /** after each committed batch (progress; a fault test kills the process here) */
  onBatch?: (sent: number, total: number) => void;
}

export interface PushOutcome {
  /** tasks of the repository on this machine */
  tasks: number;
  /** of those, already on the server with this content: not sent */
  unchanged: number;
  /** sent in this push */
  sent: number;
  /** new rows on the server (less than `sent` when a retried batch had landed before) */
  inserted: number;
  /** older contents of re-mined tasks replaced */
  replaced: number;
  /** tasks no longer active here, removed from the server */
  retired: number;
  batches: number;
  /** transient failures met and retried */
  retries: number;
  /** the local record disagreed with the server and was rebuilt from it */
  resynced: boolean;
  /** bytes written to the server's connection during the push (statements, parameters, protocol) */
  bytes: number;
}

/** The idempotency key: the redacted task's content (and whose and which repository's it is). */
export function contentHashOf(memberId: string, repoKey: RepoKey, task: Task): string {
  return sha256(JSON.stringify({ m: memberId, r: repoKey, t: task }));
}

export function readPushed(file: string): Map<string, string> {
  try {
    const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as { hashes?: Record<string, string> };
    return new Map(Object.entries(raw.hashes ?? {}));
  } catch {
    // none yet, or unreadable: the server's own count decides what to send (nothing is lost either way)
    return new Map();
  }
}

function writePushed(file: string, pushed: Map<string, string>): void {
  writeFileAtomic(file, JSON.stringify({ version: 1, hashes: Object.fromEntries(pushed) }) + '\n', { mode: 0o600 });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn`, again after a transient failure (growing waits); the last failure, or any other, is thrown. */
export async function withRetry<T>(policy: RetryPolicy, fn: () => Promise<T>, onRetry: () => void = () => {}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= policy.attempts || !isTransient(err)) throw err;
      onRetry();
      await sleep(Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1)));
    }
  }
}

/** Pushes one repository's items; see the module comment for the guarantees. */
export async function pushItems(server: TeamServerConnection, opts: PushOptions): Promise<PushOutcome> {
  const { memberId, repoKey } = opts;
  const retry = opts.retry ?? DEFAULT_RETRY;
  const batchSize = Math.max(1, opts.batchSize ?? DEFAULT_BATCH);
  const before = bytesSent(server.pool);
  let retries = 0;
  const again = <T>(doing: string, fn: () => Promise<T>) =>
    withRetry(retry, fn, () => retries++).catch((err: unknown) => {
      throw server.describeError(err, doing);
    });

  const pushed = readPushed(opts.pushedFile);
  // the local record is a cache of the server: one count says whether it still holds
  const onServer = await again('counting what the server holds', () => repo.memberTaskCount(server.pool, memberId, repoKey));
  let resynced = false;
  if (onServer !== pushed.size) {
    const truth = await again('reading what the server holds', () => repo.memberTaskHashes(server.pool, memberId, repoKey));
    pushed.clear();
    for (const [k, v] of truth) pushed.set(k, v);
    resynced = true;
  }

  const hashed = opts.items.map((it) => ({ it, hash: contentHashOf(memberId, repoKey, it.task) }));
  const current = new Set(hashed.map((h) => h.it.taskRef));
  const gone = [...pushed.keys()].filter((ref) => !current.has(ref));
  let retired = 0;
  if (gone.length) {
    retired = await again('removing tasks no longer active', () => repo.retireTasks(server.pool, memberId, repoKey, gone));
    for (const ref of gone) pushed.delete(ref);
    writePushed(opts.pushedFile, pushed);
  }

  const pending = hashed.filter((h) => pushed.get(h.it.taskRef) !== h.hash);
  let inserted = 0;
  let replaced = 0;
  let batches = 0;
  for (let i = 0; i < pending.length; i += batchSize) {
    const chunk = pending.slice(i, i + batchSize);
    const rows: repo.PushRow[] = chunk.map(({ it, hash }) => ({ repo_key: repoKey, content_hash: hash, member_id: memberId, task_ref: it.taskRef, session_key: it.sessionKey, task: it.task }));
    const out = await again(`pushing batch ${batches + 1}`, () => repo.pushBatch(server.pool, rows));
    inserted += out.inserted;
    replaced += out.replaced;
    batches++;
    for (const { it, hash } of chunk) pushed.set(it.taskRef, hash);
    // after the commit: a kill before this line only makes the next push send the batch again (a no-op)
    writePushed(opts.pushedFile, pushed);
    opts.onBatch?.(Math.min(i + batchSize, pending.length), pending.length);
  }
  if (!gone.length && !pending.length && resynced) writePushed(opts.pushedFile, pushed);
  return { tasks: hashed.length, unchanged: hashed.length - pending.length, sent: pending.length, inserted, replaced, retired, batches, retries, resynced, bytes: bytesSent(server.pool) - before };
}

/**
 * The tasks of one project as they may leave the machine: active, of this project only (a task seen
 * across projects may carry another project's words, so it stays home), every string redacted, the
 * project's path and the home folder replaced, session ids hashed with the member id.
 */
export function gatherPushItems(db: Db, opts: { project: string; memberId: string; home: string }): { items: PushItem[]; redactions: number } {
  let redactions = 0;
  const key = (kind: string, id: string) => sha256(`${opts.memberId}:${kind}:${id}`).slice(0, 32);
  const localPaths = (s: string) => {
    let out = s.split(opts.project).join('.');
    if (opts.home && opts.home.length > 1) out = out.split(opts.home).join('~');
    return out;
  };
  const items = listTasks(db, { project: opts.project, status: 'active' }).map((task): PushItem => {
    const session = listOccurrences(db, task.id, 1)[0]?.sessionId ?? `task:${task.id}`;
    const clean = redactValue(task, (n) => (redactions += n));
    const view = JSON.parse(localPaths(JSON.stringify(clean))) as Task;
    view.project = null;
    if (view.correctionSources) view.correctionSources = view.correctionSources.map((s) => ({ session: s.session ? key('session', s.session) : null, at: s.at }));
    return { taskRef: key('task', task.id), sessionKey: key('session', session), task: view };
  });
  return { items, redactions };
}

/** A failure's one line for the ledger (never the password: the server's describeError already scrubbed it). */
export function pushErrorLine(err: unknown): string {
  return err instanceof SleepError ? err.message : errorMessage(err);
}
