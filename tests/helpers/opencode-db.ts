/** Builds an OpenCode database (tests/fixtures/opencode/*.sql) where a test wants one. */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { FIXTURES_DIR } from './fixtures.js';

/** `<dir>/opencode.db` from the fixture script `name` (`opencode`, `opencode-early`), plus any extra SQL. */
export function buildOpencodeDb(dir: string, name = 'opencode', extraSql = ''): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'opencode.db');
  const db = new Database(file);
  try {
    db.exec(fs.readFileSync(path.join(FIXTURES_DIR, 'opencode', `${name}.sql`), 'utf8'));
    if (extraSql) db.exec(extraSql);
  } finally {
    db.close();
  }
  return file;
}
