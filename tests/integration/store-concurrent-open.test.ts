/**
 * Several real processes open one new store at the same moment (the daemon, a `harvest` and a
 * `night` starting together): each migration is applied once and every opener succeeds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { LATEST_VERSION } from '../../src/store/migrations/index.js';
import { makeTempDir, REPO_ROOT } from '../helpers/sandbox.js';

describe('several processes opening one new store at once', () => {
  it('all succeed: each migration is applied once, by whichever gets the write lock first', async () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'sleep.db');
    // separate processes, so they load the compiled store (`npm test` builds first, as for the CLI tests)
    const target = path.join(REPO_ROOT, 'dist/src/store/db.js');
    const script = `import(${JSON.stringify(target)}).then(({ openDb, schemaVersion }) => { const db = openDb(${JSON.stringify(file)}); process.stdout.write(String(schemaVersion(db))); db.close(); })`;
    const runs = await Promise.all(
      Array.from({ length: 6 }, () => new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, ['-e', script]);
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', (code) => resolve({ code, out }));
      })),
    );
    for (const r of runs) expect(r, r.out).toEqual({ code: 0, out: String(LATEST_VERSION) });
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
