/**
 * The wrapper every role's backend is served through. Order of one call:
 *   redact secrets → response cache → budget reservation (estimated BEFORE the call) →
 *   concurrency slot → [per-call timeout → backend] with retries → ledger row per attempt →
 *   settle the budget with real usage → store in cache.
 * Local backends (sim) skip redaction and the ledger: nothing leaves the machine.
 */
import type { Backend, LlmReply, LlmRequest, Operation, PerformPayload, Role } from '../core/protocol.js';
import { SleepError, isSleepError, errorMessage } from '../core/errors.js';
import { sha256 } from '../core/fsutil.js';
import type { Db } from '../store/db.js';
import { redactSecrets, redactValue } from '../core/redact.js';
import type { BudgetTracker } from './budget.js';
import { cacheDelete, cacheGet, cachePut, responseCacheKey } from './cache.js';
import { recordEgress } from './ledger.js';
import type { Limiter } from './limiter.js';
import { estimateCall, type ModelPrice } from './pricing.js';
import { withRetry, type RetryOptions } from './retry.js';

export interface ManagedOptions {
  inner: Backend;
  role: Role;
  limiter: Limiter;
  timeoutMs: number;
  maxRetries: number;
  /** price used to estimate a call before it is made */
  price: ModelPrice;
  /** does its USD count against the API-dollar budget */
  billable: boolean;
  /** true for sim: no egress, nothing to redact or record */
  local: boolean;
  /** extra tokens an agent CLI adds around our prompt (its own system prompt and tools) */
  overheadTokens?: number;
  db?: Db;
  runId?: string;
  budget?: BudgetTracker;
  retry?: Pick<RetryOptions, 'baseMs' | 'maxMs' | 'sleep' | 'random'>;
  now?: () => number;
}

/** What actually leaves the machine for a request, after redaction. */
export function redactRequest<O extends Operation>(req: LlmRequest<O>): { req: LlmRequest<O>; redactions: number; wire: string } {
  let redactions = 0;
  const clean = (text: string): string => {
    const r = redactSecrets(text);
    redactions += r.count;
    return r.text;
  };
  const out: LlmRequest<O> = { ...req, prompt: clean(req.prompt), ...(req.system !== undefined ? { system: clean(req.system) } : {}) };
  // every string of the payload leaves too (skill text, rollouts, tasks, edits): all of it is redacted
  out.payload = redactValue(req.payload, (n) => (redactions += n));
  const skillContent = req.operation === 'perform' ? (out.payload as PerformPayload).skill.content : '';
  return { req: out, redactions, wire: [out.system ?? '', out.prompt, skillContent].join('\u0000') };
}

/** An empty `200 OK` is a failed call: never scored, never cached (a tool-using agent may answer with tools only). */
function checkNotEmpty(r: LlmReply, label: string): void {
  if (r.text.trim() !== '' || (r.toolsCalled?.length ?? 0) > 0) return;
  throw new SleepError('BACKEND_BAD_REPLY', `${label} sent an empty reply`, {
    hint: 'check the model name and the backend (an empty answer is usually a proxy or a model that is not served)',
    details: { retryable: true, empty: true },
  });
}

async function withTimeout<T>(fn: (signal: AbortSignal) => Promise<T>, ms: number, parent: AbortSignal | undefined, label: string): Promise<T> {
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort(new Error('timeout'));
  }, ms);
  const onParent = () => ctl.abort(parent?.reason);
  if (parent?.aborted) onParent();
  parent?.addEventListener('abort', onParent, { once: true });
  try {
    return await fn(ctl.signal);
  } catch (err) {
    if (timedOut && !parent?.aborted) {
      throw new SleepError('BACKEND_TIMEOUT', `${label} did not answer within ${Math.round(ms / 1000)} s`, {
        hint: 'raise backends.timeoutMs or lower the task size',
        cause: err,
        details: { retryable: true },
      });
    }
    if (parent?.aborted) throw new SleepError('ABORTED', 'operation aborted', { cause: parent.reason });
    throw err;
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onParent);
  }
}

export class ManagedBackend implements Backend {
  readonly name: string;
  readonly model: string;
  readonly destination: string;
  /** model calls that went out (attempts included), for tests and benches */
  outboundCalls = 0;
  cacheHits = 0;
  /** what finished calls really cost, so the next estimate counts the agent's own overhead as measured */
  private measured = { calls: 0, tokens: 0, usd: 0 };

  constructor(private readonly o: ManagedOptions) {
    this.name = o.inner.name;
    this.model = o.inner.model;
    this.destination = o.inner.destination;
  }

  get inner(): Backend {
    return this.o.inner;
  }

