/** The model response cache table: one JSON reply per cache key (the key is llm/cache.ts's job). */
import type { Db } from '../db.js';

export function getCachedResponse(db: Db, cacheKey: string): string | undefined {
  const row = db.prepare('SELECT response FROM llm_cache WHERE cache_key = ?').get(cacheKey) as { response: string } | undefined;
  return row?.response;
}

export function putCachedResponse(db: Db, cacheKey: string, response: string, now: number): void {
  db.prepare(
    'INSERT INTO llm_cache (cache_key, response, created_at) VALUES (?, ?, ?) ON CONFLICT(cache_key) DO UPDATE SET response = excluded.response, created_at = excluded.created_at',
  ).run(cacheKey, response, now);
}

export function deleteCachedResponse(db: Db, cacheKey: string): void {
  db.prepare('DELETE FROM llm_cache WHERE cache_key = ?').run(cacheKey);
}
