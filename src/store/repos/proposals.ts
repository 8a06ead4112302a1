/**
 * Proposals, decision receipts and user-rejected edits. A proposal row mirrors the `Proposal`
 * record (full JSON in `record`); status moves staged → applied → reverted, or staged → rejected,
 * or → stale when its base no longer matches the live file, or → superseded when a newer night
 * stages a proposal for the same file (one live proposal per file; superseding bans nothing).
 */
import type { Db } from '../db.js';
import { ProposalSchema, type Proposal, type ProposalStatus } from '../../core/records.js';
import { SleepError } from '../../core/errors.js';

interface ProposalRow {
  id: string;
  status: string;
  decided_at: number | null;
  record: string;
}

function toProposal(r: ProposalRow): Proposal {
  const p = ProposalSchema.parse(JSON.parse(r.record));
  // the columns are authoritative for what changes after staging
  return { ...p, status: r.status as ProposalStatus, decidedAt: r.decided_at ?? p.decidedAt ?? null };
}

export function insertProposal(db: Db, p: Proposal): void {
  const rec = ProposalSchema.parse(p);
  db.prepare(
    `INSERT INTO proposals(id, run_id, night_id, skill_path, skill_name, status, created_at, decided_at, record)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(rec.id, rec.runId, rec.nightId ?? null, rec.skillTarget.path, rec.skillTarget.name, rec.status, rec.createdAt, rec.decidedAt ?? null, JSON.stringify(rec));
}

/** Records the `--skill <path>` the user typed for this proposal (set at staging, by the CLI's flag only). */
export function setProposalUserSkillPath(db: Db, id: string, file: string): void {
  db.prepare('UPDATE proposals SET user_skill_path = ? WHERE id = ?').run(file, id);
}

/** The `--skill <path>` the user typed for this proposal, or null. */
export function proposalUserSkillPath(db: Db, id: string): string | null {
  return (db.prepare('SELECT user_skill_path FROM proposals WHERE id = ?').get(id) as { user_skill_path: string | null } | undefined)?.user_skill_path ?? null;
}

/** By exact id, or by a unique prefix (ids are long; users paste the first characters). */
export function getProposal(db: Db, id: string): Proposal | undefined {
  const exact = db.prepare('SELECT id, status, decided_at, record FROM proposals WHERE id = ?').get(id) as ProposalRow | undefined;
  if (exact) return toProposal(exact);
  if (id.length < 4) return undefined;
  const rows = db.prepare("SELECT id, status, decided_at, record FROM proposals WHERE id LIKE ? ESCAPE '\\' LIMIT 2").all(`${id.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) as ProposalRow[];
  if (rows.length > 1) throw new SleepError('INVALID_INPUT', `proposal id "${id}" is ambiguous`, { hint: 'give more characters of the id' });
  return rows[0] ? toProposal(rows[0]) : undefined;
}

export function requireProposal(db: Db, id: string): Proposal {
  const p = getProposal(db, id);
  if (!p) throw new SleepError('NOT_FOUND', `no proposal "${id}"`, { hint: '`skillopt-sleep proposals list` shows them' });
  return p;
}

export function listProposals(db: Db, opts: { status?: ProposalStatus | ProposalStatus[]; project?: string; nightId?: string; limit?: number } = {}): Proposal[] {
  const where: string[] = [];
  const args: unknown[] = [];
  if (opts.status) {
    const list = Array.isArray(opts.status) ? opts.status : [opts.status];
    where.push(`status IN (${list.map(() => '?').join(',')})`);
    args.push(...list);
  }
  if (opts.nightId) {
    where.push('night_id = ?');
    args.push(opts.nightId);
  }
  const sql = `SELECT id, status, decided_at, record FROM proposals ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC${opts.limit ? ` LIMIT ${Math.floor(opts.limit)}` : ''}`;
  let out = (db.prepare(sql).all(...args) as ProposalRow[]).map(toProposal);
  if (opts.project) out = out.filter((p) => p.skillTarget.project === opts.project);
  return out;
}

/**
 * Marks every proposal still waiting for review (staged or stale) for `skillPath`, other than
 * `byId`, as superseded by `byId`. Returns the ids it superseded.
 */
export function supersedeWaitingProposals(db: Db, skillPath: string, byId: string, now = Date.now()): string[] {
  const rows = db.prepare("SELECT id FROM proposals WHERE skill_path = ? AND status IN ('staged','stale') AND id <> ?").all(skillPath, byId) as Array<{ id: string }>;
  for (const r of rows) updateProposalStatus(db, r.id, 'superseded', { reason: `superseded by ${byId}`, decidedAt: now });
  return rows.map((r) => r.id);
}

/** Sets status (and decision time / reason), keeping the JSON record in step with the columns. */
export function updateProposalStatus(db: Db, id: string, status: ProposalStatus, opts: { reason?: string | null; decidedAt?: number; patch?: Partial<Proposal> } = {}): Proposal {
  const tx = db.transaction(() => {
    const cur = requireProposal(db, id);
    const next: Proposal = { ...cur, ...opts.patch, status, decidedAt: opts.decidedAt ?? Date.now(), reason: opts.reason ?? cur.reason ?? null };
    db.prepare('UPDATE proposals SET status = ?, decided_at = ?, record = ? WHERE id = ?').run(status, next.decidedAt, JSON.stringify(next), cur.id);
    return next;
  });
  return tx.immediate();
}

// ---- receipts --------------------------------------------------------------------------------

export interface Receipt {
  id: number;
  proposalId: string;
  action: 'apply' | 'revert' | 'reject' | 'recover';
  ts: number;
  path: string;
  beforeHash: string | null;
  afterHash: string | null;
  backupPath: string | null;
  note: string | null;
}

export function insertReceipt(db: Db, r: Omit<Receipt, 'id'>): number {
  const res = db
    .prepare('INSERT INTO receipts(proposal_id, action, ts, path, before_hash, after_hash, backup_path, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run(r.proposalId, r.action, r.ts, r.path, r.beforeHash, r.afterHash, r.backupPath, r.note);
  return Number(res.lastInsertRowid);
}

export function listReceipts(db: Db, proposalId?: string): Receipt[] {
  const rows = (
    proposalId
      ? db.prepare('SELECT * FROM receipts WHERE proposal_id = ? ORDER BY id').all(proposalId)
      : db.prepare('SELECT * FROM receipts ORDER BY id').all()
  ) as Array<Record<string, unknown>>;
  return rows.map((r) => ({
    id: r.id as number,
    proposalId: r.proposal_id as string,
    action: r.action as Receipt['action'],
    ts: r.ts as number,
    path: r.path as string,
    beforeHash: (r.before_hash as string | null) ?? null,
    afterHash: (r.after_hash as string | null) ?? null,
    backupPath: (r.backup_path as string | null) ?? null,
    note: (r.note as string | null) ?? null,
  }));
}

export { countProposals } from './proposal-counts.js';
