import { afterAll, describe, expect, it } from 'vitest';
import { makeSandbox, runCli } from '../helpers/sandbox.js';
import { shapeProblems } from '../helpers/json-docs.js';

const sb = makeSandbox();
afterAll(() => sb.cleanup());

describe('CLI frame (built binary)', () => {
  it('--version and --help exit 0', () => {
    const v = runCli(['--version'], sb.env);
    expect(v.status).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const h = runCli(['--help'], sb.env);
    expect(h.status).toBe(0);
    expect(h.stdout).toContain('paths');
    expect(h.stdout).toContain('doctor');
  });

  it('unknown commands and options exit 2', () => {
    expect(runCli(['frobnicate'], sb.env).status).toBe(2);
    expect(runCli(['paths', '--nope'], sb.env).status).toBe(2);
  });

  it('paths --json has a stable shape', () => {
    const r = runCli(['paths', '--json'], sb.env);
    expect(r.status).toBe(0);
    const data = JSON.parse(r.stdout);
    expect(data.database).toBe(`${sb.home}/state/sleep.db`);
    expect(Object.keys(data)).toEqual(expect.arrayContaining(['config', 'state', 'database', 'logs', 'proposals', 'backups']));
  });

  it('errors print one line with a hint, no stack, exit 1/2; --json errors are JSON', () => {
    const bad = runCli(['config', 'set', 'budget.maxUsd', 'many'], sb.env);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^error: .*budget.maxUsd/m);
    expect(bad.stderr).toMatch(/^hint: /m);
    expect(bad.stderr).not.toMatch(/at .*\.js:\d+/);
    const j = runCli(['config', 'get', 'nope.key', '--json'], sb.env);
    expect(j.status).toBe(2);
    expect(JSON.parse(j.stdout)).toMatchObject({ $schema: 'skillopt-sleep/error@1', ok: false, error: { code: 'USAGE' } });
    expect(shapeProblems(JSON.parse(j.stdout), 'error')).toEqual([]);
  });

  it('config set/get round-trips and doctor reports --json', () => {
    expect(runCli(['config', 'set', 'schedule.cron', '30 2 * * *'], sb.env).status).toBe(0);
    const g = runCli(['config', 'get', 'schedule.cron', '--json'], sb.env);
    expect(JSON.parse(g.stdout)).toEqual({ $schema: 'skillopt-sleep/config-get@1', key: 'schedule.cron', value: '30 2 * * *' });
    const d = runCli(['doctor', '--json'], sb.env);
    const doc = JSON.parse(d.stdout);
    expect(doc.checks.find((c: { name: string }) => c.name === 'database').status).toBe('ok');
    expect(doc.checks.find((c: { name: string }) => c.name === 'node').status).toBe('ok');
  });
});
