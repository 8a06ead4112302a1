/**
 * Infrastructure failures must fail the night, not score as zeros. Rollouts turn a failed call
 * into a 0 (one bad task should not stop a night), so a model-name typo, a retired model (404), a
 * refused key (401/403), empty replies or a judge that never returns JSON would otherwise end
 * "done: no candidate beat the current skill". This guard wraps each role's backend: when the
 * first few calls of a role all fail the same way (or one is refused for credentials) it records
 * the reason and aborts the night's signal, and the night ends `failed` with that reason.
 */
import type { Backend, LlmReply, LlmRequest, Operation, RoleBackends } from '../core/protocol.js';
import { errorMessage, isSleepError } from '../core/errors.js';

/** How many same-kind failures, before any success, make a role's failure an infrastructure one. */
export const FAIL_FAST_AFTER = 3;

/**
 * The share of a night's model calls that may fail before the night is `failed` (default 25%):
 * a failed rollout scores 0 and a failed judge call drops a grade, so past this share the scores
 * the gate compares say more about the backend than about the skill. Counted over logical calls
 * (after retries), from MIN_CALLS_FOR_SHARE calls on; a night whose every call failed is failed
 * whatever their number.
 */
export const MAX_FAILED_CALL_SHARE = 0.25;
/** Fewer calls than this and only "every call failed" counts (one bad call of three is no rate). */
export const MIN_CALLS_FOR_SHARE = 8;

/** The night's model calls as the guard saw them: logical calls (after retries), per role. */
export interface CallTally {
  calls: number;
  failed: number;
  byRole: Record<string, { calls: number; failed: number }>;
  /** the newest failure's message, to name what went wrong */
  lastError: string | null;
}

export interface InfraFailure {
  role: string;
  /** one line: role, backend/model and what went wrong, with the hint */
  reason: string;
}

interface RoleTally {
  successes: number;
  /** failure signature → count, counted only while the role has had no success */
  failures: Map<string, number>;
}

/** The kind of a failure: the same code and HTTP status count as "failing the same way". */
function signature(err: unknown): string | null {
  if (!isSleepError(err)) return 'error';
  if (err.code === 'ABORTED' || err.code === 'BUDGET_EXCEEDED' || err.code === 'LEASE_HELD') return null;
  const status = (err.details as { status?: unknown } | undefined)?.status;
  return `${err.code}${typeof status === 'number' ? `:${status}` : ''}`;
}

export class InfraGuard {
  private readonly controller = new AbortController();
  private readonly tallies = new Map<string, RoleTally>();
  private readonly counted: CallTally = { calls: 0, failed: 0, byRole: {}, lastError: null };
  failure: InfraFailure | null = null;

  constructor(parent?: AbortSignal) {
    if (parent?.aborted) this.controller.abort(parent.reason);
    parent?.addEventListener('abort', () => this.controller.abort(parent.reason), { once: true });
  }

  /** The night's signal: aborted by the caller or by an infrastructure failure. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Each role's backend, wrapped. Backends shared by several roles are wrapped once per role. */
  wrap(backends: RoleBackends): RoleBackends {
    const out: RoleBackends = {
      target: this.wrapOne('target', backends.target),
      optimizer: this.wrapOne('optimizer', backends.optimizer),
      judge: this.wrapOne('judge', backends.judge),
    };
    if (backends.miner) out.miner = this.wrapOne('miner', backends.miner);
    return out;
  }

  /** Every call the night's backends finished so far, failed or not. */
  get callTally(): CallTally {
    return { ...this.counted, byRole: Object.fromEntries(Object.entries(this.counted.byRole).map(([r, t]) => [r, { ...t }])) };
  }

