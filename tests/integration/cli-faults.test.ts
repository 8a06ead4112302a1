/**
 * Issue 38 "errors that diagnose", through the built CLI: each fault ends in a hint a user can act
 * on (never "report it", never "move the database away"), and the state survives untouched.
 * - a missing SQLite binding (a loader hook stands in a module that fails as the real one does);
 * - a read-only state folder (a read-only bind mount): the read-only commands still work;
 * - a full disk (a 1 MB tmpfs);
 * - a damaged database (truncated, zero-filled).
 * The mount cases need root with mount rights; they are skipped where mounting is not allowed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { canMount, mount } from '../helpers/mounts.js';

let sb: Sandbox;
const mounts: string[] = [];
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => {
  for (const m of mounts.splice(0)) spawnSync('umount', [m]);
  sb.cleanup();
});


const stateDb = () => path.join(sb.home, 'state', 'sleep.db');

function expectActionable(stderr: string): void {
  expect(stderr).toMatch(/^hint: /m);
  expect(stderr).not.toMatch(/report it|report this/);
  expect(stderr).not.toMatch(/move (it|the file) away/);
}

describe('faults end in a hint the user can act on', () => {
  it('a missing native binding is named, with the rebuild command, and the data is left alone', () => {
    expect(runCli(['harvest'], sb.env).status).toBe(0);
    const before = fs.readFileSync(stateDb());
    // the package resolves, its binding does not: what `npm ci` in a clone does to a linked install
    const failing = "class Database { constructor() { throw new Error('Could not locate the bindings file. Tried:\\n → /x/build/Release/better_sqlite3.node'); } }";
    const stub = path.join(sb.root, 'no-binding.cjs');
    fs.writeFileSync(stub, `module.exports = ${failing};\n`);
    // require() (the store opens it so) and import() (hooks nudge) both get the stub
    const preload = path.join(sb.root, 'no-binding-require.cjs');
    fs.writeFileSync(preload, `const Module = require('node:module');\nconst load = Module._load;\nModule._load = function (request, ...rest) {\n  return request === 'better-sqlite3' ? require(${JSON.stringify(stub)}) : load.call(this, request, ...rest);\n};\n`);
    const hooks = path.join(sb.root, 'no-binding-hooks.mjs');
    fs.writeFileSync(hooks, `export async function resolve(spec, ctx, next) {\n  if (spec === 'better-sqlite3') return { url: ${JSON.stringify('file://' + stub)}, format: 'commonjs', shortCircuit: true };\n  return next(spec, ctx);\n}\n`);
    const reg = path.join(sb.root, 'no-binding.mjs');
    fs.writeFileSync(reg, `import { register } from 'node:module';\nregister(${JSON.stringify('file://' + hooks)});\n`);
    const r = spawnSync(process.execPath, ['--require', preload, '--import', reg, CLI_BIN, 'status'], { env: sb.env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/native binding cannot be loaded: Could not locate the bindings file/);
    expect(r.stderr).toMatch(/npm rebuild better-sqlite3/);
    expect(r.stderr).toMatch(/do not move it/);
    expectActionable(r.stderr);
    expect(fs.readFileSync(stateDb()).equals(before)).toBe(true);
  });

  it('a damaged database (truncated or zero-filled) points at doctor --repair, and is left in place', () => {
    expect(runCli(['harvest'], sb.env).status).toBe(0);
    const full = fs.readFileSync(stateDb());
    for (const damaged of [full.subarray(0, 1000), Buffer.alloc(full.length)]) {
      fs.writeFileSync(stateDb(), damaged);
      const r = runCli(['status'], sb.env);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/doctor --repair/);
      expectActionable(r.stderr);
      expect(fs.readFileSync(stateDb()).equals(damaged)).toBe(true);
    }
  });

  it.skipIf(!canMount)('a read-only state folder: read-only commands work, writing ones say why', () => {
    expect(runCli(['harvest'], sb.env).status).toBe(0);
    const before = fs.readFileSync(stateDb());
    const ro = path.join(sb.root, 'ro-home');
    fs.mkdirSync(ro);
    expect(mount(['--bind', sb.home, ro])).toBe(true);
    mounts.push(ro);
    expect(mount(['-o', 'remount,ro,bind', ro])).toBe(true);
    const env = { ...sb.env, SKILLOPT_SLEEP_HOME: ro };
    for (const args of [['status'], ['proposals', 'list'], ['history'], ['skills'], ['sessions', 'list'], ['hooks', 'nudge'], ['status', '--json']]) {
      const r = runCli(args, env);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    for (const args of [['start'], ['harvest']]) {
      const r = runCli(args, env);
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/read-only/);
      expect(r.stderr).toMatch(/SKILLOPT_SLEEP_HOME/);
      expectActionable(r.stderr);
    }
    expect(fs.readFileSync(stateDb()).equals(before)).toBe(true);
  });

  it.skipIf(!canMount)('a full disk is named with where to free space, and the config is not half-written', () => {
    const small = path.join(sb.root, 'small');
    fs.mkdirSync(small);
    expect(mount(['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', small])).toBe(true);
    mounts.push(small);
    const env = { ...sb.env, SKILLOPT_SLEEP_HOME: small };
    expect(runCli(['config', 'set', 'training.epochs', '2'], env).status).toBe(0);
    const config = path.join(small, 'config.json');
    const before = fs.readFileSync(config, 'utf8');
    // fill what is left
    const fd = fs.openSync(path.join(small, 'filler'), 'w');
    try {
      const chunk = Buffer.alloc(64 * 1024, 1);
      for (;;) fs.writeSync(fd, chunk);
    } catch (err) {
      expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      fs.closeSync(fd);
    }
    const r = runCli(['config', 'set', 'training.epochs', '3'], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/no space left/);
    expect(r.stderr).toMatch(/free space on the disk that holds/);
    expectActionable(r.stderr);
    expect(fs.readFileSync(config, 'utf8')).toBe(before);
  });
});
