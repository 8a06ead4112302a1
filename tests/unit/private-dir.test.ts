/**
 * ensurePrivateDir makes the folders it creates private and leaves every folder that already
 * existed as it was: the user's export folder or /tmp must not turn 0700 because a file of ours
 * was written there (as root, that broke every other user's use of /tmp).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir } from '../../src/core/fsutil.js';

const made: string[] = [];
function shared(mode: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-private-'));
  fs.chmodSync(dir, mode);
  made.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('ensurePrivateDir', () => {
  it('leaves an existing folder with its own mode', () => {
    const dir = shared(0o755);
    ensurePrivateDir(dir);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o755);
    const sticky = shared(0o1777);
    ensurePrivateDir(sticky);
    expect(fs.statSync(sticky).mode & 0o7777).toBe(0o1777);
  });

  it('makes every folder it creates 0700, and only those', () => {
    const parent = shared(0o755);
    const nested = path.join(parent, 'a', 'b', 'c');
    const umask = process.umask(0o002); // a permissive umask must not loosen what we create
    try {
      ensurePrivateDir(nested);
    } finally {
      process.umask(umask);
    }
    for (const d of [path.join(parent, 'a'), path.join(parent, 'a', 'b'), nested]) expect(fs.statSync(d).mode & 0o777).toBe(0o700);
    expect(fs.statSync(parent).mode & 0o777).toBe(0o755);
  });
});
