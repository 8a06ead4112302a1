/**
 * The README's install step for real: `npm link` in a clone (a copy of this checkout's package files,
 * with its installed node_modules standing in for `npm ci`) puts a working `skillopt-sleep` on PATH.
 * npm runs with a temporary HOME, global prefix, cache and npmrc, offline: the real home folder and
 * global prefix are never touched. Scripts are off because the package's only one, `prepare`, is the
 * build that `npm ci` already ran (the copy reuses dist/); linking the bin is not a script.
 * Then, from a separate project folder and through PATH alone: --version, start, status, stop.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, REPO_ROOT, makeSandbox, type Sandbox } from '../helpers/sandbox.js';

let sb: Sandbox;
let clone: string;
let prefix: string;
let projectDir: string;
let npmEnv: NodeJS.ProcessEnv;
const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; version: string; bin: Record<string, string>; files: string[]; scripts: Record<string, string> };

/** `skillopt-sleep …` as a shell finds it on PATH, run from the project folder. */
function typed(args: string[]) {
  return spawnSync('skillopt-sleep', args, { cwd: projectDir, env: sb.env, encoding: 'utf8', timeout: 60_000 });
}

beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
  sb = makeSandbox();
  clone = path.join(sb.root, 'clone', 'skillopt-sleep');
  prefix = path.join(sb.root, 'npm-global');
  projectDir = path.join(sb.env.HOME!, 'src', 'my-project');
  fs.mkdirSync(projectDir, { recursive: true });
  fs.mkdirSync(clone, { recursive: true });
  // what a clone holds after `npm ci`: the package's files, and its dependencies installed
  for (const f of ['package.json', 'package-lock.json', ...pkg.files]) {
    if (fs.existsSync(path.join(REPO_ROOT, f))) fs.cpSync(path.join(REPO_ROOT, f), path.join(clone, f), { recursive: true });
  }
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
  // empty npmrc files of our own, so neither ~/.npmrc nor the machine's global one is read
  const npmrc = path.join(sb.root, 'npmrc');
  const globalNpmrc = path.join(sb.root, 'npmrc-global');
  fs.writeFileSync(npmrc, '');
  fs.writeFileSync(globalNpmrc, '');
  npmEnv = {
    PATH: process.env.PATH,
    HOME: sb.env.HOME,
    npm_config_prefix: prefix,
    npm_config_cache: path.join(sb.root, 'npm-cache'),
    npm_config_userconfig: npmrc,
    npm_config_globalconfig: globalNpmrc,
    npm_config_offline: 'true',
    npm_config_ignore_scripts: 'true',
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
  // the binary the test types is the linked one: the prefix's bin folder first, then node itself
  sb.env.PATH = [path.join(prefix, 'bin'), path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter);
});

afterAll(() => {
  if (sb) spawnSync('skillopt-sleep', ['stop', '--force'], { cwd: projectDir, env: sb.env, encoding: 'utf8', timeout: 30_000 });
  sb?.cleanup(); // removes the clone's node_modules link, never what it points to
});

describe('npm link, as the README installs it', () => {
  it('npm link in the clone links the skillopt-sleep bin into the (temporary) global prefix', () => {
    expect(pkg.scripts.prepare).toBe('npm run build'); // the one script skipped: the build dist/ already holds
    const g = spawnSync('npm', ['prefix', '-g'], { cwd: clone, env: npmEnv, encoding: 'utf8' });
    expect(g.stdout.trim(), g.stderr).toBe(prefix);
    const r = spawnSync('npm', ['link'], { cwd: clone, env: npmEnv, encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const bin = path.join(prefix, 'bin', 'skillopt-sleep');
    expect(fs.lstatSync(bin).isSymbolicLink()).toBe(true);
    expect(fs.realpathSync(bin)).toBe(fs.realpathSync(path.join(clone, pkg.bin['skillopt-sleep']!)));
    expect(fs.statSync(bin).mode & 0o111).not.toBe(0);
    expect(fs.realpathSync(path.join(prefix, 'lib', 'node_modules', pkg.name))).toBe(fs.realpathSync(clone));
    // the shell finds exactly that one
    const which = spawnSync('sh', ['-c', 'command -v skillopt-sleep'], { env: sb.env, encoding: 'utf8' });
    expect(which.stdout.trim()).toBe(bin);
  }, 150_000);

  it('from a separate project folder: --version, start, status --json, stop', () => {
    const v = typed(['--version']);
    expect(v.status, v.stderr).toBe(0);
    expect(v.stdout.trim()).toBe(pkg.version);

    const start = typed(['start', '--json']);
    expect(start.status, start.stderr).toBe(0);
    const started = JSON.parse(start.stdout) as { $schema: string; ok: boolean; pid: number };
    expect(started).toMatchObject({ $schema: 'skillopt-sleep/start@1', ok: true });
    expect(started.pid).toBeGreaterThan(0);

    const st = typed(['status', '--json']);
    expect(st.status, st.stderr).toBe(0);
    const status = JSON.parse(st.stdout) as { $schema: string; running: boolean; pid: number; dataDir: string };
    expect(status).toMatchObject({ $schema: 'skillopt-sleep/status@1', running: true, pid: started.pid });
    // its state lives in the sandbox, not in the real home folder
    expect(status.dataDir.startsWith(sb.root + path.sep)).toBe(true);

    const stop = typed(['stop', '--json']);
    expect(stop.status, stop.stderr).toBe(0);
    expect(JSON.parse(stop.stdout)).toMatchObject({ $schema: 'skillopt-sleep/stop@1', ok: true, wasRunning: true, stillRunning: false });
    expect((JSON.parse(typed(['status', '--json']).stdout) as { running: boolean }).running).toBe(false);
  }, 120_000);
});
