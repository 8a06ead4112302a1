/**
 * The egress ledger: one row per outbound model call (what left the machine, to where, how big,
 * how many secrets were redacted from it, and a hash of exactly what was sent). `sim` and cache
 * hits never leave the machine and are not recorded.
 */
import type { Db } from '../store/db.js';
import { recentCallUsage, type LedgerRow } from '../store/repos/ledger.js';
import { CHARS_PER_TOKEN, cliOverheadTokens } from './pricing.js';
import type { Role } from '../core/protocol.js';

export { listEgress, recordEgress, type LedgerRow } from '../store/repos/ledger.js';

/** The counts summed over ledger rows: per destination, and again over all destinations. */
export interface LedgerTotals {
  calls: number;
  failed: number;
  bytesSent: number;
  redactions: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}

export interface DestinationTotal extends LedgerTotals {
  destination: string;
  backend: string;
  cacheReadTokens: number;
}

/**
 * Totals per (destination, backend), largest traffic first. Pure. This is the one fold of ledger
 * rows: the `ledger` command and the review's header both show it, so they cannot disagree.
 */
export function totalsByDestination(rows: LedgerRow[]): DestinationTotal[] {
  const map = new Map<string, DestinationTotal>();
  for (const r of rows) {
    const key = `${r.backend}\u0000${r.destination}`;
    let t = map.get(key);
    if (!t) {
      t = { destination: r.destination, backend: r.backend, calls: 0, failed: 0, bytesSent: 0, redactions: 0, tokensIn: 0, tokensOut: 0, cacheReadTokens: 0, costUsd: 0 };
      map.set(key, t);
    }
    t.calls++;
    if (!r.ok) t.failed++;
    t.bytesSent += r.bytesSent;
    t.redactions += r.redactions;
    t.tokensIn += r.tokensIn;
    t.tokensOut += r.tokensOut;
    t.cacheReadTokens += r.cacheReadTokens ?? 0;
    t.costUsd += r.costUsd;
  }
  return [...map.values()].sort((a, b) => b.bytesSent - a.bytesSent);
}

/** The grand total over the per-destination totals. Pure. */
export function sumTotals(totals: readonly DestinationTotal[]): LedgerTotals {
  const sum: LedgerTotals = { calls: 0, failed: 0, bytesSent: 0, redactions: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 };
  for (const t of totals) {
    sum.calls += t.calls;
    sum.failed += t.failed;
    sum.bytesSent += t.bytesSent;
    sum.redactions += t.redactions;
    sum.tokensIn += t.tokensIn;
    sum.tokensOut += t.tokensOut;
    sum.costUsd += t.costUsd;
  }
  return sum;
}

/** What one call of a backend in a role costs beyond the prompt we send, measured or assumed. */
export interface CallOverhead {
  /** prompt tokens the agent CLI adds to ours per call (its system prompt, tools, skill listing, file reads) */
  tokens: number;
  /** dollars per call as the CLI reported them (0 on a subscription) */
  usdPerCall: number;
  /** calls it was measured on (0: the built-in assumption) */
  calls: number;
  source: 'measured' | 'default';
}

/** Fewer calls than this and the built-in figure stands (one odd call is not a measurement). */
export const MIN_MEASURED_CALLS = 3;

/**
 * The per-call overhead of an agent CLI in a role, from the ledger: the median over its newest
 * successful calls (last 30 days, up to 200) of the tokens it reported minus the tokens of what we
 * sent, and the mean cost per call. The built-in constant when there are not enough calls yet.
 */
export function measuredCallOverhead(db: Db | undefined, backend: string, role: Role, now = Date.now()): CallOverhead {
  const fallback: CallOverhead = { tokens: cliOverheadTokens(role, backend), usdPerCall: 0, calls: 0, source: 'default' };
  if (!db) return fallback;
  const rows = recentCallUsage(db, backend, role, { sinceMs: now - 30 * 86_400_000, limit: 200 });
  if (rows.length < MIN_MEASURED_CALLS) return fallback;
  const extra = rows.map((r) => Math.max(0, r.tokensIn - r.bytesSent / CHARS_PER_TOKEN)).sort((a, b) => a - b);
  const mid = extra.length >> 1;
  const median = extra.length % 2 ? extra[mid] : (extra[mid - 1] + extra[mid]) / 2;
  return { tokens: Math.round(median), usdPerCall: rows.reduce((a, r) => a + r.costUsd, 0) / rows.length, calls: rows.length, source: 'measured' };
}
