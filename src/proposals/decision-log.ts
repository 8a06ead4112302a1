/**
 * The user's decisions, also on disk: each apply, revert, reject and forget appends one JSON line
 * to `proposals/<id>/decisions.jsonl` beside the proposal's files, after the database recorded it.
 * The database stays the record the product reads; this log is what `doctor --repair` replays over
 * the newest backup (proposals/rebuild.ts), so a damaged or deleted database loses no decision.
 * A torn last line (a crash mid-append) is skipped on read: every line before it stands.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Proposal } from '../core/records.js';
import type { Receipt } from '../store/repos/proposals.js';
import type { RejectedEditRow } from '../store/repos/rejected-edits.js';

export const DECISIONS_FILE = 'decisions.jsonl';

export interface DecisionEntry {
  v: 1;
  action: Receipt['action'] | 'forget';
  ts: number;
  /** the status the proposal had after this decision */
  status: Proposal['status'];
  receipt: Omit<Receipt, 'id'> | null;
  /** an apply: what it wrote (Proposal.applied) */
  applied?: Proposal['applied'];
  /** a reject: the edits it banned */
  bans?: RejectedEditRow[];
  /** a forget: the ban it lifted */
  forgotten?: { skillKey: string; editHash: string };
}

/**
 * Appends one decision. Called after the database committed it; a log that cannot be written (the
 * proposal folder was removed, a full disk) does not undo the decision, it only means a later
 * repair cannot replay it — so the failure is reported to the caller's log, never thrown.
 */
export function appendDecision(proposalDir: string, entry: Omit<DecisionEntry, 'v'>): boolean {
  try {
    if (!fs.existsSync(proposalDir)) return false;
    const file = path.join(proposalDir, DECISIONS_FILE);
    const fd = fs.openSync(file, 'a', 0o600);
    try {
      fs.writeSync(fd, `${JSON.stringify({ v: 1, ...entry })}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return true;
  } catch {
    return false;
  }
}

/** Every whole decision line of a proposal folder, oldest first. */
export function readDecisions(proposalDir: string): DecisionEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(path.join(proposalDir, DECISIONS_FILE), 'utf8');
  } catch {
    return [];
  }
  const out: DecisionEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line) as DecisionEntry;
      if (e && e.v === 1 && typeof e.action === 'string' && typeof e.ts === 'number') out.push(e);
    } catch {
      /* a torn line: the decisions before it stand */
    }
  }
  return out;
}
