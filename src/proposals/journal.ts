/**
 * The apply/revert journal and its bookkeeping: where backups and the journal of an in-flight
 * decision live, the hash of a live file, the record of what an apply created (`applied.json`: the
 * folders it made, so revert takes them away again), and the two "finish" steps that record a
 * decision that reached the disk. Both the decisions (apply.ts) and crash recovery (recover.ts) use
 * these, so they live here and neither of those files imports the other.
 *
 * Journals and apply records are sealed: an HMAC-SHA256 over their JSON, keyed with a random
 * secret kept beside them (`<state>/journal.key`, mode 0600). A file edited by hand (or by a tool
 * that does not know the key) fails the check, and recovery and revert refuse to act on it. The
 * seal is the first line; recovery also checks every path in a journal against the store's own
 * record of the proposal, so even a validly sealed journal cannot point anywhere else.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import type { Proposal } from '../core/records.js';
import { SleepError } from '../core/errors.js';
import { isInside, systemPathProblem } from '../core/write-roots.js';
import { ensurePrivateDir, readIfExists, sha256, writeFileAtomic } from '../core/fsutil.js';
import { insertReceipt, updateProposalStatus } from '../store/repos/proposals.js';
import { appendDecision } from './decision-log.js';

/** Journal of an in-flight apply or revert; its presence means "not finished". */
export interface Journal {
  v: 1;
  action: 'apply' | 'revert';
  proposalId: string;
  path: string;
  /** hash of the live file before this action ('' = absent) */
  beforeHash: string;
  /** hash the live file has once the action is done ('' = absent) */
  afterHash: string;
  backupPath: string;
  pid: number;
  startedAt: number;
  editIds?: string[];
  forced?: boolean;
  /** folders that did not exist when the apply started and that it creates (top-down), for the file and its copies */
  createdDirs?: string[];
  /** the validation score the chosen subset re-scored to (partial apply from the review) */
  promisedScore?: number | null;
}

const HASH = z.string().regex(/^([0-9a-f]{64})?$/, 'not a sha256');
/** Proposal ids are `p_<base36 time><hex>` (core/ids.ts); anything else is not ours. */
export const PROPOSAL_ID = /^p_[a-z0-9]+$/;

export const JournalSchema = z
  .object({
    v: z.literal(1),
    action: z.enum(['apply', 'revert']),
    proposalId: z.string().regex(PROPOSAL_ID),
    path: z.string().min(1),
    beforeHash: HASH,
    afterHash: HASH,
    backupPath: z.string().min(1),
    pid: z.number().int().positive(),
    startedAt: z.number(),
    editIds: z.array(z.string()).optional(),
    forced: z.boolean().optional(),
    createdDirs: z.array(z.string().min(1)).optional(),
    promisedScore: z.number().nullable().optional(),
  })
  .strict();

/** What an apply created, kept until the revert that takes it away. */
export const AppliedRecordSchema = z
  .object({
    v: z.literal(1),
    proposalId: z.string().regex(PROPOSAL_ID),
    path: z.string().min(1),
    createdDirs: z.array(z.string().min(1)),
  })
  .strict();
export type AppliedRecord = z.infer<typeof AppliedRecordSchema>;

/** The secret the seals are keyed with; made once, atomically (two first writers agree on one key). */
function sealKey(paths: SleepPaths): Buffer {
  const file = path.join(paths.stateDir, 'journal.key');
  try {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  ensurePrivateDir(paths.stateDir);
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, crypto.randomBytes(32).toString('hex') + '\n', { mode: 0o600 });
  try {
    fs.linkSync(tmp, file); // fails if another process made the key first: then theirs is the key
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
}

function sealOf(paths: SleepPaths, body: string): string {
  return crypto.createHmac('sha256', sealKey(paths)).update(body).digest('hex');
}

/** Writes `value` as `seal:<hmac>` on the first line and its JSON after it. */
export function writeSealed(paths: SleepPaths, file: string, value: unknown): void {
  const body = JSON.stringify(value, null, 2);
  writeFileAtomic(file, `seal:${sealOf(paths, body)}\n${body}\n`, { mode: 0o600 });
}

/**
 * Reads a sealed file and checks it against `schema`; throws SleepError INVALID_INPUT saying what
 * is wrong (no seal, a seal that does not match, a shape that is not ours). `undefined`: no file.
 */
export function readSealed<T>(paths: SleepPaths, file: string, schema: z.ZodType<T>): T | undefined {
  const text = readIfExists(file);
  if (text === undefined) return undefined;
  const bad = (why: string) => new SleepError('INVALID_INPUT', `${file} ${why}`, { details: { file } });
  const nl = text.indexOf('\n');
  const m = /^seal:([0-9a-f]{64})$/.exec(nl < 0 ? text : text.slice(0, nl));
  if (!m) throw bad('has no seal (it was not written by skillopt-sleep, or was edited by hand)');
  const body = text.slice(nl + 1).replace(/\n$/, '');
  const expected = sealOf(paths, body);
  if (!crypto.timingSafeEqual(Buffer.from(m[1], 'hex'), Buffer.from(expected, 'hex'))) throw bad('does not match its seal (it was edited after skillopt-sleep wrote it)');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw bad('is not valid JSON');
  }
  const r = schema.safeParse(parsed);
  if (!r.success) throw bad(`is not a record skillopt-sleep writes (${r.error.issues[0]?.path.join('.') || 'value'}: ${r.error.issues[0]?.message})`);
  return r.data;
}

