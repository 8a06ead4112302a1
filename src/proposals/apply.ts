/**
 * The user's decisions on a proposal: apply, reject, revert. Applying is the only place that
 * writes a live skill file, so it is careful:
 *  - it refuses a stale base (the live file changed since training) unless forced;
 *  - it writes only to a derived target confined to its project or an agent's skills home, judged
 *    on real paths (targets.ts; PATH_ESCAPE otherwise, symlinks included), checked again right
 *    before each write;
 *  - it keeps a backup and a sealed journal (`backups/<id>/journal.json`, naming the folders it is
 *    about to create) before touching the file, then writes atomically (temp, fsync, rename), then
 *    records what it created (`applied.json`), the decision and a receipt, then drops the journal.
 *    Killing the process at any point leaves the live file old or new, never partial;
 *    `recoverInterrupted` finishes or rolls back what a journal describes and says what it did.
 *    A write that fails (a folder that is not writable, read-only, blocked by a file, a full disk)
 *    is undone on the spot, journal included, and named with what to do (write-failure.ts): the
 *    proposal stays staged and no later command "recovers" an apply that never happened.
 * Revert restores the backup only when the live file is still exactly what we applied, and takes
 * away the folders the apply created (when they are empty again).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import type { AgentId, Proposal } from '../core/records.js';
import { SleepError } from '../core/errors.js';
import { assertConfinedWrite, assertDerivedTarget, confinementProject } from './targets.js';
import { mergeCommandOf, readTeamProposal } from './team-proposal.js';
import { describeRisk } from './risk-lint.js';
import { assessRisk } from './provenance.js';
import { ensurePrivateDir, makeDirsTracked, missingDirs, readIfExists, removeEmptyDirs, sha256, writeFileAtomic } from '../core/fsutil.js';
import { acquireLease, releaseLease } from '../store/repos/leases.js';
import { insertReceipt, listProposals, listReceipts, proposalUserSkillPath, requireProposal, updateProposalStatus } from '../store/repos/proposals.js';
import { recordRejectedEdit, type RejectedEditRow } from '../store/repos/rejected-edits.js';
import { appendDecision } from './decision-log.js';
import { editHash } from '../skilldoc/edit-key.js';
import { ALL_AGENTS, assertWritableTarget, readBy } from '../../adapters/skills-registry.js';
import { contentForEdits } from './partial.js';
import { revertCopies, undoWrittenCopies, writeCopies, type CopyResult } from './mirrors.js';
import { liveWriteFailure, within } from './write-failure.js';
import {
  AppliedRecordSchema,
  appliedRecord,
  appliedRecordPath,
  backupDir,
  backupPathFor,
  clearJournal,
  finishApply,
  finishRevert,
  liveHash,
  readSealed,
  removableDirs,
  validCreatedDirs,
  writeAppliedRecord,
  writeJournal,
} from './journal.js';

export { rescoreSubset, contentForEdits } from './partial.js';

export interface DecisionOptions {
  /** env used to resolve the agents' skill roots (CLAUDE_CONFIG_DIR, CODEX_HOME, HOME...) */
  env?: NodeJS.ProcessEnv;
  now?: number;
}

export interface ApplyOptions extends DecisionOptions {
  force?: boolean;
  /** partial apply: only these accepted edits, re-applied to the base */
  editIds?: string[];
  /** a user-edited candidate (from $EDITOR) */
  content?: string;
  /** apply even though the risk lint flagged the edit (`apply --force-risky`) */
  forceRisky?: boolean;
  /** partial apply: the validation score the review re-scored the chosen subset to (recorded, never recomputed) */
  promisedScore?: number | null;
}

export interface ApplyOutcome {
  proposal: Proposal;
  path: string;
  backupPath: string;
  beforeHash: string;
  afterHash: string;
  /** every agent that reads what was written: the file's readers and its copies' */
  readBy: AgentId[];
  forced: boolean;
  partial: boolean;
  /** copies of a managed skill for agents that do not read `path` (mirrors.ts) */
  copies: CopyResult[];
}

export const APPLY_LEASE = 'apply';
const LEASE_TTL_MS = 120_000;

