/**
 * Issue 38: every fault a user can meet ends in a hint they can act on, never "report it", and
 * never the advice to move the database away (that loses every proposal, apply record and ban).
 */
import { describe, expect, it } from 'vitest';
import { diagnoseError, isMissingBinding, rebuildCommand } from '../../src/core/error-diagnosis.js';
import { printError } from '../../src/core/error-output.js';

const sysErr = (code: string, p?: string) => Object.assign(new Error(`${code}: something, open '${p ?? ''}'`), { code, ...(p ? { path: p } : {}) });

describe('diagnoseError', () => {
  const cases: Array<[string, Error, string, RegExp]> = [
    ['missing binding', new Error('Could not locate the bindings file. Tried:\n → /x/build/better_sqlite3.node'), 'NATIVE_BINDING', /npm rebuild better-sqlite3/],
    ['binding for another Node', new Error('The module was compiled against a different Node.js version using NODE_MODULE_VERSION 127.'), 'NATIVE_BINDING', /npm rebuild better-sqlite3/],
    ['EROFS', sysErr('EROFS', '/ro/state/nudge.json'), 'READ_ONLY', /remount it read-write or set SKILLOPT_SLEEP_HOME/],
    ['EPERM', sysErr('EPERM', '/home/u/proj/.claude/skills/x/SKILL.md'), 'NO_PERMISSION', /write access to \/home\/u\/proj\/\.claude\/skills\/x/],
    ['EACCES', sysErr('EACCES', '/srv/state/sleep.db'), 'NO_PERMISSION', /write access to \/srv\/state/],
    ['ENOSPC', sysErr('ENOSPC', '/full/state/x.tmp'), 'DISK_FULL', /free space on the disk that holds \/full\/state/],
    ['SQLITE_FULL', Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }), 'DISK_FULL', /free space/],
    ['SQLITE_BUSY', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }), 'DB_LOCKED', /wait for the other skillopt-sleep process/],
    ['SQLITE_READONLY', Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' }), 'READ_ONLY', /read-only state folder/],
    ['SQLITE_CORRUPT', Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' }), 'DB_CORRUPT', /doctor --repair/],
    ['SQLITE_NOTADB', Object.assign(new Error('file is not a database'), { code: 'SQLITE_NOTADB' }), 'DB_CORRUPT', /doctor --repair/],
  ];
  for (const [name, err, code, hint] of cases) {
    it(`names ${name} with an actionable hint`, () => {
      const e = diagnoseError(err, '/state/sleep.db');
      expect(e?.code).toBe(code);
      expect(e?.hint).toMatch(hint);
      expect(e?.hint).not.toMatch(/report it|report this/);
      expect(e?.hint).not.toMatch(/move (it|the file) away/);
    });
  }

  it('leaves what it cannot name to the internal-error path', () => {
    expect(diagnoseError(new Error('something else'))).toBeNull();
    expect(diagnoseError('not an error')).toBeNull();
  });

  it('knows a binding error from a damaged file, and names the install folder in the rebuild command', () => {
    expect(isMissingBinding(new Error('Could not locate the bindings file'))).toBe(true);
    expect(isMissingBinding(new Error('file is not a database'))).toBe(false);
    expect(rebuildCommand('/opt/skillopt sleep')).toBe('cd "/opt/skillopt sleep" && npm rebuild better-sqlite3');
  });

  it('reaches the user through printError, under --json too', () => {
    const chunks: string[] = [];
    const orig = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((c: string) => (chunks.push(String(c)), true)) as typeof process.stdout.write;
    try {
      expect(printError(sysErr('ENOSPC', '/full/x'), { json: true })).toBe(1);
    } finally {
      process.stdout.write = orig;
    }
    expect(JSON.parse(chunks.join(''))).toMatchObject({ ok: false, error: { code: 'DISK_FULL' } });
  });
});