export function appliedRecordPath(paths: SleepPaths, proposalId: string): string {
  return path.join(backupDir(paths, proposalId), 'applied.json');
}

export function writeAppliedRecord(paths: SleepPaths, rec: AppliedRecord): void {
  ensurePrivateDir(backupDir(paths, rec.proposalId));
  writeSealed(paths, appliedRecordPath(paths, rec.proposalId), rec);
}

/**
 * The folders an apply of `p` created and may take away again: only ancestors (or the folder) of
 * the file or of one of its copies, never a project root or anything above one. A list that names
 * anything else was not written by us and is refused whole.
 */
export function validCreatedDirs(p: Proposal, dirs: string[], env: NodeJS.ProcessEnv): string | null {
  const home = path.resolve(env.HOME ?? os.homedir());
  const files = [p.skillTarget.path, ...(p.skillTarget.mirrors ?? []).map((m) => m.path)];
  const project = p.skillTarget.project ? path.resolve(p.skillTarget.project) : null;
  for (const d of dirs) {
    if (!path.isAbsolute(d) || d.split(/[\\/]/).includes('..')) return `${d} is not a plain absolute path`;
    const ancestorOf = (f: string) => {
      const rel = path.relative(d, path.dirname(f));
      return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
    };
    if (!files.some(ancestorOf)) return `${d} is not a folder of the skill file or its copies`;
    if (isInside(home, d) || systemPathProblem(d, env)) return `${d} is your home folder, one above it, or a system folder`;
    if (project !== null && files.some((f) => f.startsWith(project + path.sep)) && !d.startsWith(project + path.sep)) return `${d} is not inside the project ${project}`;
  }
  return null;
}

/** Of the folders an apply makes, those it may record (and so take away again): never the home folder, one above it or a system folder. */
export function removableDirs(p: Proposal, dirs: string[], env: NodeJS.ProcessEnv): string[] {
  return dirs.filter((d) => validCreatedDirs(p, [d], env) === null);
}

/** What an apply writes, for the record: which accepted edits, out of how many, and the score promised. */
export function appliedRecord(p: Proposal, opts: { editIds?: string[]; promisedScore?: number | null; edited?: boolean }): NonNullable<Proposal['applied']> {
  const accepted = p.edits.filter((e) => e.status === 'accepted').map((e) => e.id);
  if (opts.edited) return { editIds: [], of: accepted.length, valAfter: null, edited: true };
  const partial = !!opts.editIds && opts.editIds.length > 0;
  if (!partial) return { editIds: accepted, of: accepted.length, valAfter: p.candidateScore };
  const chosen = accepted.filter((id) => opts.editIds!.includes(id));
  // every edit chosen is the whole proposal: its own score holds
  const all = chosen.length === accepted.length;
  return { editIds: chosen, of: accepted.length, valAfter: all ? p.candidateScore : (opts.promisedScore ?? null) };
}

export function backupDir(paths: SleepPaths, proposalId: string): string {
  return path.join(paths.backupsDir, proposalId);
}

export function journalPath(paths: SleepPaths, proposalId: string): string {
  return path.join(backupDir(paths, proposalId), 'journal.json');
}

/** Backup of the live file as it was before apply; `<name>.absent` marks "there was no file". */
export function backupPathFor(paths: SleepPaths, p: Proposal): string {
  return path.join(backupDir(paths, p.id), path.basename(p.skillTarget.path));
}

export function liveHash(file: string): string {
  const text = readIfExists(file);
  return text === undefined ? '' : sha256(text);
}

export function writeJournal(paths: SleepPaths, j: Journal): void {
  ensurePrivateDir(backupDir(paths, j.proposalId));
  writeSealed(paths, journalPath(paths, j.proposalId), j);
}

export function clearJournal(paths: SleepPaths, proposalId: string): void {
  fs.rmSync(journalPath(paths, proposalId), { force: true });
}

/** Records an apply that reached the disk (also used by recovery). */
export function finishApply(db: Db, a: { proposal: Proposal; path: string; beforeHash: string; afterHash: string; backupPath: string; now: number; note: string | null; applied?: Proposal['applied'] }): Proposal {
  const applied = a.applied ?? appliedRecord(a.proposal, {});
  const receipt = { proposalId: a.proposal.id, action: 'apply' as const, ts: a.now, path: a.path, beforeHash: a.beforeHash, afterHash: a.afterHash, backupPath: a.backupPath, note: a.note };
  const next = db.transaction(() => {
    const out = updateProposalStatus(db, a.proposal.id, 'applied', { decidedAt: a.now, reason: null, patch: { applied } });
    insertReceipt(db, receipt);
    return out;
  }).immediate();
  appendDecision(a.proposal.dir, { action: 'apply', ts: a.now, status: 'applied', receipt, applied });
  return next;
}

export function finishRevert(db: Db, a: { proposal: Proposal; path: string; beforeHash: string; afterHash: string; backupPath: string; now: number; note: string | null }): Proposal {
  const receipt = { proposalId: a.proposal.id, action: 'revert' as const, ts: a.now, path: a.path, beforeHash: a.beforeHash, afterHash: a.afterHash, backupPath: a.backupPath, note: a.note };
  const next = db.transaction(() => {
    insertReceipt(db, receipt);
    return updateProposalStatus(db, a.proposal.id, 'reverted', { decidedAt: a.now });
  }).immediate();
  appendDecision(a.proposal.dir, { action: 'revert', ts: a.now, status: 'reverted', receipt });
  return next;
}
