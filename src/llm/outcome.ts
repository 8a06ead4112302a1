/**
 * The opt-in outcome check: a project's own command (`npm run lint`, `tsc --noEmit`, its tests)
 * run in the replay workspace after the agent finished, scored by its exit code. It runs with no
 * network (a new network namespace through `unshare`, when the machine allows one; otherwise the
 * result says so), a minimal environment (no credentials), its own process group and a time limit
 * after which the whole group is killed and the check fails.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

import type { OutcomeRun } from '../core/records.js';
import { isSleepError } from '../core/errors.js';
import { redactSecrets } from '../core/redact.js';
import { findOnPath, runProcess } from './spawn.js';

let netCut: { ok: boolean; argv: string[]; detail: string } | undefined;

/** How commands get no network here: `unshare -n` (root) or `unshare -rn` (user namespace), probed once. */
export function networkCutAvailable(): { ok: boolean; argv: string[]; detail: string } {
  if (netCut) return netCut;
  const unshare = findOnPath('unshare');
  if (unshare && process.platform === 'linux') {
    for (const flags of [['-n'], ['-r', '-n']]) {
      const probe = spawnSync(unshare, [...flags, 'true'], { stdio: 'ignore', timeout: 5000 });
      if (probe.status === 0) return (netCut = { ok: true, argv: [unshare, ...flags], detail: `no network (unshare ${flags.join(' ')})` });
    }
  }
  return (netCut = { ok: false, argv: [], detail: 'the network could NOT be cut on this machine (no usable `unshare`): the command runs with network access' });
}

const TAIL_CHARS = 2000;

export async function runOutcomeCommand(workspace: string, command: string, timeoutMs: number): Promise<OutcomeRun> {
  const started = Date.now();
  const net = networkCutAvailable();
  const home = `${workspace}.cmdhome`;
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LANG: process.env.LANG ?? 'C.UTF-8',
    CI: '1',
    NO_COLOR: '1',
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
  };
  const [bin, ...pre] = net.ok ? net.argv : ['/bin/sh'];
  const argv = net.ok ? [...pre, '/bin/sh', '-c', command] : ['-c', command];
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new Error('timeout')), timeoutMs);
  try {
    const r = await runProcess(bin, argv, { cwd: workspace, env, signal: ctl.signal, maxOutputBytes: 4 * 1024 * 1024, killGraceMs: 500 });
    const tail = redactSecrets(`${r.stdout}\n${r.stderr}`.trim().slice(-TAIL_CHARS)).text;
    return { command, exitCode: r.code, timedOut: false, network: net.detail, ms: Date.now() - started, tail };
  } catch (err) {
    if (ctl.signal.aborted || (isSleepError(err) && err.code === 'ABORTED')) {
      return { command, exitCode: null, timedOut: true, network: net.detail, ms: Date.now() - started, tail: `killed after ${Math.round(timeoutMs / 1000)} s` };
    }
    return { command, exitCode: null, timedOut: false, network: net.detail, ms: Date.now() - started, tail: String((err as Error).message ?? err) };
  } finally {
    clearTimeout(timer);
    fs.rmSync(home, { recursive: true, force: true });
  }
}

