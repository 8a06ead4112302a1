/**
 * The apply/revert journal and its bookkeeping: where backups and the journal of an in-flight
 * decision live, the hash of a live file, and the two "finish" steps that record a decision that
 * reached the disk. Both the decisions (apply.ts) and crash recovery (recover.ts) use these, so they
 * live here and neither of those files imports the other.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import type { Proposal } from '../core/records.js';
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
  /** the validation score the chosen subset re-scored to (partial apply from the review) */
  promisedScore?: number | null;
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
  writeFileAtomic(journalPath(paths, j.proposalId), JSON.stringify(j, null, 2), { mode: 0o600 });
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
