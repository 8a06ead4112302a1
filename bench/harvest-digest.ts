/**
 * What a cold harvest of the bench corpus stores, as one sha256 per table: the guard for harvest
 * speed work (a faster pass must store exactly the same rows). Harvests the corpus (built or reused
 * like `bench/harvest.ts` does; `--mb N --files N` for another size) into a fresh store with the
 * harvest of another build if given (`--dist <dir>`, e.g. another checkout's `dist-bench`: compare two
 * builds on the same corpus), else this one, and prints per table its row count and digest.
 *
 * Rows are digested in primary-key order, every column except the clock (`updated_at`) and the
 * session number (`sid`, handed out in the order results arrive from the worker threads): events
 * are keyed by their session's id instead. The corpus files' stat (dev, ino, mtime) is in the file
 * rows: compare digests taken on the same corpus, one after the other (`bench/harvest.ts`
 * rewrites one corpus file, which changes its mtime).
 *
 * Usage: node dist-bench/bench/harvest-digest.js [--dist <dir>] [--mb N] [--files N]
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openDb } from '../src/store/db.js';
import { buildCorpus } from './harvest-corpus.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

const TABLES: Array<[string, string]> = [
  ['sessions', 'SELECT id, agent, vendor_id, project, cwd, git_branch, started_at, ended_at, kind, parent_id, file, title, prompt_count, tool_error_count, mined_at FROM sessions ORDER BY id'],
  ['events', 'SELECT s.id, e.seq, e.ts, e.role, e.kind, e.tool_name, e.is_error, e.text, e.cwd, e.meta FROM events e JOIN sessions s ON s.sid = e.sid ORDER BY s.id, e.seq'],
  ['files', 'SELECT path, agent, dev, ino, size, mtime_ms, offset, head_hash, session_id, state, error FROM files ORDER BY path'],
];

function arg(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Row count and sha256 (hex) of each table of a store. */
export function storeDigests(dbPath: string): Array<{ table: string; rows: number; sha256: string }> {
  const db = openDb(dbPath, { readonly: true });
  try {
    return TABLES.map(([table, sql]) => {
      const h = crypto.createHash('sha256');
      let rows = 0;
      for (const row of db.prepare(sql).raw(true).iterate()) {
        h.update(JSON.stringify(row));
        h.update('\n');
        rows++;
      }
      return { table, rows, sha256: h.digest('hex') };
    });
  } finally {
    db.close();
  }
}

function main(): void {
  const args = process.argv.slice(2);
  const mb = Number(arg(args, 'mb') ?? 500);
  const files = Number(arg(args, 'files') ?? (mb >= 500 ? 10_000 : Math.max(200, Math.round(mb * 20))));
  const dist = arg(args, 'dist');
  const child = dist ? path.join(path.resolve(dist), 'bench', 'harvest-child.js') : path.join(HERE, 'harvest-child.js');
  const corpus = buildCorpus(mb, files, (s) => process.stderr.write(`  ${s}\n`));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-bench-harvest-digest-'));
  try {
    const db = path.join(work, 'sleep.db');
    const r = spawnSync(process.execPath, [child, db, JSON.stringify(corpus.env), path.join(work, 'state')], { encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`harvest failed: ${r.stderr}`);
    process.stderr.write(`  harvested ${corpus.files.length} files with ${child}\n`);
    for (const d of storeDigests(db)) process.stdout.write(`${d.table.padEnd(9)}${String(d.rows).padStart(8)} rows  ${d.sha256}\n`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
