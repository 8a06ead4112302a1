import type { Db } from '../db.js';

/** Small key/value state (daemon heartbeat details, last night, etc.), JSON-encoded. */
export function kvGet<T>(db: Db, key: string): T | undefined {
  const row = db.prepare('SELECT value FROM kv WHERE key = ?').get(key) as { value: string } | undefined;
  return row ? (JSON.parse(row.value) as T) : undefined;
}

export function kvSet(db: Db, key: string, value: unknown, now = Date.now()): void {
  db.prepare(
    'INSERT INTO kv(key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
  ).run(key, JSON.stringify(value), now);
}
