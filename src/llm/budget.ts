/**
 * Per-night budget: max USD, tokens and calls, plus a wall-clock deadline. Enforced BEFORE a
 * call: the caller estimates the call (prompt size + max reply) and `reserve()` refuses it when
 * used + in-flight reservations + the estimate would pass a limit. A finished call settles its
 * reservation with what it really cost. Concurrent calls therefore cannot jointly overshoot.
 *
 * USD counts only billable calls (API backends). Agent CLIs (claude/codex/copilot) usually run on
 * the user's subscription; their reported cost is recorded in the ledger but does not spend the
 * "API dollars" budget — their tokens and calls still do.
 */
import { SleepError } from '../core/errors.js';
import { systemClock, type Clock } from '../core/clock.js';

export interface BudgetLimits {
  maxUsd: number;
  maxTokens: number;
  maxCalls: number;
  /** epoch ms by which the night must be done */
  deadlineMs?: number;
}

export interface Spend {
  usd: number;
  tokens: number;
  calls: number;
}

export interface CallEstimate {
  tokens: number;
  usd: number;
}

export interface Reservation {
  /** settle with the real usage; a failed call that sent nothing passes zeros */
  settle(actual: { tokens: number; usd: number }): void;
  /** drop the reservation without counting a call (e.g. served from cache) */
  cancel(): void;
}

export interface Forecast extends Spend {
  fits: boolean;
  /** which limit the plan would hit first, if any */
  limitedBy?: 'usd' | 'tokens' | 'calls' | 'deadline';
  /** how many of the planned calls fit */
  callsThatFit: number;
}

const EPS = 1e-9;

export class BudgetTracker {
  private spent: Spend = { usd: 0, tokens: 0, calls: 0 };
  private pending: Spend = { usd: 0, tokens: 0, calls: 0 };
  /** a temporary ceiling below the limits (absolute spend totals): one skill's share of the night */
  private cap: Spend | null = null;
  /** spend set aside for what must run after training (the test measure, the audit slice): counted as spent until released */
  private held: Spend = { usd: 0, tokens: 0, calls: 0 };

