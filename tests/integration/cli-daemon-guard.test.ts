/**
 * Issue 38: `restart` and `start` check the config before they stop anything, and `status` says
 * why the daemon is not running; plus the small ones around a running daemon: `start --foreground`
 * against a running daemon fails with its pid, `config set` says when a restart is needed, and
 * `night --now` reports a refusal once. One real daemon in a sandbox (no backend: nights skipped).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
let pid = 0;
beforeAll(() => {
  sb = makeSandbox();
  const r = runCli(['start', '--json'], sb.env);
  expect(r.status, r.stderr).toBe(0);
  pid = (JSON.parse(r.stdout) as { pid: number }).pid;
}, 60_000);
afterAll(() => {
  runCli(['stop', '--force'], sb.env);
  sb.cleanup();
});

const configFile = () => path.join(sb.home, 'config.json');
const alive = (p: number) => {
  try {
    process.kill(p, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a running daemon is not stopped for a config that cannot run', () => {
  it('restart with a hand-edited invalid cron refuses and leaves the daemon running', () => {
    const before = fs.existsSync(configFile()) ? fs.readFileSync(configFile(), 'utf8') : null;
    fs.writeFileSync(configFile(), JSON.stringify({ schedule: { cron: '0 25 * * *' } }));
    try {
      const r = runCli(['restart'], sb.env);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/config invalid: schedule\.cron/);
      expect(r.stderr).toMatch(new RegExp(`Nothing was stopped: the daemon \\(pid ${pid}\\) keeps running`));
      expect(alive(pid)).toBe(true);
      const s = runCli(['status', '--json'], sb.env);
      expect((JSON.parse(s.stdout) as { running: boolean; pid: number }).pid).toBe(pid);
      // start refuses the same config the same way
      const st = runCli(['start'], sb.env);
      expect(st.status).toBe(1);
      expect(st.stderr).toMatch(/config invalid: schedule\.cron/);
    } finally {
      if (before === null) fs.rmSync(configFile());
      else fs.writeFileSync(configFile(), before);
    }
  }, 60_000);

  it('start --foreground while it runs exits non-zero and names its pid', () => {
    const r = runCli(['start', '--foreground'], sb.env, { timeout: 30_000 });
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(new RegExp(`already running \\(pid ${pid}\\)`));
    expect(alive(pid)).toBe(true);
  }, 60_000);

  it('config set says a restart is needed only for a key the daemon read at its start', () => {
    const sched = runCli(['config', 'set', 'schedule.catchUp', 'false'], sb.env);
    expect(sched.status, sched.stderr).toBe(0);
    expect(sched.stdout).toMatch(new RegExp(`the daemon \\(pid ${pid}\\) read schedule\\.catchUp when it started: \`skillopt-sleep restart\` applies the change`));
    const epochs = runCli(['config', 'set', 'training.epochs', '2', '--json'], sb.env);
    expect(JSON.parse(epochs.stdout)).toMatchObject({ key: 'training.epochs', restartNeeded: false });
    const plain = runCli(['config', 'set', 'training.epochs', '2'], sb.env);
    expect(plain.stdout).toMatch(/the next night uses it \(no restart needed\)/);
  }, 60_000);

  it('night --now prints a refusal once', () => {
    const r = runCli(['night', '--now'], sb.env, { timeout: 60_000 });
    expect(r.status).toBe(1);
    expect(r.stderr.match(/did not start a night/g)).toHaveLength(1);
  }, 90_000);

  it('status says who stopped it', () => {
    const st = runCli(['stop'], sb.env);
    expect(st.status, st.stderr).toBe(0);
    const s = runCli(['status'], sb.env);
    expect(s.stdout).toMatch(/daemon: +stopped since .* \(stopped by `skillopt-sleep stop`\)/);
    // folders with nothing harvested say so, not "(0 sessions)"
    expect(s.stdout).not.toMatch(/\(0 sessions\)|\(1 sessions\)/);
  }, 60_000);
});
