/**
 * Recovery after a crash (run at the start of apply/revert/night commands and by the daemon):
 *  - an apply/revert journal left behind means the process died mid-decision. The live file is
 *    old or new (the write is atomic); we finish the bookkeeping when it is new, drop the journal
 *    when it is old, and leave everything alone (and say so) when someone changed the file since;
 *  - temp files of interrupted atomic writes next to a live skill file are removed;
 *  - half-assembled proposal folders (`.<id>.<pid>.tmp`) of dead processes are removed.
 * Every action is reported in plain words.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import { getProposal } from '../store/repos/proposals.js';
import { appliedRecord, clearJournal, finishApply, finishRevert, journalPath, liveHash, type Journal } from './journal.js';

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

function readJournal(file: string): Journal | null {
  try {
    const j = JSON.parse(fs.readFileSync(file, 'utf8')) as Journal;
    return j && j.v === 1 && typeof j.proposalId === 'string' && typeof j.path === 'string' ? j : null;
  } catch {
    return null;
  }
}

function recoverJournal(db: Db, paths: SleepPaths, j: Journal, report: RecoveryReport): void {
  if (pidAlive(j.pid) && j.pid !== process.pid) return; // still running elsewhere
  for (const t of cleanAtomicTemps(j.path)) report.actions.push(`removed the temp file ${t} of an interrupted write`);
  const p = getProposal(db, j.proposalId);
  if (!p) {
    clearJournal(paths, j.proposalId);
    report.actions.push(`dropped the journal of unknown proposal ${j.proposalId}`);
    return;
  }
  const live = liveHash(j.path);
  const done = j.action === 'apply' ? p.status === 'applied' : p.status === 'reverted';
  const now = Date.now();
  if (done) {
    clearJournal(paths, j.proposalId);
    report.actions.push(`${j.action} of ${p.id} had completed; removed its journal`);
  } else if (live === j.afterHash) {
    if (j.action === 'apply') finishApply(db, { proposal: p, path: j.path, beforeHash: j.beforeHash, afterHash: j.afterHash, backupPath: j.backupPath, now, note: 'recovered after an interrupted apply', applied: appliedRecord(p, { editIds: j.editIds, promisedScore: j.promisedScore }) });
    else finishRevert(db, { proposal: p, path: j.path, beforeHash: j.beforeHash, afterHash: j.afterHash, backupPath: j.backupPath, now, note: 'recovered after an interrupted revert' });
    clearJournal(paths, j.proposalId);
    report.actions.push(`the interrupted ${j.action} of ${p.id} had written ${j.path}; recorded it as ${j.action === 'apply' ? 'applied' : 'reverted'}`);
  } else if (live === j.beforeHash) {
    clearJournal(paths, j.proposalId);
    report.actions.push(`the interrupted ${j.action} of ${p.id} had not written ${j.path}; it is unchanged (run the ${j.action} again)`);
  } else {
    report.unresolved.push(`${j.path} changed during the interrupted ${j.action} of ${p.id}; left as is (backup: ${j.backupPath}, journal: ${journalPath(paths, p.id)})`);
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
    const m = /^\.(.+)\.(\d+)\.tmp$/.exec(n);
    if (!m || pidAlive(Number(m[2]))) continue;
    fs.rmSync(path.join(paths.proposalsDir, n), { recursive: true, force: true });
    report.actions.push(`removed the half-staged proposal folder ${n}`);
  }
  // a folder renamed into place whose row was never inserted (crash between the two steps);
  // young folders are left alone: their process may be about to insert the row
  const now = Date.now();
  for (const n of names) {
    if (n.startsWith('.') || getProposal(db, n)) continue;
    const dir = path.join(paths.proposalsDir, n);
    try {
      if (!fs.statSync(dir).isDirectory() || now - fs.statSync(dir).mtimeMs < ORPHAN_AGE_MS) continue;
    } catch {
      continue;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    report.actions.push(`removed the proposal folder ${n}, which was never recorded (staging was interrupted)`);
  }
}

const ORPHAN_AGE_MS = 10 * 60_000;

export function recoverInterrupted(db: Db, paths: SleepPaths): RecoveryReport {
  const report: RecoveryReport = { actions: [], unresolved: [] };
  let dirs: string[] = [];
  try {
    dirs = fs.readdirSync(paths.backupsDir);
  } catch {
    /* no backups yet */
  }
  for (const d of dirs) {
    const file = path.join(paths.backupsDir, d, 'journal.json');
    cleanAtomicTemps(file);
    if (!fs.existsSync(file)) continue;
    const j = readJournal(file);
    if (!j) {
      report.unresolved.push(`unreadable journal ${file}; move it away after checking the file it names`);
      continue;
    }
    recoverJournal(db, paths, j, report);
  }
  cleanStagingTemps(db, paths, report);
  return report;
}