  constructor(
    readonly limits: BudgetLimits,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Throws BUDGET_EXCEEDED if this call would pass a limit (counting calls in flight). */
  check(estimate: CallEstimate, opts: { billable?: boolean } = {}): void {
    const billable = opts.billable ?? true;
    const l = this.limits;
    if (l.deadlineMs !== undefined && this.clock.now() >= l.deadlineMs) {
      throw this.exceeded('deadline', `the night's deadline (${new Date(l.deadlineMs).toISOString()}) has passed`);
    }
    const h = this.held;
    const calls = this.spent.calls + this.pending.calls + h.calls + 1;
    const heldNote = h.calls > 0 ? ` (${h.calls} calls kept for the test and audit measures after training)` : '';
    if (calls > l.maxCalls) throw this.exceeded('calls', `call ${calls} would exceed the budget of ${l.maxCalls} calls${heldNote}`);
    const tokens = this.spent.tokens + this.pending.tokens + h.tokens + estimate.tokens;
    const cap = this.cap;
    if (cap) {
      if (calls > cap.calls) throw this.exceeded('calls', `call ${calls} would pass this skill's share of the night (${cap.calls} calls in all)`);
      if (tokens > cap.tokens) throw this.exceeded('tokens', `~${estimate.tokens} more tokens would pass this skill's share of the night${heldNote}`);
      if (billable && this.spent.usd + this.pending.usd + h.usd + estimate.usd > cap.usd + EPS) throw this.exceeded('usd', `~$${estimate.usd.toFixed(4)} more would pass this skill's share of the night`);
    }
    if (tokens > l.maxTokens) {
      throw this.exceeded('tokens', `~${estimate.tokens} more tokens would exceed the budget of ${l.maxTokens} (used ${this.spent.tokens + this.pending.tokens}${h.tokens > 0 ? `, ${h.tokens} kept for the test and audit measures after training` : ''})`);
    }
    if (billable) {
      const usd = this.spent.usd + this.pending.usd + h.usd + estimate.usd;
      if (usd > l.maxUsd + EPS) {
        throw this.exceeded('usd', `~$${estimate.usd.toFixed(4)} more would exceed the budget of $${l.maxUsd} (used $${(this.spent.usd + this.pending.usd).toFixed(4)})`);
      }
    }
  }

  /** check() and hold the estimate until the call settles. */
  reserve(estimate: CallEstimate, opts: { billable?: boolean } = {}): Reservation {
    const billable = opts.billable ?? true;
    this.check(estimate, { billable });
    const held = { usd: billable ? estimate.usd : 0, tokens: estimate.tokens, calls: 1 };
    this.add(this.pending, held, 1);
    let open = true;
    return {
      settle: (actual) => {
        if (!open) return;
        open = false;
        this.add(this.pending, held, -1);
        this.add(this.spent, { usd: billable ? actual.usd : 0, tokens: actual.tokens, calls: 1 }, 1);
      },
      cancel: () => {
        if (!open) return;
        open = false;
        this.add(this.pending, held, -1);
      },
    };
  }

  /** Records a finished call that was not reserved. */
  record(reply: { tokensIn: number; tokensOut: number; costUsd: number; cached?: boolean }, opts: { billable?: boolean } = {}): void {
    if (reply.cached) return;
    this.add(this.spent, { usd: (opts.billable ?? true) ? reply.costUsd : 0, tokens: reply.tokensIn + reply.tokensOut, calls: 1 }, 1);
  }

  used(): Spend {
    return { ...this.spent };
  }

  /**
   * Limits further spending to `share` on top of what is spent now, until the returned release is
   * called. The night gives each skill a share of what remains, so the first skill in the plan
   * cannot spend the whole night and leave the others untrained; what a skill leaves unspent goes
   * to the skills after it.
   */
  capShare(share: Spend): () => void {
    const s = this.spent;
    const p = this.pending;
    this.cap = { usd: s.usd + p.usd + share.usd, tokens: s.tokens + p.tokens + share.tokens, calls: s.calls + p.calls + share.calls };
    return () => {
      this.cap = null;
    };
  }

  /**
   * Sets `spend` aside for what must run after training: until released, every check counts it as
   * spent, so a training stopped by the budget still leaves the calls that measure and stage what
   * passed the gate (the night holds back its test and audit-slice replays; the training loop
   * releases them when it ends). A second hold replaces the first.
   */
  holdBack(spend: Spend): void {
    this.held = { ...spend };
  }

  releaseHeld(): void {
    this.held = { usd: 0, tokens: 0, calls: 0 };
  }

  remaining(): Spend & { ms?: number } {
    const l = this.limits;
    const s = this.spent;
    const p = this.pending;
    return {
      usd: Math.max(0, l.maxUsd - s.usd - p.usd),
      tokens: Math.max(0, l.maxTokens - s.tokens - p.tokens),
      calls: Math.max(0, l.maxCalls - s.calls - p.calls),
      ms: l.deadlineMs === undefined ? undefined : Math.max(0, l.deadlineMs - this.clock.now()),
    };
  }

  /** Dry run: would these planned calls fit the remaining budget? Does not reserve anything. */
  forecast(planned: CallEstimate[], opts: { billable?: boolean; msPerCall?: number } = {}): Forecast {
    const billable = opts.billable ?? true;
    const rem = this.remaining();
    const total: Spend = { usd: 0, tokens: 0, calls: 0 };
    let limitedBy: Forecast['limitedBy'];
    let callsThatFit = 0;
    for (const est of planned) {
      const next = { usd: total.usd + (billable ? est.usd : 0), tokens: total.tokens + est.tokens, calls: total.calls + 1 };
      if (!limitedBy) {
        if (next.calls > rem.calls) limitedBy = 'calls';
        else if (next.tokens > rem.tokens) limitedBy = 'tokens';
        else if (next.usd > rem.usd + EPS) limitedBy = 'usd';
        else if (rem.ms !== undefined && opts.msPerCall !== undefined && next.calls * opts.msPerCall > rem.ms) limitedBy = 'deadline';
        else callsThatFit++;
      }
      Object.assign(total, next);
    }
    return { ...total, fits: limitedBy === undefined, limitedBy, callsThatFit };
  }

  private add(target: Spend, delta: Spend, sign: 1 | -1): void {
    target.usd += sign * delta.usd;
    target.tokens += sign * delta.tokens;
    target.calls += sign * delta.calls;
    if (Math.abs(target.usd) < EPS) target.usd = 0;
  }

  private exceeded(limit: string, message: string): SleepError {
    return new SleepError('BUDGET_EXCEEDED', message, {
      hint: 'raise budget.maxUsd / budget.maxTokens / budget.maxCalls or budget.deadline (`skillopt-sleep config set budget.maxCalls 800`)',
      details: { limit, used: this.used(), limits: this.limits },
    });
  }
}

/** Budget from config: `deadline` "HH:MM" is the next such local time after `now`. */
export function budgetFromConfig(
  budget: { maxUsd: number; maxTokens: number; maxCalls: number; deadline?: string },
  clock: Clock = systemClock,
): BudgetTracker {
  return new BudgetTracker(
    { maxUsd: budget.maxUsd, maxTokens: budget.maxTokens, maxCalls: budget.maxCalls, deadlineMs: budget.deadline ? nextLocalTime(budget.deadline, clock.now()) : undefined },
    clock,
  );
}

export function nextLocalTime(hhmm: string, now: number): number {
  const [h, m] = hhmm.split(':').map(Number);
  const d = new Date(now);
  d.setHours(h, m, 0, 0);
  if (d.getTime() <= now) d.setDate(d.getDate() + 1);
  return d.getTime();
}
