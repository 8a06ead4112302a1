/**
 * `skillopt-sleep ledger` and the backend lines of `doctor`, through the built CLI
 * (run `npm run build` first).
 */
import path from 'node:path';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { recordEgress } from '../../src/llm/ledger.js';
import { resolvePaths } from '../../src/core/paths.js';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';

describe('ledger command', () => {
  let sb: Sandbox;
  afterEach(() => sb?.cleanup());

  const row = (over: Partial<Parameters<typeof recordEgress>[1]>) => ({
    ts: Date.now(),
    runId: 'run_a',
    role: 'judge',
    backend: 'anthropic',
    model: 'claude-sonnet-4-5',
    destination: 'api.anthropic.com',
    bytesSent: 1000,
    redactions: 0,
    contentHash: 'a'.repeat(64),
    tokensIn: 300,
    tokensOut: 50,
    costUsd: 0.0016,
    ok: true,
    error: null,
    ...over,
  });

  it('lists calls in the window with totals per destination, as text and --json', () => {
    sb = makeSandbox();
    const db = openDb(resolvePaths({ env: sb.env }).database);
    recordEgress(db, row({}));
    recordEgress(db, row({ redactions: 2, ok: false, error: 'HTTP 429' }));
    recordEgress(db, row({ backend: 'claude', destination: '/usr/bin/claude', role: 'target', bytesSent: 5000 }));
    recordEgress(db, row({ ts: Date.now() - 3 * 86_400_000 })); // outside the default 24h window
    db.close();

    const json = runCli(['ledger', '--json'], sb.env);
    expect(json.status).toBe(0);
    const data = JSON.parse(json.stdout) as { calls: number; totals: Array<{ destination: string; calls: number; failed: number; redactions: number; bytesSent: number }> };
    expect(data.calls).toBe(3);
    expect(data.totals).toEqual([
      expect.objectContaining({ destination: '/usr/bin/claude', calls: 1, bytesSent: 5000 }),
      expect.objectContaining({ destination: 'api.anthropic.com', calls: 2, failed: 1, redactions: 2, bytesSent: 2000 }),
    ]);
    const week = JSON.parse(runCli(['ledger', '--since', '7d', '--json'], sb.env).stdout) as { calls: number };
    expect(week.calls).toBe(4);

    const text = runCli(['ledger'], sb.env);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain('totals per destination:');
    expect(text.stdout).toContain('anthropic → api.anthropic.com: 2 calls (1 failed)');
    expect(text.stdout).toContain('FAIL HTTP 429');
  });

  it('says so when nothing left the machine, and rejects a bad --since', () => {
    sb = makeSandbox();
    const r = runCli(['ledger'], sb.env);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('nothing left this machine');
    const bad = runCli(['ledger', '--since', 'yesterday'], sb.env);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('invalid duration');
  });
});

describe('doctor backend lines', () => {
  let sb: Sandbox;
  afterEach(() => sb?.cleanup());

  it('reports available backends and the auto-detected choice per role', () => {
    sb = makeSandbox();
    const bin = path.join(sb.root, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'codex'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const env = { ...sb.env, PATH: `${bin}${path.delimiter}${path.dirname(process.execPath)}`, ANTHROPIC_API_KEY: 'x' };
    const r = runCli(['doctor', '--json'], env);
    const data = JSON.parse(r.stdout) as { checks: Array<{ name: string; status: string; detail: string }> };
    const by = (n: string) => data.checks.find((c) => c.name === n);
    expect(by('backend claude')?.status).toBe('warn');
    expect(by('backend codex')).toMatchObject({ status: 'ok', detail: path.join(bin, 'codex') });
    expect(by('backend anthropic')?.status).toBe('ok');
    expect(by('role target')?.detail).toMatch(/^codex — auto-detected/);

    const none = runCli(['doctor', '--json'], { ...sb.env, PATH: path.dirname(process.execPath) });
    const d2 = JSON.parse(none.stdout) as { ok: boolean; checks: Array<{ name: string; status: string }> };
    expect(d2.checks.find((c) => c.name === 'role target')?.status).toBe('fail');
    expect(d2.ok).toBe(false);
  });
});
