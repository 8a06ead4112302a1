/**
 * Recovery after a crash (run at the start of apply/revert/night commands and by the daemon):
 *  - an apply/revert journal left behind means the process died mid-decision. The live file is
 *    old or new (the write is atomic); we finish the bookkeeping when it is new, drop the journal
 *    (and the empty folders the apply had made) when it is old, and leave everything alone (and
 *    say so) when someone changed the file since;
 *  - a journal is acted on only when its seal holds (journal.ts) and every path in it is the one
 *    the store's record of the proposal derives, still passing the write checks (targets.ts):
 *    recovery deletes and writes nothing but what the product itself created;
 *  - temp files of interrupted atomic writes next to a live skill file are removed;
 *  - half-assembled proposal folders (`.<id>.<pid>.tmp`) of dead processes are removed.
 * Every action is reported in plain words.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import type { Proposal } from '../core/records.js';
import { errorMessage } from '../core/errors.js';
import { removeEmptyDirs } from '../core/fsutil.js';
import { getProposal, proposalUserSkillPath } from '../store/repos/proposals.js';
import { assertDerivedTarget } from './targets.js';
import {
  JournalSchema,
  PROPOSAL_ID,
  appliedRecord,
  backupPathFor,
  clearJournal,
  finishApply,
  finishRevert,
  journalPath,
  liveHash,
  readSealed,
  validCreatedDirs,
  writeAppliedRecord,
  type Journal,
} from './journal.js';

export interface RecoveryReport {
  actions: string[];
  /** journals that could not be resolved automatically (the file changed meanwhile) */
  unresolved: string[];
}

function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `.<basename>.<pid>.<hex>.tmp` files of dead writers next to `file` (see writeFileAtomic). */
export function cleanAtomicTemps(file: string): string[] {
  const dir = path.dirname(file);
  const base = path.basename(file);
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return removed;
  }
  for (const n of names) {
    if (!n.startsWith(`.${base}.`) || !n.endsWith('.tmp')) continue;
    const m = /\.(\d+)\.[0-9a-f]+\.tmp$/.exec(n);
    if (!m || pidAlive(Number(m[1]))) continue;
    fs.rmSync(path.join(dir, n), { force: true });
    removed.push(path.join(dir, n));
  }
  return removed;
}