  /**
   * Why the night's calls as a whole make it a failed one, or null: every call failed, or more
   * than `maxShare` of them (from MIN_CALLS_FOR_SHARE calls on).
   */
  failedShareReason(maxShare = MAX_FAILED_CALL_SHARE): string | null {
    const { calls, failed, lastError, byRole } = this.counted;
    if (calls === 0 || failed === 0) return null;
    const roles = Object.entries(byRole)
      .filter(([, t]) => t.failed > 0)
      .map(([r, t]) => `${r} ${t.failed}/${t.calls}`)
      .join(', ');
    const last = lastError ? `; last error: ${lastError}` : '';
    if (failed === calls) return `every model call failed (${failed} of ${calls}: ${roles})${last}`;
    if (calls >= MIN_CALLS_FOR_SHARE && failed / calls > maxShare) {
      return `${failed} of ${calls} model calls failed (${Math.round((100 * failed) / calls)}%, more than the ${Math.round(maxShare * 100)}% a night allows: ${roles}); the scores the gate would compare are not the skill's${last}`;
    }
    return null;
  }

  success(role: string): void {
    this.count(role, null);
    this.tally(role).successes++;
  }

  fail(role: string, backend: Backend, err: unknown): void {
    const sig = signature(err);
    if (sig === null) return;
    this.count(role, `${backend.name}/${backend.model}: ${errorMessage(err)}`);
    if (this.failure) return;
    const t = this.tally(role);
    if (t.successes > 0) return; // the role works: a later failure is that task's, not the night's
    const n = (t.failures.get(sig) ?? 0) + 1;
    t.failures.set(sig, n);
    const refused = isSleepError(err) && err.code === 'BACKEND_AUTH';
    if (!refused && n < FAIL_FAST_AFTER) return;
    const hint = isSleepError(err) && err.hint ? ` (${err.hint})` : '';
    const times = refused ? '' : ` (the first ${n} calls failed the same way)`;
    this.failure = { role, reason: `${role} backend ${backend.name}/${backend.model} failed${times}: ${errorMessage(err)}${hint}` };
    this.controller.abort(new Error(this.failure.reason));
  }

  private count(role: string, error: string | null): void {
    const t = (this.counted.byRole[role] ??= { calls: 0, failed: 0 });
    t.calls++;
    this.counted.calls++;
    if (error === null) return;
    t.failed++;
    this.counted.failed++;
    this.counted.lastError = error.length > 300 ? `${error.slice(0, 297)}...` : error;
  }

  private tally(role: string): RoleTally {
    let t = this.tallies.get(role);
    if (!t) this.tallies.set(role, (t = { successes: 0, failures: new Map() }));
    return t;
  }

  private wrapOne(role: string, inner: Backend): Backend {
    return new GuardedBackend(role, inner, this);
  }
}

/** A backend that reports each call's outcome to the guard; the cache hooks of json.ts pass through. */
class GuardedBackend implements Backend {
  constructor(
    private readonly role: string,
    readonly inner: Backend,
    private readonly guard: InfraGuard,
  ) {}
  get name(): string {
    return this.inner.name;
  }
  get model(): string {
    return this.inner.model;
  }
  get destination(): string {
    return this.inner.destination;
  }
  replayVariant(project: string | null | undefined): string {
    return this.inner.replayVariant?.(project) ?? '';
  }
  async complete<O extends Operation>(req: LlmRequest<O>, signal?: AbortSignal): Promise<LlmReply> {
    try {
      const reply = await this.inner.complete(req, signal);
      // a reply that json.ts then finds unusable is reported through `unusableReply`
      if (req.operation === 'perform') this.guard.success(this.role); // structured ones count once usable
      return reply;
    } catch (err) {
      this.guard.fail(this.role, this.inner, err);
      throw err;
    }
  }
  /** json.ts: a structured reply was parsed and validated */
  usableReply(): void {
    this.guard.success(this.role);
  }
  /** json.ts: a structured reply stayed unusable after its repair */
  unusableReply(err: unknown): void {
    this.guard.fail(this.role, this.inner, err);
  }
  rememberReply(req: LlmRequest, reply: LlmReply): void {
    (this.inner as { rememberReply?: (r: LlmRequest, x: LlmReply) => void }).rememberReply?.(req, reply);
  }
  forgetReply(req: LlmRequest): void {
    (this.inner as { forgetReply?: (r: LlmRequest) => void }).forgetReply?.(req);
  }
}
