/**
 * Issue 40: a command that prints one line starts like a small tool. `--version` and `hooks nudge`
 * (run at the start of every agent session) must not load the TUI, the LLM SDKs, the config schema
 * or the SQLite binding; `status` opens the store but loads no schema, no agent parser, no TUI, no SDK,
 * and before the first harvest (no store yet) it loads no SQLite binding and creates nothing.
 * An ESM loader hook, registered with `--import`, records every module the
 * built CLI loads, and require.cache at exit adds the CommonJS ones.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { openDb } from '../../src/store/db.js';
import { insertProposal } from '../../src/store/repos/proposals.js';
import type { Proposal } from '../../src/core/records.js';

/** What no command may load just to register itself (the program's help registers them all). */
const UI_AND_SDK = ['/node_modules/ink/', '/node_modules/react/', '/node_modules/openai/', '/node_modules/@anthropic-ai/sdk/', '/node_modules/pg/'];
const HEAVY = ['/node_modules/ink/', '/node_modules/react/', '/node_modules/openai/', '/node_modules/@anthropic-ai/sdk/', '/node_modules/better-sqlite3/', '/node_modules/zod/'];

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

let runs = 0;

/** Runs the CLI with a loader hook; returns its exit, stdout and the URLs of every module it loaded. */
function loadsOf(args: string[]): { status: number | null; stdout: string; modules: string[] } {
  const log = path.join(sb.root, `loads-${++runs}.txt`);
  const hooks = path.join(sb.root, 'log-hooks.mjs');
  fs.writeFileSync(
    hooks,
    `import fs from 'node:fs';\nexport async function load(url, context, next) {\n  fs.appendFileSync(${JSON.stringify(log)}, url + '\\n');\n  return next(url, context);\n}\n`,
  );
  const register = path.join(sb.root, 'register.mjs');
  // ESM loads through the hook; CommonJS ones (a require() of a native binding) from require.cache at exit
  fs.writeFileSync(
    register,
    `import fs from 'node:fs';\nimport { createRequire, register } from 'node:module';\nimport { pathToFileURL } from 'node:url';\nregister(pathToFileURL(${JSON.stringify(hooks)}).href);\nconst cache = createRequire(import.meta.url).cache;\nprocess.on('exit', () => fs.appendFileSync(${JSON.stringify(log)}, Object.keys(cache).map((f) => pathToFileURL(f).href + '\\n').join('')));\n`,
  );
  const r = spawnSync(process.execPath, ['--import', register, CLI_BIN, ...args], { env: sb.env, encoding: 'utf8', timeout: 60_000 });
  const modules = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  return { status: r.status, stdout: r.stdout, modules };
}

/** Two staged proposal rows, written straight into the store (as a process that does not keep the nudge file would). */
function stageTwo(): void {
  const d = openDb(path.join(sb.home, 'state', 'sleep.db'));
  const rec = (id: string) => ({ id, runId: null, skillTarget: { agent: null, path: `/w/p/.claude/skills/${id}/SKILL.md`, name: id, kind: 'managed', readBy: [], project: '/w/p' }, baseHash: '', candidate: 'c', diff: '', baselineScore: 0, candidateScore: 1, perTask: [], edits: [], status: 'staged', createdAt: Date.now(), dir: '/nonexistent' });
  insertProposal(d, rec('p1') as unknown as Proposal);
  insertProposal(d, rec('p2') as unknown as Proposal);
  d.close();
}

const heavyIn = (modules: string[]) => modules.filter((u) => HEAVY.some((h) => u.includes(h)));

