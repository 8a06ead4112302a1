/**
 * `npm run bench -- seed`: seeding a replay workspace from a 50 000-file repository.
 * The repository is written straight into git's object store with `git fast-import` (50 000 files of
 * ~400 bytes in 500 folders, one commit), then one workspace is seeded from it as a night would:
 * wall time of the checkout (target ≤ 2 s) and disk used by the workspace and its private git
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

export async function run(args: string[]): Promise<BenchResult[]> {
  const files = flag(args, 'files', 50_000);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-bench-seed-'));
  try {
    const repo = path.join(root, 'repo');
    makeRepo(repo, files);
    const wsDir = path.join(root, 'workspaces');
    const ws = createWorkspace(wsDir);
    const t0 = performance.now();
    const report = await seedWorkspace(ws, { repo, branch: 'main', before: Date.now() });
    const seedMs = performance.now() - t0;
    if (!report.seeded) throw new Error(`not seeded: ${report.reason}`);
    const t1 = performance.now();
    const baseline = await recordBaseline(ws);
    const baselineMs = performance.now() - t1;
    if (!baseline) throw new Error('no baseline');
    const track = `${ws}.track`;
    const objects = path.join(track, 'objects');
    const bytesMb = (duKb([ws, track], true) - duKb([objects], true)) / 1024;
    const blocksMb = (duKb([ws, track]) - duKb([objects])) / 1024;
    removeWorkspace(ws);
    return [
      { name: `seed a ${files}-file repo (checkout)`, value: seedMs / 1000, unit: 's', target: '≤ 2', pass: seedMs <= 2000 },
      { name: 'disk beyond shared objects: file bytes', value: bytesMb, unit: 'MB', target: '≤ 50', pass: bytesMb <= 50 },
      { name: 'disk beyond shared objects: allocated blocks', value: blocksMb, unit: 'MB' },
      { name: 'baseline snapshot for the changed-files diff', value: baselineMs / 1000, unit: 's' },
      { name: 'files checked out', value: report.files ?? 0, unit: 'files' },
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
