/**
 * CLI start-up benchmark: how long the user waits for a command that prints a line, beside a bare
 * `node -e 0` measured in the same run. The session-start hook (`hooks nudge`) runs at the start of
 * every agent session, so its cost is paid all day.
 *
 * Each command runs N times (default 10) as a real child process in a sandboxed state folder
 * (prepared once by a `harvest` of empty agent homes, which creates the store, then `status`); we report the median wall time and the median CPU time (user+sys,
 * from this process's cutime+cstime in /proc/self/stat, Linux), and the load average beside them:
 * on a loaded machine the CPU figure is the one to trust.
 *
 * Target: `--version`, `--help`, `status` and `hooks nudge` each at most `node -e 0` + 0.10 s (median wall).
 * The preparing commands leave the store, and the first `--help` the kept help text
 * (src/cli/help-cache.ts), as a user's earlier commands would: the medians are the warm start; the
 * first command after an upgrade or a config edit pays the full load. The first `status` after a
 * fresh install (a new state folder per run: no store, no config file, no caches; it creates none)
 * is measured too, N runs, beside the same `node -e 0`, and so are `hooks nudge` there (an agent
 * session started before anything was harvested) and `--help` (no state folder to keep its text in:
 * built from the command registry, cli/program.ts), with the same target.
 * Usage: npm run bench -- cli [--runs N] [--dist DIR]   (--dist: another build's dist/, to compare)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './types.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The CLI under test: this build's, or another build's dist/ (`--dist DIR`), measured the same way. */
function cliPath(args: string[]): string {
  const i = args.indexOf('--dist');
  return i >= 0 && args[i + 1] ? path.resolve(args[i + 1]!, 'src/cli/main.js') : path.resolve(here, '../src/cli/main.js');
}
const MARGIN_S = 0.1;

function runsArg(args: string[]): number {
  const i = args.indexOf('--runs');
  const v = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isInteger(v) && v > 0 ? v : 10;
}

/** Seconds of CPU (user+sys) used so far by this process's waited-for children. */
function childCpuSeconds(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / 100; // cutime + cstime (fields 16, 17), in clock ticks (USER_HZ = 100)
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

interface Timing {
  wall: number;
  cpu: number;
}

function measure(argv: string[], env: NodeJS.ProcessEnv, runs: number): Timing {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < runs; i++) {
    const cpu0 = childCpuSeconds();
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, argv, { env, encoding: 'utf8' });
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0) throw new Error(`${argv.slice(1).join(' ')} exited ${r.status}: ${r.stderr.trim().split('\n')[0] ?? ''}`);
    walls.push(wall);
    cpus.push(childCpuSeconds() - cpu0);
  }
  return { wall: median(walls), cpu: median(cpus) };
}

/** Every agent home and our state inside `root`, so nothing reads or writes the real ~/. */
function sandboxEnv(root: string): NodeJS.ProcessEnv {
  const home = path.join(root, 'home');
  fs.mkdirSync(home, { recursive: true });
  return {
    PATH: process.env.PATH,
    HOME: home,
    SKILLOPT_SLEEP_HOME: path.join(root, 'sleep'),
    CLAUDE_CONFIG_DIR: path.join(root, 'agents/claude'),
    CODEX_HOME: path.join(root, 'agents/codex'),
    COPILOT_HOME: path.join(root, 'agents/copilot'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_STATE_HOME: path.join(home, '.local/state'),
    NO_COLOR: '1',
  };
}

/**
 * A command run right after a fresh install: a new state folder each run (no database, no config
 * file, no validated config copy, no help text, no nudge file). `status` there shows the empty state
 * from the built-in defaults; before issue 40's cold-start work it also created and migrated the
 * store and validated the default config (`--dist` an older build to compare).
 */
function measureFresh(cli: string, argv: string[], root: string, runs: number): Timing {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = measure([cli, ...argv], sandboxEnv(path.join(root, `fresh-${argv.join('-')}-${i}`)), 1);
    walls.push(t.wall);
    cpus.push(t.cpu);
  }
  return { wall: median(walls), cpu: median(cpus) };
}

export async function run(args: string[]): Promise<BenchResult[]> {
  if (process.platform !== 'linux') return [{ name: 'skipped (needs /proc)', value: 0, unit: '' }];
  const runs = runsArg(args);
  const CLI = cliPath(args);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-bench-cli-'));
  const env = sandboxEnv(root);
  try {
    measure([CLI, 'harvest'], env, 1); // creates the state folder and the store, as a user's first harvest would
    measure([CLI, 'status'], env, 1);
    const base = measure(['-e', '0'], env, runs);
    const load = os.loadavg()[0];
    const rows: BenchResult[] = [
      { name: `node -e 0: wall (median of ${runs}, load ${load.toFixed(2)})`, value: base.wall, unit: 's' },
      { name: 'node -e 0: CPU user+sys (median)', value: base.cpu, unit: 's' },
    ];
    const commands: Array<{ label: string; argv: string[]; target: boolean }> = [
      { label: '--version', argv: ['--version'], target: true },
      { label: '--help', argv: ['--help'], target: true },
      { label: 'status', argv: ['status'], target: true },
      { label: 'hooks nudge', argv: ['hooks', 'nudge'], target: true },
    ];
    for (const c of commands) {
      const t = measure([CLI, ...c.argv], env, runs);
      const limit = base.wall + MARGIN_S;
      rows.push({
        name: `${c.label}: wall (median)`,
        value: t.wall,
        unit: 's',
        ...(c.target ? { target: `<= ${limit.toFixed(3)}`, pass: t.wall <= limit } : {}),
      });
      rows.push({ name: `${c.label}: CPU user+sys (median)`, value: t.cpu, unit: 's', target: `node +${(t.cpu - base.cpu).toFixed(3)}` });
    }
    const first = measureFresh(CLI, ['status'], root, runs);
    rows.push({
      name: `status, first after a fresh install (no store, no caches; median of ${runs}): wall`,
      value: first.wall,
      unit: 's',
      target: `<= ${(base.wall + MARGIN_S).toFixed(3)}`,
      pass: first.wall <= base.wall + MARGIN_S,
    });
    rows.push({ name: 'status, first after a fresh install: CPU user+sys (median)', value: first.cpu, unit: 's', target: `node +${(first.cpu - base.cpu).toFixed(3)}` });
    // an agent session started before anything was harvested: the hook must stay as cheap, and create nothing
    const nudge = measureFresh(CLI, ['hooks', 'nudge'], root, runs);
    rows.push({
      name: `hooks nudge, fresh install (no store; median of ${runs}): wall`,
      value: nudge.wall,
      unit: 's',
      target: `<= ${(base.wall + MARGIN_S).toFixed(3)}`,
      pass: nudge.wall <= base.wall + MARGIN_S,
    });
    rows.push({ name: 'hooks nudge, fresh install: CPU user+sys (median)', value: nudge.cpu, unit: 's', target: `node +${(nudge.cpu - base.cpu).toFixed(3)}` });
    // no state folder to keep the help text in (help-cache.ts): the help is built from the command registry (cli/program.ts)
    const help = measureFresh(CLI, ['--help'], root, runs);
    rows.push({
      name: `--help, fresh install (no state folder, so no kept copy; median of ${runs}): wall`,
      value: help.wall,
      unit: 's',
      target: `<= ${(base.wall + MARGIN_S).toFixed(3)}`,
      pass: help.wall <= base.wall + MARGIN_S,
    });
    rows.push({ name: '--help, fresh install: CPU user+sys (median)', value: help.cpu, unit: 's', target: `node +${(help.cpu - base.cpu).toFixed(3)}` });
    return rows;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
