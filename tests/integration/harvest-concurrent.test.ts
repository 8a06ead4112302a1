/**
 * Two harvests at once on one store (the daemon's pass and a `skillopt-sleep harvest` typed while it
 * runs): both must finish cleanly, and the store must hold each session and event exactly once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCorpus, type Corpus } from '../../bench/harvest-corpus.js';
import { openDb } from '../../src/store/db.js';
import { CLI_BIN, makeTempDir, runCli } from '../helpers/sandbox.js';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function harvestAsync(env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_BIN, 'harvest', '--json'], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('two harvests at once', () => {
  let corpus: Corpus;
  let work: string;
  beforeAll(() => {
    corpus = buildCorpus(12, 400); // cached in the temp dir, like the benchmark's corpus
    work = makeTempDir('sos-concurrent-');
  });
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  it('both succeed and every session and event is stored once', async () => {
    const base = { PATH: process.env.PATH, ...corpus.env, SKILLOPT_SLEEP_HARVEST_WORKERS: '2' };
    const together = { ...base, SKILLOPT_SLEEP_HOME: path.join(work, 'together') };
    const runs = await Promise.all([harvestAsync(together), harvestAsync(together), harvestAsync(together)]);
    for (const r of runs) expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    const sums = runs.map((r) => JSON.parse(r.stdout) as { errors: unknown[]; filesChanged: number });
    for (const s of sums) expect(s.errors).toEqual([]);

    // the reference: one harvest alone into its own store
    const alone = runCli(['harvest', '--json'], { ...base, SKILLOPT_SLEEP_HOME: path.join(work, 'alone') });
    expect(alone.status, alone.stderr).toBe(0);

    const count = (home: string) => {
      const db = openDb(path.join(home, 'state', 'sleep.db'), { readonly: true });
      try {
        return {
          sessions: (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n,
          events: (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n,
          files: (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n,
          numbers: (db.prepare('SELECT count(DISTINCT sid) AS n FROM sessions').get() as { n: number }).n,
        };
      } finally {
        db.close();
      }
    };
    const a = count(path.join(work, 'alone'));
    expect(a.sessions).toBeGreaterThan(300);
    expect(count(path.join(work, 'together'))).toEqual(a);
    expect(a.numbers).toBe(a.sessions);
  });
});
