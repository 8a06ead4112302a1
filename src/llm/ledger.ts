/**
 * The egress ledger: one row per outbound model call (what left the machine, to where, how big,
 * how many secrets were redacted from it, and a hash of exactly what was sent). `sim` and cache
 * hits never leave the machine and are not recorded.
 */
import type { LedgerRow } from '../store/repos/ledger.js';

export { listEgress, recordEgress, type LedgerRow } from '../store/repos/ledger.js';

export interface DestinationTotal {
  destination: string;
  backend: string;
  calls: number;
  failed: number;
  bytesSent: number;
  redactions: number;
  tokensIn: number;
  tokensOut: number;
  cacheReadTokens: number;
  costUsd: number;
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

export interface LedgerTotals {
  calls: number;
  failed: number;
  bytesSent: number;
  redactions: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
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