function ctxFor(p: Proposal, env: NodeJS.ProcessEnv) {
  return { project: p.skillTarget.project ?? null, env };
}

function withLease<T>(db: Db, body: () => T): T {
  const holder = `apply:${process.pid}:${Date.now()}`;
  acquireLease(db, APPLY_LEASE, holder, LEASE_TTL_MS);
  try {
    return body();
  } finally {
    releaseLease(db, APPLY_LEASE, holder);
  }
}

export function applyProposal(db: Db, paths: SleepPaths, id: string, opts: ApplyOptions = {}): ApplyOutcome {
  const env = opts.env ?? process.env;
  return withLease(db, () => {
    const p = requireProposal(db, id);
    if (p.status === 'applied') {
      throw new SleepError('INVALID_INPUT', `proposal ${p.id} is already applied to ${p.skillTarget.path}`, { hint: `\`skillopt-sleep revert ${p.id}\` undoes it` });
    }
    if (p.status === 'rejected') {
      throw new SleepError('INVALID_INPUT', `proposal ${p.id} was rejected${p.reason ? ` (${p.reason})` : ''}`, { hint: 'run another night to get a new proposal' });
    }
    if (p.status === 'superseded') {
      const newer = /superseded by (\S+)/.exec(p.reason ?? '')?.[1];
      throw new SleepError('INVALID_INPUT', `proposal ${p.id} was superseded by a newer proposal for ${p.skillTarget.path}`, {
        hint: newer ? `review \`skillopt-sleep proposals show ${newer}\` instead` : 'see `skillopt-sleep proposals list --status staged`',
      });
    }
    // a team proposal's text is a commit on its own branch: applying it is merging that branch
    const team = readTeamProposal(p.dir);
    if (team) {
      throw new SleepError('INVALID_INPUT', `proposal ${p.id} is a team proposal (branch ${team.branch}): it is applied by merging its branch, not by writing ${p.skillTarget.path}`, { hint: mergeCommandOf(team) });
    }
    const file = p.skillTarget.path;
    const project = p.skillTarget.project;
    if (project && !fs.existsSync(project)) {
      // never recreate the folder tree of a project that was moved or deleted
      throw new SleepError('NOT_FOUND', `the project folder ${project} of proposal ${p.id} is gone (moved or deleted); refusing to create it`, {
        hint: `if the repository moved, harvest and run a night there for a fresh proposal; \`skillopt-sleep reject ${p.id}\` drops this one`,
      });
    }
    const typed = proposalUserSkillPath(db, p.id) ?? undefined;
    assertDerivedTarget(db, p.skillTarget, { env, userSkillPath: typed });
    assertWritableTarget(file, ctxFor(p, env));

    let current: string | undefined;
    try {
      current = readIfExists(file);
    } catch (err) {
      throw liveWriteFailure(err, { file, proposalId: p.id }); // a file where the skill's folder must be, an unreadable folder
    }
    const beforeHash = current === undefined ? '' : sha256(current);
    const stale = beforeHash !== p.baseHash;
    if (stale && !opts.force) {
      if (p.status !== 'stale') updateProposalStatus(db, p.id, 'stale', { reason: 'the live file changed after training' });
      throw new SleepError('STALE', `${file} changed since this proposal was trained (${p.baseHash ? `base ${p.baseHash.slice(0, 12)}` : 'it did not exist'}, now ${beforeHash ? beforeHash.slice(0, 12) : 'missing'})`, {
        hint: `run a new night to retrain on the current file, or \`skillopt-sleep apply ${p.id} --force\` to overwrite your changes (a backup is kept)`,
      });
    }

    let content = p.candidate;
    const partial = !!opts.editIds && opts.editIds.length > 0;
    if (opts.content !== undefined) content = opts.content;
    else if (partial) content = contentForEdits(p, opts.editIds!, paths);
    const risk = assessRisk(db, current ?? '', content, p.edits);
    if (risk.length && !opts.forceRisky) {
      throw new SleepError('INVALID_INPUT', `proposal ${p.id} was flagged by the risk lint:\n${describeRisk(risk)}`, {
        hint: `read the flagged lines; if you trust them, \`skillopt-sleep apply ${p.id} --force-risky\``,
        details: { risk },
      });
    }
    const afterHash = sha256(content);

    const backupPath = backupPathFor(paths, p);
    ensurePrivateDir(backupDir(paths, p.id));
    if (current !== undefined) writeFileAtomic(backupPath, current, { mode: 0o600 });
    else {
      fs.rmSync(backupPath, { force: true });
      writeFileAtomic(`${backupPath}.absent`, '', { mode: 0o600 });
    }
    const now = opts.now ?? Date.now();
    // the folders this apply will make (for the file and its copies), named before any is made,
    // so a crash or a revert takes away exactly those and never one that was there before
    const planned = removableDirs(p, [...new Set([file, ...(p.skillTarget.mirrors ?? []).map((m) => m.path)].flatMap((f) => missingDirs(path.dirname(f))))], env);
    writeJournal(paths, { v: 1, action: 'apply', proposalId: p.id, path: file, beforeHash, afterHash, backupPath, pid: process.pid, startedAt: now, editIds: opts.editIds, forced: stale, createdDirs: planned, promisedScore: opts.promisedScore ?? null });

    // re-checked right before the folders are made and again before the rename: a link swapped in
    // since the checks must not lead the write out (what was made for it goes again)
    const confineTo = confinementProject(p.skillTarget, typed);
    let created: string[] = [];
    try {
      assertConfinedWrite(file, confineTo, env);
      created = makeDirsTracked(path.dirname(file));
      assertConfinedWrite(file, confineTo, env);
      // and a write by the user since our read must not be lost
      if (liveHash(file) !== beforeHash) throw new SleepError('STALE', `${file} changed while applying`, { hint: 'run apply again' });
      writeFileAtomic(file, content);
    } catch (err) {
      // the rename is the one step that changes the live file, and writeFileAtomic throws only
      // before it: nothing was written, so the apply is undone here (its journal, the empty
      // folders it made: `created`, or all it planned when mkdir stopped half-way) and the
      // proposal stays staged. A journal left behind would make the next command "recover" an
      // apply that never wrote.
      removeEmptyDirs([...planned, ...created]);
      clearJournal(paths, p.id);
      throw liveWriteFailure(err, { file, proposalId: p.id });
    }
    const copies: CopyResult[] = [];
    try {
      writeCopies(p, content, backupPath, env, created, copies);
    } catch (err) {
      // a copy for another agent could not be written: the live file and the copies already
      // written go back to what they were, so the apply is whole or not at all (then as above)
      try {
        if (current === undefined) fs.rmSync(file, { force: true });
        else writeFileAtomic(file, current);
        undoWrittenCopies(p, copies, backupPath);
      } catch {
        throw err; // the journal stays: recovery sorts out what is on disk
      }
      removeEmptyDirs([...planned, ...created]);
      clearJournal(paths, p.id);
      throw liveWriteFailure(err, { file: copyIn(p, err) ?? file, proposalId: p.id, liveFile: file });
    }

    writeAppliedRecord(paths, { v: 1, proposalId: p.id, path: file, createdDirs: removableDirs(p, created, env) });
    const done = finishApply(db, { proposal: p, path: file, beforeHash, afterHash, backupPath, now, note: noteFor(stale, partial, opts.content !== undefined, opts.editIds), applied: appliedRecord(p, { editIds: opts.editIds, promisedScore: opts.promisedScore, edited: opts.content !== undefined }) });
    clearJournal(paths, p.id);
    const readers = new Set([...readBy(file, ctxFor(p, env)), ...copies.flatMap((c) => c.readBy)]);
    return { proposal: done, path: file, backupPath, beforeHash, afterHash, readBy: ALL_AGENTS.filter((a) => readers.has(a)), forced: stale, partial, copies };
  });
}

