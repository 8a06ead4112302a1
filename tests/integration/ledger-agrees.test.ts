/**
 * The egress ledger is folded once (llm/ledger.ts totalsByDestination): `ledger --json` and the
 * review's "what left this machine" header must agree on the same store (run `npm run build` first).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { recordEgress, type LedgerRow } from '../../src/llm/ledger.js';
import { createRun } from '../../src/store/repos/runs.js';
import { resolvePaths } from '../../src/core/paths.js';
import { loadLedgerSummary } from '../../src/tui/store-evidence.js';
import { ledgerLine } from '../../src/tui/format.js';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';

describe('ledger totals', () => {
  let sb: Sandbox;
  afterEach(() => sb?.cleanup());

  it('`ledger --json` and the review header report the same calls, bytes, cost and destinations', () => {
    sb = makeSandbox();
    const db = openDb(resolvePaths({ env: sb.env }).database);
    const now = Date.now();
    createRun(db, { id: 'night_1', kind: 'night', dir: sb.root, record: {}, startedAt: now - 3_600_000 });
    const row = (over: Partial<LedgerRow>): LedgerRow => ({
      ts: now - 1_800_000,
      runId: 'night_1',
      role: 'judge',
      backend: 'anthropic',
      model: 'claude-sonnet-4-5',
      destination: 'api.anthropic.com',
      bytesSent: 1000,
      redactions: 0,
      contentHash: 'a'.repeat(64),
      tokensIn: 300,
      tokensOut: 50,
      costUsd: 0.002,
      ok: true,
      error: null,
      ...over,
    });
    // many small calls to one destination, few big ones to another: a fold by calls and a fold by
    // bytes order them differently, and one destination is reached through two backends
    for (let i = 0; i < 5; i++) recordEgress(db, row({}));
    recordEgress(db, row({ ok: false, error: 'HTTP 429', redactions: 3 }));
    recordEgress(db, row({ backend: 'openai', destination: 'api.openai.com', bytesSent: 40_000, costUsd: 0.01 }));
    recordEgress(db, row({ backend: 'openai', destination: 'api.openai.com', bytesSent: 30_000, costUsd: 0.01 }));
    recordEgress(db, row({ backend: 'sim', destination: 'api.anthropic.com', bytesSent: 10 }));
    const header = loadLedgerSummary(db, now);
    db.close();

    const r = runCli(['ledger', '--json'], sb.env);
    expect(r.status).toBe(0);
    const cli = JSON.parse(r.stdout) as {
      calls: number;
      totals: Array<{ destination: string; backend: string; calls: number; failed: number; bytesSent: number; costUsd: number; tokensIn: number; tokensOut: number }>;
    };
    expect(header.window).toBe('night');
    expect(header.calls).toBe(cli.calls);
    expect(header.calls).toBe(9);
    const sum = (k: 'failed' | 'bytesSent' | 'costUsd' | 'tokensIn' | 'tokensOut') => cli.totals.reduce((a, t) => a + t[k], 0);
    expect(header.failed).toBe(sum('failed'));
    expect(header.bytesSent).toBe(sum('bytesSent'));
    expect(header.costUsd).toBeCloseTo(sum('costUsd'), 10);
    expect(header.tokensIn + header.tokensOut).toBe(sum('tokensIn') + sum('tokensOut'));
    // same rows, same order (largest traffic first)
    expect(header.destinations.map((d) => [d.backend, d.destination, d.calls])).toEqual(cli.totals.map((t) => [t.backend, t.destination, t.calls]));
    expect(header.destinations[0]).toMatchObject({ destination: 'api.openai.com', calls: 2 });
    expect(ledgerLine(header)).toContain('9 calls (api.openai.com ×2, api.anthropic.com ×6, api.anthropic.com ×1, 1 failed)');
  });
});
