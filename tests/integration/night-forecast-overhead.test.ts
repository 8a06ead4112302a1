/**
 * `night --dry-run` with an agent CLI target forecasts with the per-call overhead measured in the
 * ledger (not the built-in constant) once there are enough calls, and says so — through the real
 * CLI; the dev-installed claude binary is detected but never called.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { NODE_BIN, cliMissing } from '../helpers/llm-cli.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb } from '../../src/store/db.js';
import { recordEgress } from '../../src/llm/ledger.js';

const missing = cliMissing('claude');

describe.skipIf(!!missing)('night --dry-run forecast with a CLI target', () => {
  let sb: Sandbox;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
    sb = makeSandbox();
    env = { ...sb.env, PATH: `${NODE_BIN}${path.delimiter}${path.dirname(process.execPath)}`, SKILLOPT_SLEEP_ALLOW_BUNDLED_CLIS: '1' };
    for (const role of ['target', 'optimizer', 'judge', 'miner']) expect(runCli(['config', 'set', `roles.${role}.backend`, 'claude'], env).status).toBe(0);
  });
  afterAll(() => sb?.cleanup());

  const forecast = () => {
    const r = runCli(['night', '--dry-run', '--json'], env, { timeout: 90_000 });
    expect(r.status, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { forecast: { cliOverhead?: Record<string, { tokens: number; calls: number; source: string }> } }).forecast;
  };

  it('uses the built-in figure with an empty ledger, the measured one after real calls', () => {
    expect(forecast().cliOverhead?.target).toMatchObject({ source: 'default', calls: 0, tokens: 20_000 });
    const db = openDb(resolvePaths({ env }).database);
    const now = Date.now();
    for (const tokensIn of [14_000, 13_500, 13_000, 13_500]) {
      recordEgress(db, { ts: now - 60_000, runId: 'r', role: 'target', backend: 'claude', model: 'claude-sonnet-4-6', destination: 'claude', bytesSent: 2_000, redactions: 0, contentHash: 'h', tokensIn, tokensOut: 200, costUsd: 0, ok: true, error: null });
    }
    db.close();
    // sent 2000 bytes ≈ 500 tokens: overhead 13 500, 13 000, 12 500, 13 000 → median 13 000
    expect(forecast().cliOverhead?.target).toMatchObject({ source: 'measured', calls: 4, tokens: 13_000 });
    const text = runCli(['night', '--dry-run'], env, { timeout: 90_000 });
    expect(text.stdout).toContain('target CLI overhead counted: ~13000 tokens per call (measured on its last 4 calls)');
  });
});