/** The copy of `p` whose folder a system error is about, if any. */
function copyIn(p: Proposal, err: unknown): string | undefined {
  const at = (err as NodeJS.ErrnoException | null)?.path;
  if (typeof at !== 'string') return undefined;
  return (p.skillTarget.mirrors ?? []).map((m) => m.path).find((m) => within(at, path.dirname(m)) || within(path.dirname(m), at));
}

function noteFor(forced: boolean, partial: boolean, edited: boolean, editIds?: string[]): string | null {
  const parts: string[] = [];
  if (forced) parts.push('forced over a changed live file');
  if (partial) parts.push(`partial: ${editIds!.join(',')}`);
  if (edited) parts.push('user-edited candidate');
  return parts.length ? parts.join('; ') : null;
}

/** The rejected proposal, with how many of its edits are now banned (edits live in an applied proposal are not). */
export type RejectOutcome = Proposal & { rememberedEdits: number };

export function rejectProposal(db: Db, _paths: SleepPaths, id: string, reason?: string, opts: DecisionOptions = {}): RejectOutcome {
  const p = requireProposal(db, id);
  if (p.status !== 'staged' && p.status !== 'stale' && p.status !== 'superseded') {
    throw new SleepError('INVALID_INPUT', `proposal ${p.id} is ${p.status}; only staged, stale or superseded proposals can be rejected`, {
      hint: p.status === 'applied' ? `\`skillopt-sleep revert ${p.id}\` undoes an applied proposal` : undefined,
    });
  }
  const now = opts.now ?? Date.now();
  const bans: RejectedEditRow[] = [];
  const receipt = { proposalId: p.id, action: 'reject' as const, ts: now, path: p.skillTarget.path, beforeHash: p.baseHash, afterHash: null, backupPath: null, note: reason ?? null };
  const out = db.transaction(() => {
    // the trainer's rejected-edit buffer reads these for the same skill (key: the live path). An
    // edit that is also in an applied proposal for this file is live in it: rejecting a duplicate
    // (a superseded or stale copy) must not ban what the user accepted.
    const applied = appliedEditHashes(db, p.skillTarget.path);
    const banned = p.edits.filter((x) => x.status === 'accepted' && !applied.has(editHash(x)));
    for (const e of banned) {
      const ban: RejectedEditRow = { skillKey: p.skillTarget.path, editHash: editHash(e), op: e.op, anchor: e.anchor ?? null, content: e.content, reason: reason ?? 'rejected in review', scoreDrop: null, source: 'user', createdAt: now };
      recordRejectedEdit(db, ban);
      bans.push(ban);
    }
    insertReceipt(db, receipt);
    return { ...updateProposalStatus(db, p.id, 'rejected', { reason: reason ?? null, decidedAt: now }), rememberedEdits: banned.length };
  }).immediate();
  appendDecision(p.dir, { action: 'reject', ts: now, status: 'rejected', receipt, bans });
  return out;
}

