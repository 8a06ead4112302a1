/**
 * Per-file debounced, bounded work queue between the watcher and the harvester.
 *
 * - Debounce: an agent appends a transcript line by line; each file waits `debounceMs` after its
 *   last change (but never more than `maxWaitMs` after its first), so a burst is one harvest.
 * - Bounded: at most `maxPending` distinct files are remembered. Past that we stop remembering
 *   names and set `overflow`, and the next flush asks for a full incremental rescan instead —
 *   the harvester's byte offsets make that exact, so nothing is lost, only batched.
 * - Serial: one flush at a time; files that change during a flush wait for the next one.
 */
export interface TimerApi {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

export const realTimers: TimerApi = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  now: () => Date.now(),
};

export interface FlushBatch {
  files: string[];
  /** true when the queue overflowed: rescan everything instead of (or as well as) `files` */
  rescanAll: boolean;
}

export interface QueueOptions {
  debounceMs: number;
  maxWaitMs: number;
  maxPending: number;
  onFlush(batch: FlushBatch): Promise<void>;
  onError?(err: unknown): void;
  timers?: TimerApi;
}

interface PendingFile {
  timer: unknown;
  firstAt: number;
}

export class DebouncedQueue {
  private readonly pending = new Map<string, PendingFile>();
  private readonly ready = new Set<string>();
  private overflow = false;
  private running: Promise<void> | undefined;
  private closed = false;
  private readonly t: TimerApi;
  /** files handed to onFlush so far */
  flushedFiles = 0;
  flushes = 0;

  constructor(private readonly opts: QueueOptions) {
    this.t = opts.timers ?? realTimers;
  }

  /** Files waiting (debouncing or ready) — the queue depth shown by `status`. */
  get depth(): number {
    return this.pending.size + this.ready.size + (this.overflow ? 1 : 0);
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  push(file: string): void {
    if (this.closed) return;
    const now = this.t.now();
    const cur = this.pending.get(file);
    if (cur) {
      this.t.clearTimeout(cur.timer);
      const wait = Math.max(0, Math.min(this.opts.debounceMs, cur.firstAt + this.opts.maxWaitMs - now));
      cur.timer = this.t.setTimeout(() => this.promote(file), wait);
      return;
    }
    if (this.ready.has(file)) return; // already due; the next flush reads to the end of the file
    if (this.pending.size + this.ready.size >= this.opts.maxPending) {
      this.overflow = true;
      this.kick();
      return;
    }
    this.pending.set(file, { firstAt: now, timer: this.t.setTimeout(() => this.promote(file), this.opts.debounceMs) });
  }

  /** Asks for a full incremental rescan (startup catch-up, a root that just appeared). */
  requestRescan(): void {
    if (this.closed) return;
    this.overflow = true;
    this.kick();
  }

  private promote(file: string): void {
    if (!this.pending.delete(file)) return;
    this.ready.add(file);
    this.kick();
  }

  private kick(): void {
    if (this.running || this.closed) return;
    if (this.ready.size === 0 && !this.overflow) return;
    this.running = this.loop().finally(() => {
      this.running = undefined;
      // work that arrived during the last flush
      if (!this.closed && (this.ready.size > 0 || this.overflow)) this.kick();
    });
  }

  private async loop(): Promise<void> {
    while (!this.closed && (this.ready.size > 0 || this.overflow)) {
      const batch: FlushBatch = { files: [...this.ready], rescanAll: this.overflow };
      this.ready.clear();
      this.overflow = false;
      try {
        await this.opts.onFlush(batch);
        this.flushes++;
        this.flushedFiles += batch.files.length;
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
  }

  /** Resolves when nothing is debouncing, ready or running (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.running || this.ready.size > 0 || this.pending.size > 0) {
      if (this.running) await this.running;
      else await new Promise<void>((r) => setTimeout(r, 10));
    }
  }

  /** Stops accepting work; pending timers are dropped (the next start's rescan picks the files up). */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.pending.values()) this.t.clearTimeout(p.timer);
    this.pending.clear();
    this.ready.clear();
    if (this.running) await this.running;
  }
}
