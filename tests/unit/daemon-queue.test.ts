import { describe, expect, it } from 'vitest';
import { DebouncedQueue, type FlushBatch, type TimerApi } from '../../src/daemon/queue.js';

/** A manual clock: timers fire only when the test advances time. */
function fakeTimers() {
  let now = 0;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const api: TimerApi = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = ++seq;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (h) => void timers.delete(h as number),
  };
  const advance = async (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      now = due[1].at;
      timers.delete(due[0]);
      due[1].fn();
      await new Promise((r) => setImmediate(r));
    }
    now = end;
    await new Promise((r) => setImmediate(r));
  };
  return { api, advance, pending: () => timers.size };
}

function makeQueue(opts: Partial<{ debounceMs: number; maxWaitMs: number; maxPending: number }> = {}, slow?: () => Promise<void>) {
  const t = fakeTimers();
  const batches: FlushBatch[] = [];
  const q = new DebouncedQueue({
    debounceMs: opts.debounceMs ?? 200,
    maxWaitMs: opts.maxWaitMs ?? 1000,
    maxPending: opts.maxPending ?? 100,
    timers: t.api,
    onFlush: async (b) => {
      batches.push({ files: [...b.files].sort(), rescanAll: b.rescanAll });
      if (slow) await slow();
    },
  });
  return { q, t, batches };
}

describe('DebouncedQueue', () => {
  it('coalesces a burst of changes to one file into one flush after the quiet period', async () => {
    const { q, t, batches } = makeQueue();
    for (let i = 0; i < 5; i++) {
      q.push('/a.jsonl');
      await t.advance(50);
    }
    expect(batches).toHaveLength(0);
    expect(q.depth).toBe(1);
    await t.advance(200);
    expect(batches).toEqual([{ files: ['/a.jsonl'], rescanAll: false }]);
    expect(q.depth).toBe(0);
  });

  it('debounces per file: a busy file does not hold back a quiet one', async () => {
    const { q, t, batches } = makeQueue();
    q.push('/quiet.jsonl');
    q.push('/busy.jsonl');
    await t.advance(150);
    q.push('/busy.jsonl');
    await t.advance(60); // quiet.jsonl reached 210 ms
    expect(batches).toEqual([{ files: ['/quiet.jsonl'], rescanAll: false }]);
    await t.advance(200);
    expect(batches[1]).toEqual({ files: ['/busy.jsonl'], rescanAll: false });
  });

  it('never waits longer than maxWait for a file that keeps changing', async () => {
    const { q, t, batches } = makeQueue({ debounceMs: 200, maxWaitMs: 500 });
    for (let i = 0; i < 20; i++) {
      q.push('/stream.jsonl');
      await t.advance(100);
    }
    // 2 s of continuous appends: flushed about every 500 ms, not once at the end
    expect(batches.length).toBeGreaterThanOrEqual(3);
  });

  it('past maxPending it stops remembering names and asks for a full rescan instead (nothing is lost)', async () => {
    const { q, t, batches } = makeQueue({ maxPending: 3 });
    for (let i = 0; i < 10; i++) q.push(`/f${i}.jsonl`);
    expect(q.depth).toBeLessThanOrEqual(4);
    await t.advance(300);
    const all = batches.flatMap((b) => b.files);
    expect(batches.some((b) => b.rescanAll)).toBe(true);
    expect(all.length).toBeLessThanOrEqual(3);
  });

  it('runs one flush at a time; changes during a flush go to the next one', async () => {
    let release!: () => void;
    let active = 0;
    let maxActive = 0;
    const slow = () =>
      new Promise<void>((r) => {
        active++;
        maxActive = Math.max(maxActive, active);
        release = () => {
          active--;
          r();
        };
      });
    const { q, t, batches } = makeQueue({}, slow);
    q.push('/a.jsonl');
    await t.advance(250);
    expect(batches).toHaveLength(1);
    q.push('/b.jsonl');
    await t.advance(250);
    expect(batches).toHaveLength(1); // still flushing /a
    release();
    await t.advance(1);
    expect(batches).toHaveLength(2);
    expect(batches[1].files).toEqual(['/b.jsonl']);
    release();
    expect(maxActive).toBe(1);
  });

  it('requestRescan flushes a rescan with no debounce; close drops pending timers', async () => {
    const { q, t, batches } = makeQueue();
    q.requestRescan();
    await t.advance(0);
    expect(batches).toEqual([{ files: [], rescanAll: true }]);
    q.push('/x.jsonl');
    await q.close();
    expect(t.pending()).toBe(0);
    q.push('/y.jsonl');
    await t.advance(1000);
    expect(batches).toHaveLength(1);
  });
});
