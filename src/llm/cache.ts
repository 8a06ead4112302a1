/**
 * Response cache for deterministic calls (optimizer/judge at temperature 0, marked `cacheable`).
 * Keyed by everything that decides the answer: backend, model, operation, system, prompt,
 * temperature, max tokens. Re-scoring an unchanged input costs no model call.
 */
import type { Db } from '../store/db.js';
import { deleteCachedResponse, getCachedResponse, putCachedResponse } from '../store/repos/llm-cache.js';
import { sha256 } from '../core/fsutil.js';
import type { LlmReply, LlmRequest } from '../core/protocol.js';

export function responseCacheKey(backend: string, model: string, req: Pick<LlmRequest, 'operation' | 'system' | 'prompt' | 'temperature' | 'maxTokens'>): string {
  return sha256(
    JSON.stringify(['v1', backend, model, req.operation, req.system ?? '', req.prompt, req.temperature ?? null, req.maxTokens ?? null]),
  );
}

export function cacheGet(db: Db, key: string): LlmReply | undefined {
  const response = getCachedResponse(db, key);
  if (response === undefined) return undefined;
  try {
    const reply = JSON.parse(response) as LlmReply;
    return typeof reply.text === 'string' ? reply : undefined;
  } catch {
    return undefined; // a damaged entry is a miss, not an error
  }
}

export function cachePut(db: Db, key: string, reply: LlmReply, now = Date.now()): void {
  putCachedResponse(db, key, JSON.stringify({ ...reply, cached: false }), now);
}

export function cacheDelete(db: Db, key: string): void {
  deleteCachedResponse(db, key);
}
