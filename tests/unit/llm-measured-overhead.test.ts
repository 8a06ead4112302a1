/**
 * The forecast counts an agent CLI's per-call overhead as measured in the ledger (tokens it
 * reported beyond what we sent; its reported cost per call), not a constant, once there are
 * enough calls; the built-in figure before that, and the report says which.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { measuredCallOverhead, recordEgress, MIN_MEASURED_CALLS } from '../../src/llm/ledger.js';
import { CLI_OVERHEAD_TOKENS } from '../../src/llm/pricing.js';
import { describeCliOverhead } from '../../src/night/report.js';
import { makeTempDir } from '../helpers/sandbox.js';

let dir = '';
let db: Db | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const NOW = Date.UTC(2026, 11, 1);
function row(over: Partial<Parameters<typeof recordEgress>[1]>): Parameters<typeof recordEgress>[1] {
  return { ts: NOW - 3_600_000, runId: 'r', role: 'target', backend: 'claude', model: 'claude-sonnet-4-6', destination: 'claude', bytesSent: 4_000, redactions: 0, contentHash: 'h', tokensIn: 14_500, tokensOut: 300, costUsd: 0.05, ok: true, error: null, ...over };
}

describe('measured per-call CLI overhead', () => {
  it('is the built-in figure with no db or too few calls', () => {
    expect(measuredCallOverhead(undefined, 'claude', 'target', NOW)).toEqual({ tokens: CLI_OVERHEAD_TOKENS.perform, usdPerCall: 0, calls: 0, source: 'default' });
    // claude's other roles run with our system prompt and no tools: its own, smaller figure; other CLIs keep the general one
    expect(measuredCallOverhead(undefined, 'claude', 'judge', NOW).tokens).toBe(1_000);
    expect(measuredCallOverhead(undefined, 'codex', 'judge', NOW).tokens).toBe(CLI_OVERHEAD_TOKENS.other);
    dir = makeTempDir();
    db = openDb(path.join(dir, 'l.db'));
    for (let i = 0; i < MIN_MEASURED_CALLS - 1; i++) recordEgress(db, row({}));
    expect(measuredCallOverhead(db, 'claude', 'target', NOW).source).toBe('default');
  });

  it('is the median of reported minus sent tokens over recent successful calls of that backend and role', () => {
    dir = makeTempDir();
    db = openDb(path.join(dir, 'l.db'));
    // sent 4000 bytes ≈ 1000 tokens; the CLI reported 14 500, 13 500, 12 500 → overhead 13 500, 12 500, 11 500
    recordEgress(db, row({ tokensIn: 14_500, costUsd: 0.06 }));
    recordEgress(db, row({ tokensIn: 13_500, costUsd: 0.05 }));
    recordEgress(db, row({ tokensIn: 12_500, costUsd: 0.04 }));
    // not counted: a failed call, another role, another backend, a call older than 30 days
    recordEgress(db, row({ tokensIn: 900_000, ok: false, error: 'x' }));
    recordEgress(db, row({ tokensIn: 900_000, role: 'judge' }));
    recordEgress(db, row({ tokensIn: 900_000, backend: 'codex', destination: 'codex' }));
    recordEgress(db, row({ tokensIn: 900_000, ts: NOW - 31 * 86_400_000 }));
    const o = measuredCallOverhead(db, 'claude', 'target', NOW);
    expect(o).toMatchObject({ tokens: 12_500, calls: 3, source: 'measured' });
    expect(o.usdPerCall).toBeCloseTo(0.05, 10);
    expect(describeCliOverhead('target', o)).toBe('target CLI overhead counted: ~12500 tokens per call, $0.0500 per call (measured on its last 3 calls)');
    expect(describeCliOverhead('target', measuredCallOverhead(db, 'copilot', 'target', NOW))).toBe('target CLI overhead counted: ~20000 tokens per call (built-in figure: no calls measured yet)');
  });
});
