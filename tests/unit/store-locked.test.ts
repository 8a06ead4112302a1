/**
 * A valid store that another process holds locked is named as locked, with a hint to wait — not
 * "not a valid SQLite database" with the advice to move it away (which would lose the staged
 * proposals and the receipts `revert` needs). The file is untouched.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { SleepError } from '../../src/core/errors.js';
import { kvGet, kvSet } from '../../src/store/repos/kv.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-locked-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('a store locked by another connection', () => {
  it('is reported as locked (DB_LOCKED, "wait"), never as damaged, and keeps its data', () => {
    const file = path.join(dir, 'store.db');
    const first = openDb(file);
    kvSet(first, 'probe', 'kept');
    first.close();
    // another process's connection: exclusive locking, holding a write transaction
    const holder = openDb(file);
    holder.exec('PRAGMA locking_mode = EXCLUSIVE');
    holder.exec('BEGIN EXCLUSIVE');
    kvSet(holder, 'probe', 'kept');
    let caught: unknown;
    try {
      openDb(file, { busyTimeoutMs: 50 }).close();
    } catch (err) {
      caught = err;
    }
    holder.exec('COMMIT');
    holder.close();
    expect(caught).toBeInstanceOf(SleepError);
    const e = caught as SleepError;
    expect(e.code).toBe('DB_LOCKED');
    expect(e.message).toMatch(/is locked by another process/);
    expect(e.message).not.toMatch(/not a valid SQLite database/);
    expect(String(e.hint)).toMatch(/wait/);
    expect(String(e.hint)).not.toMatch(/move (the file|it) away/);
    const again = openDb(file);
    expect(kvGet(again, 'probe')).toBe('kept');
    again.close();
  });
});
