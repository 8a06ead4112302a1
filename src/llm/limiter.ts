/**
 * A counting semaphore: at most `limit` calls in flight per backend. Waiters are served in
 * arrival order; a waiter whose signal aborts leaves the queue without taking a slot.
 */
import { SleepError } from '../core/errors.js';

export class Limiter {
  private active = 0;
  private readonly queue: Array<{ grant: () => void; reject: (e: unknown) => void; signal?: AbortSignal; onAbort?: () => void }> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`limiter limit must be a positive integer, got ${limit}`);
  }

  get inFlight(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new SleepError('ABORTED', 'operation aborted', { cause: signal.reason }));
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry: (typeof this.queue)[number] = { grant: resolve, reject, signal };
      if (signal) {
        entry.onAbort = () => {
          const i = this.queue.indexOf(entry);
          if (i >= 0) this.queue.splice(i, 1);
          reject(new SleepError('ABORTED', 'operation aborted', { cause: signal.reason }));
        };
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.queue.push(entry);
    });
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) {
      if (next.signal && next.onAbort) next.signal.removeEventListener('abort', next.onAbort);
      next.grant(); // the slot passes straight to the next waiter
    } else {
      this.active--;
    }
  }
}
