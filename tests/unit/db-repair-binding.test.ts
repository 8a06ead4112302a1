/**
 * A missing SQLite binding makes every database look damaged: `doctor --repair` must then refuse,
 * name the cause and the fix, and leave the (probably healthy) database where it is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { resolvePaths } from '../../src/core/paths.js';

vi.mock('better-sqlite3', () => ({
  default: class {
    constructor() {
      throw new Error('Could not locate the bindings file. Tried: build/better_sqlite3.node');
    }
  },
}));

describe('doctor --repair without the SQLite binding', () => {
  it('refuses and moves nothing', async () => {
    const { repairDatabase } = await import('../../src/proposals/rebuild.js');
    const root = makeTempDir('sos-binding-');
    try {
      const paths = resolvePaths({ env: { SKILLOPT_SLEEP_HOME: path.join(root, 'sleep') } });
      fs.mkdirSync(path.dirname(paths.database), { recursive: true });
      fs.writeFileSync(paths.database, 'a database we cannot read without the binding');
      let err: unknown;
      try {
        repairDatabase(paths);
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ message: expect.stringMatching(/SQLite does not load here: Could not locate the bindings file/), hint: expect.stringMatching(/npm rebuild better-sqlite3/) });
      expect(fs.readdirSync(path.dirname(paths.database))).toEqual(['sleep.db']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
