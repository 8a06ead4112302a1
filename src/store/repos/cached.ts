/** Prepared statements cached per connection: preparing costs more than running a small statement. */
import type Database from 'better-sqlite3';
import type { Db } from '../db.js';

const cache = new WeakMap<Db, Map<string, Database.Statement>>();

export function cachedStatement(db: Db, sql: string): Database.Statement {
  let m = cache.get(db);
  if (!m) {
    m = new Map();
    cache.set(db, m);
  }
  let s = m.get(sql);
  if (!s) {
    s = db.prepare(sql);
    m.set(sql, s);
  }
  return s;
}