/** Hashes of the accepted edits of every applied proposal for `skillPath`. */
function appliedEditHashes(db: Db, skillPath: string): Set<string> {
  const out = new Set<string>();
  for (const a of listProposals(db, { status: 'applied' })) {
    if (a.skillTarget.path !== skillPath) continue;
    for (const e of a.edits) if (e.status === 'accepted') out.add(editHash(e));
  }
  return out;
}

export interface RevertOutcome {
  proposal: Proposal;
  path: string;
  restored: 'content' | 'removed';
  copies: CopyResult[];
  /** the folders the apply had created, empty again and removed */
  removedDirs: string[];
}

/** The folders the apply of `p` created (its sealed `applied.json`), checked; null for an apply made before they were recorded. */
function createdByApply(paths: SleepPaths, p: Proposal, env: NodeJS.ProcessEnv): string[] | null {
  const file = appliedRecordPath(paths, p.id);
  let rec;
  try {
    rec = readSealed(paths, file, AppliedRecordSchema);
  } catch (err) {
    throw new SleepError('INVALID_INPUT', `refusing to revert ${p.id}: ${(err as Error).message}`, {
      hint: `nothing was changed; check ${p.skillTarget.path} (the backup is in ${backupDir(paths, p.id)}), then remove ${file} to revert without removing the folders apply created`,
    });
  }
  if (!rec) return null;
  const problem = rec.proposalId !== p.id || rec.path !== p.skillTarget.path ? `it names ${rec.proposalId} and ${rec.path}` : validCreatedDirs(p, rec.createdDirs, env);
  if (problem) {
    throw new SleepError('INVALID_INPUT', `refusing to revert ${p.id}: ${file} does not agree with the proposal (${problem})`, {
      hint: `nothing was changed; remove ${file} to revert without removing the folders apply created`,
    });
  }
  return rec.createdDirs;
}