  replayVariant(project: string | null | undefined): string {
    return this.o.inner.replayVariant?.(project) ?? '';
  }

  private cacheKeyFor<O extends Operation>(request: LlmRequest<O>): string | undefined {
    if (!request.cacheable || !this.o.db) return undefined;
    const req = this.o.local ? request : redactRequest(request).req;
    return responseCacheKey(this.name, this.model, req);
  }

  /**
   * Structured-reply hooks (json.ts): a cached reply that failed validation is replaced by its
   * repaired version, so a re-run is served a usable reply instead of paying for the repair again.
   */
  rememberReply<O extends Operation>(request: LlmRequest<O>, reply: LlmReply): void {
    const key = this.cacheKeyFor(request);
    if (key && this.o.db) cachePut(this.o.db, key, reply);
  }

  forgetReply<O extends Operation>(request: LlmRequest<O>): void {
    const key = this.cacheKeyFor(request);
    if (key && this.o.db) cacheDelete(this.o.db, key);
  }

  async complete<O extends Operation>(request: LlmRequest<O>, signal?: AbortSignal): Promise<LlmReply> {
    const o = this.o;
    const now = o.now ?? Date.now;
    const runId = request.runId ?? o.runId ?? null;
    const { req, redactions, wire } = o.local ? { req: request, redactions: 0, wire: '' } : redactRequest(request);

    const cacheKey = this.cacheKeyFor(request);
    if (cacheKey && o.db) {
      const hit = cacheGet(o.db, cacheKey);
      if (hit) {
        this.cacheHits++;
        return { ...hit, cached: true, latencyMs: 0 };
      }
    }

    const est = estimateCall(o.price, req.prompt.length + (req.system?.length ?? 0), req.maxTokens);
    const m = this.measured;
    const estimate = {
      tokens: Math.max(est.tokens + (o.overheadTokens ?? 0), m.calls ? m.tokens / m.calls : 0),
      usd: Math.max(est.usd + ((o.overheadTokens ?? 0) * o.price.inPerM) / 1e6, m.calls ? m.usd / m.calls : 0),
    };
    const reservation = o.budget?.reserve(estimate, { billable: o.billable });
    const spent = { tokens: 0, usd: 0 };
    const bytesSent = Buffer.byteLength(wire);
    const contentHash = o.local ? '' : sha256(wire);
    try {
      const reply = await o.limiter.run(
        () =>
          withRetry(
            async () => {
              const t0 = now();
              this.outboundCalls++;
              try {
                const r = await withTimeout((s) => o.inner.complete(req, s), o.timeoutMs, signal, `${this.name}/${this.model}`);
                if (!o.local) checkNotEmpty(r, `${this.name}/${this.model}`);
                spent.tokens += r.tokensIn + r.tokensOut;
                spent.usd += r.costUsd;
                this.ledger({ ts: t0, runId, ok: true, error: null, reply: r, bytesSent, redactions, contentHash });
                return r;
              } catch (err) {
                this.ledger({ ts: t0, runId, ok: false, error: errorMessage(err), bytesSent, redactions, contentHash });
                throw err;
              }
            },
            { maxRetries: o.maxRetries, signal, ...o.retry },
          ),
        signal,
      );
      reservation?.settle(spent);
      this.measured.calls++;
      this.measured.tokens += spent.tokens;
      this.measured.usd += spent.usd;
      if (cacheKey && o.db) cachePut(o.db, cacheKey, reply);
      return reply;
    } catch (err) {
      // a call that never got a slot sent nothing: free its reservation; otherwise count what was spent
      if (isSleepError(err) && err.code === 'ABORTED' && spent.tokens === 0) reservation?.cancel();
      else reservation?.settle(spent);
      throw err;
    }
  }

  private ledger(row: { ts: number; runId: string | null; ok: boolean; error: string | null; reply?: LlmReply; bytesSent: number; redactions: number; contentHash: string }): void {
    if (this.o.local || !this.o.db) return;
    recordEgress(this.o.db, {
      ts: row.ts,
      runId: row.runId,
      role: this.o.role,
      backend: this.name,
      model: row.reply?.model ?? this.model,
      destination: this.destination,
      bytesSent: row.bytesSent,
      redactions: row.redactions,
      contentHash: row.contentHash,
      tokensIn: row.reply?.tokensIn ?? 0,
      tokensOut: row.reply?.tokensOut ?? 0,
      cacheReadTokens: row.reply?.cacheReadTokens ?? 0,
      costUsd: row.reply?.costUsd ?? 0,
      ok: row.ok,
      error: row.error,
    });
  }
}
