/**
 * How many proposals are in one status: what `status`, the daemon's health and the nudge file need.
 * Its own module because proposals.ts parses records with zod, which a one-line command must not
 * load (issue 40; tests/integration/cli-start-light.test.ts).
 */
import type { Db } from '../db.js';
import type { ProposalStatus } from '../../core/records.js';

export function countProposals(db: Db, status: ProposalStatus): number {
  const row = db.prepare(`SELECT COUNT(*) AS n FROM proposals WHERE status = ?`).get(status) as { n: number };
  return row.n;
}