/** The store's proposal of exactly this id (never a prefix match), or undefined. */
function exactProposal(db: Db, id: string): Proposal | undefined {
  try {
    const p = getProposal(db, id);
    return p?.id === id ? p : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why recovery must not act on journal `j` found in `backups/<dirName>/` for proposal `p`, or
 * null. Every path in it must be the one the store's record of the proposal derives (the live
 * file, its backup, folders of the file or its copies), and the target must still pass the write
 * checks: a journal is never a way to name a file.
 */
function journalProblem(db: Db, paths: SleepPaths, dirName: string, j: Journal, p: Proposal, env: NodeJS.ProcessEnv): string | null {
  if (j.proposalId !== dirName) return `it names proposal ${j.proposalId} but sits in the folder of ${dirName}`;
  if (j.path !== p.skillTarget.path) return `it names ${j.path}, but proposal ${p.id} writes ${p.skillTarget.path}`;
  if (j.backupPath !== backupPathFor(paths, p)) return `its backup ${j.backupPath} is not the backup of proposal ${p.id}`;
  const dirs = validCreatedDirs(p, j.createdDirs ?? [], env);
  if (dirs) return dirs;
  try {
    assertDerivedTarget(db, p.skillTarget, { env, userSkillPath: proposalUserSkillPath(db, p.id) ?? undefined });
  } catch (err) {
    return errorMessage(err);
  }
  return null;
}

function recoverJournal(db: Db, paths: SleepPaths, dirName: string, j: Journal, env: NodeJS.ProcessEnv, report: RecoveryReport): void {
  if (pidAlive(j.pid) && j.pid !== process.pid) return; // still running elsewhere
  const file = journalPath(paths, dirName);
  const p = exactProposal(db, j.proposalId);
  if (!p || j.proposalId !== dirName) {
    // nothing of a proposal we do not know is touched but its own journal (our file)
    clearJournal(paths, dirName);
    report.actions.push(`dropped the journal of unknown proposal ${j.proposalId}`);
    return;
  }
  const problem = journalProblem(db, paths, dirName, j, p, env);
  if (problem) {
    report.unresolved.push(`journal ${file} does not agree with proposal ${p.id} (${problem}); recovery left it and every file alone: check ${p.skillTarget.path}, then move the journal away`);
    return;
  }
  for (const t of cleanAtomicTemps(j.path)) report.actions.push(`removed the temp file ${t} of an interrupted write`);
  const live = liveHash(j.path);
  const done = j.action === 'apply' ? p.status === 'applied' : p.status === 'reverted';
  const now = Date.now();
  const created = (j.createdDirs ?? []).filter((d) => fs.existsSync(d));
  if (done) {
    clearJournal(paths, p.id);
    report.actions.push(`${j.action} of ${p.id} had completed; removed its journal`);
  } else if (live === j.afterHash) {
    if (j.action === 'apply') {
      writeAppliedRecord(paths, { v: 1, proposalId: p.id, path: j.path, createdDirs: created });
      finishApply(db, { proposal: p, path: j.path, beforeHash: j.beforeHash, afterHash: j.afterHash, backupPath: j.backupPath, now, note: 'recovered after an interrupted apply', applied: appliedRecord(p, { editIds: j.editIds, promisedScore: j.promisedScore }) });
    } else {
      finishRevert(db, { proposal: p, path: j.path, beforeHash: j.beforeHash, afterHash: j.afterHash, backupPath: j.backupPath, now, note: 'recovered after an interrupted revert' });
    }
    clearJournal(paths, p.id);
    report.actions.push(`the interrupted ${j.action} of ${p.id} had written ${j.path}; recorded it as ${j.action === 'apply' ? 'applied' : 'reverted'}`);
  } else if (live === j.beforeHash) {
    // an apply that never wrote: the folders it had begun to make go again (only empty ones)
    const removed = j.action === 'apply' ? removeEmptyDirs(created) : [];
    clearJournal(paths, p.id);
    report.actions.push(`the interrupted ${j.action} of ${p.id} had not written ${j.path}; it is unchanged (run the ${j.action} again)${removed.length ? `; removed the empty folders it had made: ${removed.join(', ')}` : ''}`);
  } else {
    report.unresolved.push(`${j.path} changed during the interrupted ${j.action} of ${p.id}; left as is (backup: ${j.backupPath}, journal: ${journalPath(paths, p.id)})`);
  }
}

/** A real folder (not a symlink) directly inside `parent`. */
function isOwnDir(dir: string): boolean {
  try {
    return fs.lstatSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Removes proposal folders that were still being assembled by a process that is gone. */
function cleanStagingTemps(db: Db, paths: SleepPaths, report: RecoveryReport): void {
  let names: string[];
  try {
    names = fs.readdirSync(paths.proposalsDir);
  } catch {
    return;
  }
  for (const n of names) {
    const m = /^\.(p_[a-z0-9]+)\.(\d+)\.tmp$/.exec(n);
    if (!m || pidAlive(Number(m[2]))) continue;
    const dir = path.join(paths.proposalsDir, n);
    // only a folder staging made; a link planted under that name is left for the user to see
    if (!isOwnDir(dir)) {
      report.unresolved.push(`${dir} looks like a half-staged proposal folder but is not a folder; left alone`);
      continue;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    report.actions.push(`removed the half-staged proposal folder ${n}`);
  }
  // a folder renamed into place whose row was never inserted (crash between the two steps);
  // young folders are left alone: their process may be about to insert the row
  const now = Date.now();
  for (const n of names) {
    if (!PROPOSAL_ID.test(n) || exactProposal(db, n)) continue;
    const dir = path.join(paths.proposalsDir, n);
    try {
      if (!isOwnDir(dir) || now - fs.lstatSync(dir).mtimeMs < ORPHAN_AGE_MS) continue;
    } catch {
      continue;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    report.actions.push(`removed the proposal folder ${n}, which was never recorded (staging was interrupted)`);
  }
}

const ORPHAN_AGE_MS = 10 * 60_000;

/**
 * Finishes or rolls back what interrupted decisions left. `env` resolves the agents' skill roots
 * for the write checks (default: this process's).
 */
export function recoverInterrupted(db: Db, paths: SleepPaths, env: NodeJS.ProcessEnv = process.env): RecoveryReport {
  const report: RecoveryReport = { actions: [], unresolved: [] };
  let dirs: string[] = [];
  try {
    dirs = fs.readdirSync(paths.backupsDir);
  } catch {
    /* no backups yet */
  }
  for (const d of dirs) {
    // only our own backup folders: a proposal id, a real folder (a planted link leads elsewhere)
    if (!PROPOSAL_ID.test(d) || !isOwnDir(path.join(paths.backupsDir, d))) continue;
    const file = journalPath(paths, d);
    cleanAtomicTemps(file);
    if (!fs.existsSync(file)) continue;
    let j: Journal | undefined;
    try {
      j = readSealed(paths, file, JournalSchema);
    } catch (err) {
      report.unresolved.push(`journal ${errorMessage(err)}; recovery refuses to act on it. Check the file it names, then move the journal away`);
      continue;
    }
    if (j) recoverJournal(db, paths, d, j, env, report);
  }
  cleanStagingTemps(db, paths, report);
  return report;
}