export function revertProposal(db: Db, paths: SleepPaths, id: string, opts: DecisionOptions = {}): RevertOutcome {
  const env = opts.env ?? process.env;
  return withLease(db, () => {
    const p = requireProposal(db, id);
    if (p.status !== 'applied') {
      throw new SleepError('INVALID_INPUT', `proposal ${p.id} is ${p.status}, not applied: nothing to revert`, { hint: '`skillopt-sleep proposals list` shows what is applied' });
    }
    const receipt = listReceipts(db, p.id)
      .filter((r) => r.action === 'apply')
      .pop();
    if (!receipt) throw new SleepError('INTERNAL', `proposal ${p.id} is applied but has no apply receipt`, { hint: 'restore the file by hand from the backups folder' });
    const file = p.skillTarget.path;
    const typed = proposalUserSkillPath(db, p.id) ?? undefined;
    assertDerivedTarget(db, p.skillTarget, { env, userSkillPath: typed });
    assertWritableTarget(file, ctxFor(p, env));
    const created = createdByApply(paths, p, env);
    const backupPath = receipt.backupPath ?? backupPathFor(paths, p);
    const absent = fs.existsSync(`${backupPath}.absent`) && !fs.existsSync(backupPath);
    const backup = absent ? undefined : readIfExists(backupPath);
    if (!absent && backup === undefined) {
      throw new SleepError('NOT_FOUND', `the backup of ${file} is missing (${backupPath})`, { hint: 'restore the file by hand; the proposal folder has base.md' });
    }
    const now = liveHash(file);
    if (now !== receipt.afterHash) {
      throw new SleepError('STALE', `${file} was edited after it was applied; reverting would lose those edits`, {
        hint: `the pre-apply version is at ${absent ? '(there was no file)' : backupPath}; restore it by hand if you want it back`,
      });
    }
    const afterHash = backup === undefined ? '' : sha256(backup);
    const ts = opts.now ?? Date.now();
    writeJournal(paths, { v: 1, action: 'revert', proposalId: p.id, path: file, beforeHash: now, afterHash, backupPath, pid: process.pid, startedAt: ts });
    try {
      assertConfinedWrite(file, confinementProject(p.skillTarget, typed), env);
      if (backup === undefined) fs.rmSync(file, { force: true });
      else writeFileAtomic(file, backup);
    } catch (err) {
      // as in apply: nothing was written, so no journal is left for recovery to act on
      clearJournal(paths, p.id);
      throw liveWriteFailure(err, { file, proposalId: p.id, action: 'revert' });
    }
    const done = finishRevert(db, { proposal: p, path: file, beforeHash: now, afterHash, backupPath, now: ts, note: null });
    clearJournal(paths, p.id);
    // an apply from before folders were recorded: at least the new skill's own folder goes
    if (backup === undefined && created === null) removeEmptySkillDir(file);
    const copies = revertCopies(p, receipt.afterHash, backupPath, env, created !== null);
    // last, the folders the apply made, deepest first, each only when nothing else is in it now
    const removedDirs = removeEmptyDirs(created ?? []);
    fs.rmSync(appliedRecordPath(paths, p.id), { force: true });
    return { proposal: done, path: file, restored: backup === undefined ? 'removed' : 'content', copies, removedDirs };
  });
}

/** A skill folder we created for a new SKILL.md goes away with it, if nothing else is inside. */
function removeEmptySkillDir(file: string): void {
  if (path.basename(file) !== 'SKILL.md') return;
  try {
    fs.rmdirSync(path.dirname(file));
  } catch {
    /* not empty or already gone */
  }
}
