/**
 * `npm run bench -- seed`: seeding a replay workspace from a 50 000-file repository.
 * The repository is written straight into git's object store with `git fast-import` (50 000 files of
 * ~400 bytes in 500 folders, one commit), then one workspace is seeded from it as a night would:
 * the first replay of a commit pays a full checkout; every later replay of it (samples, candidates,
 * splits of a night) takes a parked workspace reset to the commit (src/llm/workspace-pool.ts):
 * wall and CPU of both (target ≤ 2 s per replay) and disk used by the workspace and its private git
 * directory beyond the shared objects: file bytes (`du --apparent-size`, target ≤ 50 MB) and, beside
 * it, allocated blocks (`du`), which a filesystem with 4 KiB blocks puts at ≥ 4 KiB per small file
 * whatever the seeding method. The baseline snapshot the changed-files diff needs is reported too.
 * Run it on an idle machine: the checkout is I/O- and CPU-bound.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchResult } from './types.js';
import { createWorkspace, recordBaseline, removeWorkspace, seedWorkspace } from '../src/llm/workspace.js';
import { WorkspacePool } from '../src/llm/workspace-pool.js';

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

function flag(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isFinite(v) ? v : fallback;
}

/** A one-commit repository of `files` files, written through fast-import (no working tree). */
function makeRepo(dir: string, files: number): void {
  execFileSync('git', ['init', '-q', '-b', 'main', dir], { env: GIT_ENV });
  const chunks: string[] = [];
  const line = 'export const value = "lorem ipsum dolor sit amet, consectetur adipiscing elit";\n';
  for (let i = 0; i < files; i++) {
    const body = `// file ${i}\n${line.repeat(5)}`;
    chunks.push(`blob\nmark :${i + 1}\ndata ${Buffer.byteLength(body)}\n${body}\n`);
  }
  chunks.push('commit refs/heads/main\ncommitter bench <bench@example.com> 1767225600 +0000\ndata 5\nbench\n');
  for (let i = 0; i < files; i++) chunks.push(`M 100644 :${i + 1} src/d${i % 500}/f${i}.ts\n`);
  chunks.push('\n');
  const r = spawnSync('git', ['-C', dir, 'fast-import', '--quiet'], { input: chunks.join(''), env: GIT_ENV, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`fast-import failed: ${String(r.stderr)}`);
}

function duKb(paths: string[], apparent = false): number {
  const out = execFileSync('du', ['-sk', '-c', ...(apparent ? ['--apparent-size'] : []), ...paths], { encoding: 'utf8' });
  return Number(/^(\d+)\s+total$/m.exec(out)?.[1] ?? NaN);
}

/** CPU seconds of this process's finished children (git), from /proc (Linux): `process.cpuUsage()` misses them. */
function childCpuSeconds(): number {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields after the command: state is [0]; cutime and cstime are fields 16 and 17 of the line, [13] and [14] here
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return NaN;
  }
}

/** Wall and CPU (ours + git's) of one async step. */
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; wallS: number; cpuS: number }> {
  const cpu0 = process.cpuUsage();
  const child0 = childCpuSeconds();
  const t0 = performance.now();
  const value = await fn();
  const wallS = (performance.now() - t0) / 1000;
  const own = process.cpuUsage(cpu0);
  return { value, wallS, cpuS: (own.user + own.system) / 1e6 + (childCpuSeconds() - child0) };
}

/** What a replay's agent leaves: a few files edited, added, deleted, some build output. */
function agentWork(ws: string, round: number): void {
  for (let i = 0; i < 5; i++) fs.appendFileSync(path.join(ws, `src/d${i}/f${i}.ts`), `// edited in round ${round}\n`);
  for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(ws, `src/d${i}/new-${round}-${i}.ts`), 'export {};\n');
  fs.rmSync(path.join(ws, 'src/d7/f7.ts'));
  fs.mkdirSync(path.join(ws, 'dist'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'dist/bundle.js'), 'x'.repeat(10_000));
}

export async function run(args: string[]): Promise<BenchResult[]> {
  const files = flag(args, 'files', 50_000);
  const rounds = flag(args, 'rounds', 3);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-bench-seed-'));
  const load = os.loadavg()[0];
  try {
    const repo = path.join(root, 'repo');
    makeRepo(repo, files);
    const wsDir = path.join(root, 'workspaces');
    const seed = { repo, branch: 'main', before: Date.now() };

    // the first replay of a commit: a full checkout (what every replay paid before the pool)
    const ws = createWorkspace(wsDir);
    const cold = await timed(() => seedWorkspace(ws, seed));
    if (!cold.value.seeded) throw new Error(`not seeded: ${cold.value.reason}`);
    const base = await timed(() => recordBaseline(ws, []));
    if (!base.value) throw new Error('no baseline');
    const track = `${ws}.track`;
    const objects = path.join(track, 'objects');
    const bytesMb = (duKb([ws, track], true) - duKb([objects], true)) / 1024;
    const blocksMb = (duKb([ws, track]) - duKb([objects])) / 1024;
    removeWorkspace(ws);

    // every later replay of that commit: a parked workspace reset to it (the pool a night uses)
    const pool = new WorkspacePool(wsDir, { perCommit: 1, total: 1, idleMs: 600_000 });
    let lease = await pool.acquire(seed, {});
    const warm: Array<{ wallS: number; cpuS: number }> = [];
    for (let round = 1; round <= rounds; round++) {
      agentWork(lease.dir, round);
      pool.release(lease);
      const r = await timed(() => pool.acquire(seed, {}));
      lease = r.value;
      if (!lease.seed.reused) throw new Error(`round ${round}: the parked workspace was not reused`);
      warm.push(r);
    }
    pool.release(lease);
    pool.drain();
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const warmWall = median(warm.map((w) => w.wallS));
    const warmCpu = median(warm.map((w) => w.cpuS));
    return [
      { name: `seed a ${files}-file repo, first replay of a commit (full checkout), wall`, value: cold.wallS, unit: 's' },
      { name: 'first replay of a commit, CPU (ours + git)', value: cold.cpuS, unit: 's' },
      { name: `seed a ${files}-file repo, later replays (reset of a parked workspace), wall, median of ${rounds}`, value: warmWall, unit: 's', target: '≤ 2', pass: warmWall <= 2 },
      { name: 'later replays, CPU (ours + git), median', value: warmCpu, unit: 's' },
      { name: 'CPU ratio later/first replay', value: warmCpu / cold.cpuS, unit: '×' },
      { name: 'disk beyond shared objects: file bytes', value: bytesMb, unit: 'MB', target: '≤ 50', pass: bytesMb <= 50 },
      { name: 'disk beyond shared objects: allocated blocks (≥ 4 KiB per small file on ext4)', value: blocksMb, unit: 'MB' },
      { name: 'baseline snapshot for the changed-files diff, wall', value: base.wallS, unit: 's' },
      { name: 'baseline snapshot, CPU', value: base.cpuS, unit: 's' },
      { name: 'files checked out', value: cold.value.files ?? 0, unit: 'files' },
      { name: 'load average (1 min) at start', value: load, unit: '' },
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