describe('a one-line command loads only what it uses', () => {
  it('--version loads no command, no store, no schema', () => {
    const r = loadsOf(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(r.modules.some((u) => u.endsWith('/cli/main.js')), 'the hook saw the CLI load').toBe(true);
    expect(heavyIn(r.modules)).toEqual([]);
    expect(r.modules.filter((u) => u.includes('/cli/commands/') && !u.endsWith('/index.js'))).toEqual([]);
    expect(r.modules.filter((u) => u.includes('/node_modules/commander/')), 'one line needs no argument parser').toEqual([]);
    expect(loadsOf(['-V']).stdout).toBe(r.stdout);
  });

  it('config path prints its one line without the schema or the store; config get still validates', () => {
    const r = loadsOf(['config', 'path']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(path.join(sb.home, 'config.json'));
    expect(heavyIn(r.modules)).toEqual([]);
    expect(r.modules.filter((u) => u.includes('/daemon/'))).toEqual([]);
    const get = loadsOf(['config', 'get', 'schedule.cron']);
    expect(get.stdout.trim()).toBe('0 3 * * *');
    expect(get.modules.some((u) => u.includes('/node_modules/zod/'))).toBe(true);
  });

  it('hooks nudge answers from the nudge file, without the store', () => {
    // before anything created a store, the nudge is silent and creates nothing either
    const none = loadsOf(['hooks', 'nudge']);
    expect(none.status).toBe(0);
    expect(none.stdout).toBe('');
    expect(heavyIn(none.modules)).toEqual([]);
    expect(fs.existsSync(sb.home), 'no state folder').toBe(false);
    // a first harvest creates the store; closing it records the staged count (none yet)
    expect(runCli(['harvest'], sb.env).status).toBe(0);
    const nudgeFile = path.join(sb.home, 'state', 'nudge.json');
    expect(JSON.parse(fs.readFileSync(nudgeFile, 'utf8'))).toMatchObject({ staged: 0 });
    const quiet = loadsOf(['hooks', 'nudge']);
    expect(quiet.status).toBe(0);
    expect(quiet.stdout).toBe('');
    expect(heavyIn(quiet.modules)).toEqual([]);
    expect(quiet.modules.filter((u) => u.includes('/cli/commands/') && !u.endsWith('/index.js')).map((u) => path.basename(u))).toEqual(['hooks.js']);

    // two proposals staged behind the file's back: the database changed, so the nudge asks it
    stageTwo();
    const fresh = loadsOf(['hooks', 'nudge']);
    expect(fresh.stdout.trim()).toBe('2 skill proposals waiting: skillopt-sleep review');
    // any command that closes the store records the new count; then the file answers alone again
    expect(runCli(['status'], sb.env).status).toBe(0);
    expect(JSON.parse(fs.readFileSync(nudgeFile, 'utf8'))).toMatchObject({ staged: 2 });
    const two = loadsOf(['hooks', 'nudge']);
    expect(two.stdout.trim()).toBe('2 skill proposals waiting: skillopt-sleep review');
    expect(heavyIn(two.modules)).toEqual([]);
  });

  it('the first status after an install shows the empty state from the built-in defaults: no schema, no SQLite binding, nothing created', () => {
    const text = loadsOf(['status']);
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/^daemon: +never started; `skillopt-sleep start` starts it$/m);
    expect(text.stdout).toMatch(/^proposals: +none waiting$/m);
    const json = loadsOf(['status', '--json']);
    expect(json.status).toBe(0);
    for (const r of [text, json]) {
      expect(heavyIn(r.modules)).toEqual([]);
      expect(r.modules.filter((u) => /\/adapters\/[^/]+\/(parse|exec|index)\.js$/.test(u))).toEqual([]);
    }
    expect(fs.existsSync(sb.home), 'status created no state folder, store or cache').toBe(false);
    const empty = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(empty).toMatchObject({ running: false, state: 'not started', stagedProposals: 0, schedule: { cron: '0 3 * * *', timezone: null, catchUp: true }, transcriptProblems: { files: 0, sample: [] }, agentNotices: [] });

    // the same report as a status over the empty store a first harvest makes, which it reads
    expect(runCli(['harvest'], sb.env).status).toBe(0);
    const stored = loadsOf(['status', '--json']);
    expect(stored.modules.some((u) => u.includes('/node_modules/better-sqlite3/')), 'status reads the store now').toBe(true);
    const { nextNightAt: a, ...restEmpty } = empty;
    const { nextNightAt: b, ...restStored } = JSON.parse(stored.stdout) as Record<string, unknown>;
    expect(restStored).toEqual(restEmpty);
    expect(typeof a === 'string' && typeof b === 'string').toBe(true);
  });

  it('an override in the environment is validated, never taken from the built-in defaults', () => {
    const env = { ...sb.env, SKILLOPT_SLEEP_SCHEDULE_CRON: '15 2 * * *' };
    const r = spawnSync(process.execPath, [CLI_BIN, 'status', '--json'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { schedule: { cron: string } }).schedule.cron).toBe('15 2 * * *');
    const bad = spawnSync(process.execPath, [CLI_BIN, 'status'], { env: { ...sb.env, SKILLOPT_SLEEP_TRAINING_EPOCHS: 'many' }, encoding: 'utf8', timeout: 60_000 });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/SKILLOPT_SLEEP_TRAINING_EPOCHS="many" is not a number/);
  });

  it('status loads the store, and no schema, agent parser, TUI or SDK, while the config is unchanged', () => {
    expect(runCli(['harvest'], sb.env).status).toBe(0);
    expect(runCli(['config', 'set', 'schedule.cron', '0 3 * * *'], sb.env).status).toBe(0);
    // the first status after the config file appeared validates it (the schema loads) and keeps the validated copy
    const first = loadsOf(['status', '--json']);
    expect(first.status).toBe(0);
    expect(first.modules.some((u) => u.includes('/node_modules/zod/')), 'a new file is validated').toBe(true);
    const before = JSON.parse(first.stdout) as { schedule: { cron: string } };
    const second = loadsOf(['status', '--json']);
    expect(second.status).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual(before);
    expect(heavyIn(second.modules).filter((u) => !u.includes('/node_modules/better-sqlite3/'))).toEqual([]);
    expect(second.modules.some((u) => u.includes('/node_modules/better-sqlite3/')), 'status reads the store').toBe(true);
    expect(second.modules.filter((u) => /\/adapters\/[^/]+\/(parse|exec|index)\.js$/.test(u))).toEqual([]);
    expect(second.modules.filter((u) => u.includes('/cli/commands/') && !u.endsWith('/index.js')).map((u) => path.basename(u))).toEqual(['status.js']);

    // an edited config file is validated again and shown at once
    expect(runCli(['config', 'set', 'schedule.cron', '30 4 * * *'], sb.env).status).toBe(0);
    const edited = loadsOf(['status', '--json']);
    expect((JSON.parse(edited.stdout) as { schedule: { cron: string } }).schedule.cron).toBe('30 4 * * *');
    expect(edited.modules.some((u) => u.includes('/node_modules/zod/')), 'a changed file is validated').toBe(true);
    const plain = loadsOf(['status']);
    expect(plain.stdout).toContain('(30 4 * * *, local time)');
    expect(heavyIn(plain.modules).filter((u) => !u.includes('/node_modules/better-sqlite3/'))).toEqual([]);
  });

  it('--help loads no command module, fresh or kept, and prints the same text byte for byte', () => {
    const commandModules = (modules: string[]) => modules.filter((u) => u.includes('/cli/commands/') && !u.endsWith('/index.js'));
    const fresh = loadsOf(['--help']);
    expect(fresh.status).toBe(0);
    expect(fresh.stdout).toContain('Usage: skillopt-sleep');
    expect(fresh.stdout).toMatch(/^ {2}apply \[options\] <id> +write a proposal/m);
    expect(fs.existsSync(path.join(sb.home, 'state', 'help.json')), 'no state folder yet: help writes nothing').toBe(false);
    // built from the command registry (cli/program.ts): commander, but no command module and nothing heavy
    expect(commandModules(fresh.modules)).toEqual([]);
    expect(heavyIn(fresh.modules)).toEqual([]);

    expect(runCli(['harvest'], sb.env).status).toBe(0);
    const built = loadsOf(['--help']);
    expect(built.stdout).toBe(fresh.stdout);
    expect(commandModules(built.modules)).toEqual([]);
    const kept = loadsOf(['--help']);
    expect(kept.stdout).toBe(fresh.stdout);
    expect(commandModules(kept.modules)).toEqual([]);
    expect(heavyIn(kept.modules)).toEqual([]);
    expect(kept.modules.filter((u) => u.includes('/node_modules/commander/')), 'the kept copy needs not even commander').toEqual([]);

    // a damaged copy is rebuilt, never shown
    fs.writeFileSync(path.join(sb.home, 'state', 'help.json'), '{"format":1,"key":"x","text":"stale"}');
    expect(loadsOf(['--help']).stdout).toBe(fresh.stdout);
    expect(commandModules(loadsOf(['--help']).modules)).toEqual([]);

    // an unknown command registers every command (for its suggestion): none loads the TUI or an SDK until its action runs
    const unknown = loadsOf(['harvset']);
    expect(unknown.status).toBe(2);
    expect(commandModules(unknown.modules).length).toBeGreaterThan(20);
    expect(unknown.modules.filter((u) => UI_AND_SDK.some((h) => u.includes(h)))).toEqual([]);
  });

  it('without a nudge file (a store from an older version) it asks the database, and still answers', () => {
    expect(runCli(['harvest'], sb.env).status).toBe(0);
    fs.rmSync(path.join(sb.home, 'state', 'nudge.json'));
    const r = runCli(['hooks', 'nudge', '--json'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ waiting: null });
  });
});
