/**
 * The daemon end to end, as real processes: the built CLI starts a detached daemon in a sandbox
 * (SKILLOPT_SLEEP_HOME + fake agent homes), real chokidar watches real files, a real night runs
 * in a child process on the simulated backend. Requires `npm run build`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { makeSandbox, REPO_ROOT, runCli, type Sandbox } from '../helpers/sandbox.js';
import { CLAUDE_PROJECT_DIR, fixtureFile } from '../helpers/fixtures.js';
import { resolvePaths } from '../../src/core/paths.js';
import { requestNightNow } from '../../src/daemon/ipc.js';
import { writeDemoCorpus } from '../../src/demo/corpus.js';

const FIX_DIR = fixtureFile('claude-code', CLAUDE_PROJECT_DIR);
const FIX_A = '5f0c2b7e-8d4a-4f61-9b3e-2a7c91d4e860.jsonl';
const FIX_B = '2e8f6d19-3a4c-4b7e-a1d0-5c9b8e7f6a23.jsonl';

const FAST = { SKILLOPT_SLEEP_DAEMON_DEBOUNCE_MS: '100', SKILLOPT_SLEEP_DAEMON_MINE_DELAY_MS: '300' };
const SIM = {
  SKILLOPT_SLEEP_ROLES_TARGET_BACKEND: 'sim',
  SKILLOPT_SLEEP_ROLES_OPTIMIZER_BACKEND: 'sim',
  SKILLOPT_SLEEP_ROLES_JUDGE_BACKEND: 'sim',
  SKILLOPT_SLEEP_ROLES_MINER_BACKEND: 'sim',
  SKILLOPT_SLEEP_TRAINING_MIN_VAL_TASKS: '2',
};

async function waitFor<T>(what: string, fn: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

function json<T>(sb: Sandbox, args: string[]): T {
  const r = runCli([...args, '--json'], sb.env);
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout) as T;
}

/** `sessions list --json` is `{$schema, sessions: [...]}`. */
function listSessions(sb: Sandbox, args: string[]): SessionRow[] {
  return json<{ sessions: SessionRow[] }>(sb, args).sessions;
}

interface SessionRow {
  id: string;
  promptCount: number;
  file: string;
}
interface Status {
  running: boolean;
  state: string;
  pid?: number;
  health?: { filesIngested: number; newSessions: number; queueDepth: number; harvesting: boolean; roots: Array<{ agent: string; path: string; exists: boolean; sessions: number }>; backend: { name: string | null } };
  lastNight?: { status: string; reason: string };
  stagedProposals: number;
}

const sandboxes: Sandbox[] = [];
afterEach(() => {
  for (const sb of sandboxes.splice(0)) {
    runCli(['stop', '--force', '--timeout', '5'], sb.env);
    sb.cleanup();
  }
});

function sandbox(extra: NodeJS.ProcessEnv = {}): Sandbox {
  const sb = makeSandbox({ ...FAST, ...extra });
  sandboxes.push(sb);
  return sb;
}

const quiet = (sb: Sandbox) => () => {
  const s = json<Status>(sb, ['status']);
  return s.health && !s.health.harvesting && s.health.queueDepth === 0 ? s : undefined;
};

