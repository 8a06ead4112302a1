/**
 * `doctor --repair`: a damaged or missing database rebuilt without losing what the user decided.
 *  1. A database that fails its integrity check (or is gone) is moved aside, never deleted, with
 *     its -wal/-shm (a stale write-ahead log must not be replayed into the restored file).
 *  2. The newest backup that passes the check (store/backup.ts) becomes the database; with none,
 *     a new empty one is created.
 *  3. What the disk records since is merged in: every proposal folder (`proposals/<id>/report.json`
 *     and the candidate beside it) missing from the database is inserted, a newer proposal for the
 *     same file supersedes an older waiting one (as staging did), and each folder's decision log
 *     (decision-log.ts: applies, reverts, rejects with the edits they banned, forgets) is replayed
 *     in time order. A decision the database already has (same proposal, action and time) is not
 *     repeated; bans and forgets are replayed in order (idempotent), so the end state matches.
 * Transcripts, tasks and runs come back by harvesting and mining again; they are not decisions.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SleepPaths } from '../core/paths.js';
import { ProposalSchema, type EditRecord, type Proposal, type SkillTarget } from '../core/records.js';
import { ensurePrivateDir } from '../core/fsutil.js';
import { openDb, type Db } from '../store/db.js';
import { assertSqliteLoads, dbBackupDir, isHealthyDatabase, listDbBackups } from '../store/backup.js';
import { getProposal, insertProposal, insertReceipt, listProposals, listReceipts, setProposalUserSkillPath, updateProposalStatus } from '../store/repos/proposals.js';
import { countUserBans, deleteRejectedEdit, recordRejectedEdit } from '../store/repos/rejected-edits.js';
import { readDecisions, type DecisionEntry } from './decision-log.js';
import type { ProposalReport } from './staging-report.js';

export interface RepairOutcome {
  /** what the database was: fine (only records merged), restored from a backup, or created anew */
  database: 'healthy' | 'restored' | 'recreated';
  /** the damaged files, moved aside beside the database */
  movedAside: string[];
  backup: string | null;
  proposalsAdded: number;
  decisionsReplayed: number;
  /** totals after the repair */
  proposals: number;
  applies: number;
  bans: number;
}

function stamp(now: number): string {
  return new Date(now).toISOString().replace(/[-:.]/g, '');
}

/** Moves the database and its -wal/-shm aside (`sleep.db.damaged-<time>`); returns the new names. */
function moveAside(file: string, now: number): string[] {
  const out: string[] = [];
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    const from = `${file}${suffix}`;
    if (!fs.existsSync(from)) continue;
    const to = `${file}.damaged-${stamp(now)}${suffix}`;
    fs.renameSync(from, to);
    out.push(to);
  }
  return out;
}

/** The newest backup that passes the integrity check, copied in as the database (temp, then rename). */
function restoreNewestBackup(paths: SleepPaths): string | null {
  for (const b of listDbBackups(dbBackupDir(paths.stateDir))) {
    if (!isHealthyDatabase(b.file)) continue;
    const tmp = `${paths.database}.restore.${process.pid}.tmp`;
    fs.copyFileSync(b.file, tmp);
    fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, paths.database);
    return b.file;
  }
  return null;
}

/** A proposal as its folder records it, or null when the folder is not a whole proposal. */
export function proposalFromFolder(dir: string): { proposal: Proposal; userSkillPath: string | null } | null {
  let report: ProposalReport & { userSkillPath?: string };
  try {
    report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8')) as typeof report;
  } catch {
    return null;
  }
  const target = report.target as SkillTarget | undefined;
  if (!target?.path) return null;
  const read = (name: string): string | null => {
    try {
      return fs.readFileSync(path.join(dir, name), 'utf8');
    } catch {
      return null;
    }
  };
  const candidate = read(path.basename(target.path));
  if (candidate === null) return null;
  const edits: EditRecord[] = [...(report.edits?.accepted ?? []), ...(report.edits?.rejected ?? []), ...(report.edits?.unmatched ?? [])];
  const parsed = ProposalSchema.safeParse({
    id: report.id,
    runId: report.runId ?? null,
    nightId: report.nightId ?? null,
    skillTarget: target,
    baseHash: report.baseHash ?? '',
    candidate,
    diff: read('changes.diff') ?? '',
    baselineScore: report.gate?.baselineScore,
    candidateScore: report.gate?.candidateScore,
    testBefore: report.test?.before ?? null,
    testAfter: report.test?.after ?? null,
    perTask: report.perTask ?? [],
    edits,
    status: 'staged',
    createdAt: Date.parse(report.createdAt),
    decidedAt: null,
    reason: null,
    dir,
  });
  return parsed.success ? { proposal: parsed.data, userSkillPath: report.userSkillPath ?? null } : null;
}

