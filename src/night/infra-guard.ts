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

  success(role: string): void {
    this.tally(role).successes++;
  }

  fail(role: string, backend: Backend, err: unknown): void {
    const sig = signature(err);
    if (sig === null || this.failure) return;
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