describe('daemon (e2e)', () => {
  it('start → watch → ingest appends → stop → start resumes without re-ingesting → kill -9 → start recovers', async () => {
    const sb = sandbox(SIM);
    const projDir = path.join(sb.env.CLAUDE_CONFIG_DIR!, CLAUDE_PROJECT_DIR);
    fs.mkdirSync(projDir, { recursive: true });
    const allA = fs.readFileSync(path.join(FIX_DIR, FIX_A), 'utf8').split('\n').filter(Boolean);
    const fileA = path.join(projDir, FIX_A);
    fs.writeFileSync(fileA, allA.slice(0, 4).join('\n') + '\n');

    const start = runCli(['start'], sb.env);
    expect(start.status, start.stderr).toBe(0);
    expect(start.stdout).toMatch(/skillopt-sleep started \(pid \d+\)/);
    expect(start.stdout).toContain(path.join(sb.env.CLAUDE_CONFIG_DIR!, 'projects'));
    expect(start.stdout).toMatch(/backend: +sim/);
    expect(start.stdout).toMatch(/next night: \d{4}-\d\d-\d\d 03:00/);
    expect(start.stdout).toContain(sb.home);
    const again = runCli(['start'], sb.env);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/already running/);

    // the initial catch-up harvest finds the partial session
    const first = await waitFor('session A', () => listSessions(sb, ['sessions', 'list']).find((s) => s.file === fileA));
    // the rest of the transcript is appended line by line, as the agent writes it
    for (const l of allA.slice(4)) fs.appendFileSync(fileA, l + '\n');
    await waitFor('appended prompts', () => {
      const s = listSessions(sb, ['sessions', 'list']).find((x) => x.file === fileA);
      return s && s.promptCount > first.promptCount ? s : undefined;
    });
    // a new session file
    fs.copyFileSync(path.join(FIX_DIR, FIX_B), path.join(projDir, FIX_B));
    await waitFor('session B', () => listSessions(sb, ['sessions', 'list']).find((s) => s.file.endsWith(FIX_B)));

    const st = await waitFor('quiet daemon', quiet(sb));
    expect(st.running).toBe(true);
    expect(st.health!.newSessions).toBeGreaterThanOrEqual(2);
    expect(st.health!.roots.find((r) => r.exists)?.sessions).toBe(2);
    const before = listSessions(sb, ['sessions', 'list']);

    // stop: clean exit, state recorded
    const stop = runCli(['stop'], sb.env);
    expect(stop.status, stop.stderr).toBe(0);
    expect(stop.stdout).toMatch(/stopped the daemon/);
    expect(json<Status>(sb, ['status']).state).toBe('stopped');

    // start again: resumes from the stored offsets, nothing is read twice
    expect(runCli(['start'], sb.env).status).toBe(0);
    const resumed = await waitFor('quiet daemon after restart', quiet(sb));
    expect(resumed.health!.filesIngested).toBe(0);
    expect(resumed.health!.newSessions).toBe(0);
    expect(listSessions(sb, ['sessions', 'list'])).toEqual(before);

    // kill -9: the lease and pid file are left behind; status says so; start recovers
    const pid = resumed.pid!;
    process.kill(pid, 'SIGKILL');
    await waitFor('crashed state', () => json<Status>(sb, ['status']).state === 'crashed');
    const recover = runCli(['start'], sb.env);
    expect(recover.status, recover.stderr).toBe(0);
    const recovered = json<Status>(sb, ['status']);
    expect(recovered.running).toBe(true);
    expect(recovered.pid).not.toBe(pid);
    const logs = runCli(['logs', '-n', '200'], sb.env);
    expect(logs.stdout).toMatch(/took over the lease of a daemon that is gone/);
  }, 90_000);

  it('night --now runs a night in a child process on the sim backend and stages a proposal', async () => {
    const sb = sandbox(SIM);
    writeDemoCorpus({
      claudeConfigDir: sb.env.CLAUDE_CONFIG_DIR!,
      codexHome: sb.env.CODEX_HOME!,
      copilotHome: sb.env.COPILOT_HOME!,
      projectsRoot: path.join(sb.env.HOME!, 'src'),
    });
    const start = runCli(['start'], sb.env);
    expect(start.status, start.stderr).toBe(0);
    await waitFor('sessions harvested', () => listSessions(sb, ['sessions', 'list', '--limit', '500']).length >= 10 || undefined, 30_000);
    await waitFor('quiet daemon', quiet(sb));
    // the CLI asks the daemon; the daemon runs `night` in a child process and relays its report
    const night = runCli(['night', '--now', '--json'], sb.env, { timeout: 110_000 });
    expect(night.status, night.stderr).toBe(0);
    const report = JSON.parse(night.stdout) as { id: string; status: string; summary: string; proposals: string[] };
    expect(report.id).toMatch(/^night_/);
    expect(report.proposals.length, report.summary).toBeGreaterThan(0);
    const st = json<Status>(sb, ['status']);
    expect(st.lastNight?.status).toBe('done');
    expect(st.stagedProposals).toBeGreaterThan(0);
    expect(st.running).toBe(true); // the night ran in a child: the watcher is still up
  }, 120_000);

  it('on a machine with no agents and no backend: runs, watches, skips nights quietly, picks up a folder created later', async () => {
    const sb = sandbox({ PATH: path.dirname(process.execPath) });
    const start = runCli(['start'], sb.env);
    expect(start.status, start.stderr).toBe(0);
    expect(start.stdout).toMatch(/claude-code +none yet; watching for it/);
    expect(start.stdout).toMatch(/codex +none yet; watching for it/);
    expect(start.stdout).toMatch(/nights are skipped until one is available/);

    for (let i = 0; i < 2; i++) {
      const r = runCli(['night', '--now'], sb.env);
      expect(r.status, r.stdout + r.stderr).toBe(1);
      expect(r.stderr).toMatch(/the daemon did not start a night: no backend available/);
    }
    const paths = resolvePaths({ env: sb.env });
    const r = await requestNightNow({ paths }); // the same request, through the library
    expect(r.accepted).toBe(false);

    // Claude Code gets installed: its folder appears with a transcript in it
    const projDir = path.join(sb.env.CLAUDE_CONFIG_DIR!, CLAUDE_PROJECT_DIR);
    fs.mkdirSync(projDir, { recursive: true });
    fs.copyFileSync(path.join(FIX_DIR, FIX_A), path.join(projDir, FIX_A));
    await waitFor('session from the new folder', () => listSessions(sb, ['sessions', 'list']).find((s) => s.file.endsWith(FIX_A)));
    const st = json<Status>(sb, ['status']);
    expect(st.health!.roots.find((r) => r.path === path.join(sb.env.CLAUDE_CONFIG_DIR!, 'projects'))?.exists).toBe(true);
    expect(st.lastNight?.status).toBe('skipped');

    // no nagging: the missing backend is logged once, not per request
    const logs = runCli(['logs', '-n', '500', '--json'], sb.env).stdout.split('\n').filter((l) => /no backend available/.test(l));
    expect(logs.length).toBe(1);
    const stop = runCli(['stop'], sb.env);
    expect(stop.status, stop.stdout + stop.stderr).toBe(0);
  }, 60_000);
  it('after an upgrade, status says the daemon still runs the old version, and restart switches it', async () => {
    const sb = sandbox(SIM);
    // the previous install: the same build under an older version number
    const old = path.join(sb.root, 'old-install');
    fs.mkdirSync(old);
    for (const d of ['dist', 'skills', 'schema']) if (fs.existsSync(path.join(REPO_ROOT, d))) fs.cpSync(path.join(REPO_ROOT, d), path.join(old, d), { recursive: true });
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    fs.writeFileSync(path.join(old, 'package.json'), JSON.stringify({ ...pkg, version: '0.0.1-old' }));
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(old, 'node_modules'), 'dir');
    const start = spawnSync(process.execPath, [path.join(old, 'dist/src/cli/main.js'), 'start'], { env: sb.env, encoding: 'utf8', timeout: 60_000 });
    expect(start.status, start.stderr).toBe(0);

    const version = (s: Status) => (s.health as { version?: string } | undefined)?.version;
    expect(version(json<Status>(sb, ['status']))).toBe('0.0.1-old');
    const text = runCli(['status'], sb.env).stdout;
    expect(text).toContain(`version:     the daemon runs 0.0.1-old, this is ${pkg.version}; \`skillopt-sleep restart\` switches it`);

    const restart = runCli(['restart'], sb.env);
    expect(restart.status, restart.stderr).toBe(0);
    const after = json<Status>(sb, ['status']);
    expect(after.running).toBe(true);
    expect(version(after)).toBe(pkg.version);
    const plain = runCli(['status'], sb.env).stdout;
    expect(plain).not.toContain('version:');
    expect(plain).toMatch(/^daemon: +running \(pid \d+, up \d+s\)$/m);
    expect(plain.match(/^daemon:/gm)).toHaveLength(1); // one state line, not "running" and "never started"
    expect(text.match(/^daemon:/gm)).toHaveLength(1);
    expect(runCli(['stop'], sb.env).status).toBe(0);
  }, 90_000);
});