function proposalFolders(paths: SleepPaths): string[] {
  try {
    return fs
      .readdirSync(paths.proposalsDir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => path.join(paths.proposalsDir, e.name));
  } catch {
    return [];
  }
}

/** Adds what the proposal folders record and the database lacks. Idempotent. */
export function mergeDiskRecords(db: Db, paths: SleepPaths): { proposalsAdded: number; decisionsReplayed: number } {
  const folders = proposalFolders(paths);
  const fromDisk = folders
    .map(proposalFromFolder)
    .filter((x): x is NonNullable<typeof x> => x !== null)
    .sort((a, b) => a.proposal.createdAt - b.proposal.createdAt);
  let proposalsAdded = 0;
  let decisionsReplayed = 0;
  db.transaction(() => {
    for (const { proposal, userSkillPath } of fromDisk) {
      if (getProposal(db, proposal.id)?.id === proposal.id) continue;
      insertProposal(db, proposal);
      if (userSkillPath) setProposalUserSkillPath(db, proposal.id, userSkillPath);
      proposalsAdded++;
      // one live proposal per file, as staging kept it: an older one still waiting was superseded
      for (const older of listProposals(db, { status: ['staged', 'stale'] })) {
        if (older.skillTarget.path === proposal.skillTarget.path && older.createdAt < proposal.createdAt) {
          updateProposalStatus(db, older.id, 'superseded', { reason: `superseded by ${proposal.id}`, decidedAt: proposal.createdAt });
        }
      }
    }
    const entries: Array<{ id: string; e: DecisionEntry }> = [];
    for (const dir of folders) {
      const id = path.basename(dir);
      for (const e of readDecisions(dir)) entries.push({ id, e });
    }
    entries.sort((a, b) => a.e.ts - b.e.ts);
    for (const { id, e } of entries) {
      if (!getProposal(db, id)) continue;
      if (e.receipt && (e.action === 'apply' || e.action === 'revert' || e.action === 'reject')) {
        const known = listReceipts(db, id).some((r) => r.action === e.action && r.ts === e.ts);
        if (!known) {
          insertReceipt(db, e.receipt);
          updateProposalStatus(db, id, e.status, {
            decidedAt: e.ts,
            reason: e.action === 'reject' ? (e.receipt.note ?? null) : e.action === 'apply' ? null : undefined,
            patch: e.applied !== undefined ? { applied: e.applied } : undefined,
          });
          decisionsReplayed++;
        }
      }
      // bans and their lifting, in the order they happened (replaying one the database has is a no-op)
      for (const ban of e.bans ?? []) recordRejectedEdit(db, ban);
      if (e.forgotten) deleteRejectedEdit(db, e.forgotten.skillKey, e.forgotten.editHash);
    }
  }).immediate();
  return { proposalsAdded, decisionsReplayed };
}

/**
 * Repairs the database at `paths.database` (see the file comment). Never deletes a file: a damaged
 * database is kept beside the new one for the user (or a bug report).
 */
export function repairDatabase(paths: SleepPaths, now = Date.now()): RepairOutcome {
  // a missing native binding makes every file look damaged: refuse before touching any
  assertSqliteLoads();
  ensurePrivateDir(paths.stateDir);
  let database: RepairOutcome['database'] = 'healthy';
  let movedAside: string[] = [];
  let backup: string | null = null;
  if (!isHealthyDatabase(paths.database)) {
    movedAside = moveAside(paths.database, now);
    backup = restoreNewestBackup(paths);
    database = backup ? 'restored' : 'recreated';
  }
  const db = openDb(paths.database);
  try {
    const merged = mergeDiskRecords(db, paths);
    return {
      database,
      movedAside,
      backup,
      ...merged,
      proposals: listProposals(db).length,
      applies: listReceipts(db).filter((r) => r.action === 'apply').length,
      bans: countUserBans(db),
    };
  } finally {
    db.close();
  }
}
