/**
 * The real `opencode` CLI for the tests, installed on first use from the npm registry into
 * `node_modules/.cache/skillopt-test-clis/` (kept between runs).
 *
 * Why not a devDependency: opencode-ai lists a native package per platform as optional
 * dependencies, and a registry that does not carry every one of them (this project's CI mirror
 * carries only the Linux ones) leaves them out of package-lock.json, which makes `npm ci` refuse
 * the lock file. `npm install` tolerates a missing optional package, so the tests install it here.
 * Its postinstall swaps the stub `bin/opencode.exe` for the native binary, so it must be allowed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from './sandbox.js';

export const OPENCODE_VERSION = '1.18.33';
const PREFIX = path.join(REPO_ROOT, 'node_modules', '.cache', 'skillopt-test-clis', `opencode-ai-${OPENCODE_VERSION}`);
/** the folder holding the `opencode` command (put it first on the sandbox's PATH) */
export const OPENCODE_BIN_DIR = path.join(PREFIX, 'node_modules', '.bin');

function stubOrMissing(): string | null {
  const bin = path.join(OPENCODE_BIN_DIR, 'opencode');
  if (!fs.existsSync(bin)) return `${bin} not installed`;
  // the package ships a stub at bin/opencode.exe that its postinstall replaces with the native binary
  return fs.statSync(fs.realpathSync(bin)).size < 4096 ? 'opencode-ai postinstall did not run (bin/opencode.exe is still the stub)' : null;
}

/** Installs opencode-ai once; returns why it is unavailable, or null when `OPENCODE_BIN_DIR/opencode` runs. */
export function ensureOpencode(): string | null {
  if (!stubOrMissing()) return null;
  fs.mkdirSync(PREFIX, { recursive: true });
  fs.writeFileSync(
    path.join(PREFIX, 'package.json'),
    JSON.stringify({ name: 'skillopt-test-opencode', private: true, dependencies: { 'opencode-ai': OPENCODE_VERSION }, allowScripts: { 'opencode-ai': true } }, null, 2),
  );
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--prefix', PREFIX], { encoding: 'utf8', timeout: 600_000 });
  const why = stubOrMissing();
  if (why) return `${why}: npm install opencode-ai@${OPENCODE_VERSION} exited ${r.status}: ${(r.stderr || r.stdout || String(r.error ?? '')).trim().split('\n').slice(-3).join(' | ')}`;
  return null;
}
