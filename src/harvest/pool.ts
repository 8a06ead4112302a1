/**
 * Runs file tasks on worker threads when there is enough work to pay for them (and the compiled
 * worker exists: under a TypeScript test runner we parse inline), else inline on this thread.
 * Results are handed to `onResults` on the main thread, batch by batch, as they arrive, so the
 * store is written while the workers keep parsing.
 */
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { throwIfAborted } from '../core/errors.js';
import { processFile, unpackBatch, type FileResult, type FileTask, type PackedBatch } from './process-file.js';

export interface PoolOptions {
  /** worker count; 0 = inline. Default: decided from the amount of work and the CPU count */
  workers?: number;
  signal?: AbortSignal;
  onResults(results: FileResult[]): void;
  /**
   * Workers started ahead (`startWorkers`): used first, before new ones are started. `runTasks`
   * takes them over: those it needs it terminates when done, the others at once.
   */
  started?: Worker[];
}

/** Below this many bytes to read, starting workers costs more than it saves. */
const WORKER_MIN_BYTES = 8 << 20;
const BATCH_BYTES = 4 << 20;
const BATCH_FILES = 64;
/**
 * Batches queued per worker. A worker's next batch is only sent when the main thread handles its
 * last result, and the main thread cannot while it commits a group of results (100–200 ms); with
 * 2 queued the workers ran dry during every commit, with 6 (~24 MB of file bytes, ~0.2 s of
 * parsing) they keep going — measured ~10% faster cold pass, same peak RSS.
 */
const IN_FLIGHT = 6;

function workerFile(): string | null {
  const url = new URL('./worker.js', import.meta.url);
  const file = fileURLToPath(url);
  return fs.existsSync(file) ? file : null;
}

export function chooseWorkers(totalBytes: number, env: NodeJS.ProcessEnv = process.env): number {
  const forced = env.SKILLOPT_SLEEP_HARVEST_WORKERS;
  if (forced !== undefined && forced !== '' && Number.isFinite(Number(forced))) return workerFile() ? Math.max(0, Math.floor(Number(forced))) : 0;
  if (totalBytes < WORKER_MIN_BYTES || !workerFile()) return 0;
  const cpus = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return workersFor(cpus);
}

/**
 * The main thread writes the store while workers parse, and the writing is about a third of a cold
 * pass: one core is left to it, the others parse, at most two (each worker is a V8 isolate of
 * ~45 MB; the pass must stay under ~300 MB), at least one. On two cores, two workers and the writer
 * took turns on the cores: measured on the bench corpus (100 MB) at load ≈ 8, one worker used 2.0 s
 * of CPU and 2.5–3.2 s of wall against 2.6 s and 3.9–4.7 s for two (every isolate also compiles
 * the parse path and collects its own garbage).
 */
export function workersFor(cpus: number): number {
  return Math.max(1, Math.min(2, cpus - 1));
}

/**
 * Starts `count` workers before their tasks are known (hand them to `runTasks` as `started`, or
 * end them with `stopWorkers`). A worker thread takes ~50 ms to boot (a V8 isolate, Node's
 * bootstrap, the parse modules): started while the main thread still lists and stats the files,
 * that time is not added to the pass.
 */
export function startWorkers(count: number): Worker[] {
  const file = workerFile();
  return file ? Array.from({ length: Math.max(0, count) }, () => watched(new Worker(file))) : [];
}

/** Started workers that exited (crashed) before `runTasks` took them over and listened itself. */
const exitedEarly = new WeakSet<Worker>();
function watched(w: Worker): Worker {
  w.once('exit', () => exitedEarly.add(w));
  w.on('error', () => {}); // (reported by its exit; an unheard 'error' event would throw)
  return w;
}

export async function stopWorkers(workers: Worker[]): Promise<void> {
  await Promise.all(workers.map((w) => w.terminate()));
}

/** Groups tasks into batches of bounded bytes (estimated from the bytes each task will read). */
export function batchTasks(tasks: Array<FileTask & { estBytes: number }>): FileTask[][] {
  const batches: FileTask[][] = [];
  let cur: FileTask[] = [];
  let bytes = 0;
  for (const t of tasks) {
    cur.push(t);
    bytes += t.estBytes;
    if (bytes >= BATCH_BYTES || cur.length >= BATCH_FILES) {
      batches.push(cur);
      cur = [];
      bytes = 0;
    }
  }
  if (cur.length) batches.push(cur);
  return batches;
}

export async function runTasks(tasks: Array<FileTask & { estBytes: number }>, workers: number, opts: PoolOptions): Promise<void> {
  const batches = batchTasks(tasks);
  const started = opts.started?.splice(0) ?? []; // taken over: the caller's list is emptied
  const wanted = workers > 0 ? Math.min(workers, batches.length) : 0;
  const stopping = stopWorkers(started.splice(wanted)); // the spare ones, at once
  try {
    await runBatches(batches, wanted, started, opts);
  } finally {
    await stopping;
  }
}

async function runBatches(batches: FileTask[][], workers: number, started: Worker[], opts: PoolOptions): Promise<void> {
  if (workers <= 0) {
    for (const b of batches) {
      throwIfAborted(opts.signal);
      opts.onResults(b.map((t) => processFile(t)));
      await new Promise((r) => setImmediate(r)); // let timers/signals run between batches
    }
    return;
  }
  const file = workerFile();
  if (!file) return runBatches(batches, 0, started, opts);
  // Batches [next, last) are still to hand out. Tasks arrive grouped by agent (Claude, Codex, then
  // Copilot), and odd workers take from the back: each worker then parses one or two formats, not
  // all three. Every new format a worker meets deoptimizes its hot parse path and costs another
  // optimizing compile on the V8 helper threads, which compete for the same two cores (measured: ~5%
  // faster cold pass, ~6% less CPU).
  let next = 0;
  let last = batches.length;
  const take = (worker: number): FileTask[] => (worker % 2 === 1 ? batches[--last] : batches[next++]);
  let failure: unknown = null;
  const pool = [...started, ...Array.from({ length: Math.max(0, workers - started.length) }, () => new Worker(file))];
  // The main thread only writes: parsing here would hold results back while the workers wait.
  // Each worker keeps IN_FLIGHT batches queued, so it parses the next one while the main thread
  // is still writing the results of the previous one (one in flight left a worker idle half the time).
  try {
    await Promise.all(
      pool.map(
        (w, index) =>
          new Promise<void>((resolve) => {
            const queued: FileTask[][] = [];
            let done = false;
            const finish = () => {
              if (done) return;
              done = true;
              resolve();
            };
            const send = () => {
              while (queued.length < IN_FLIGHT && !failure && !opts.signal?.aborted && next < last) {
                const b = take(index);
                queued.push(b);
                w.postMessage({ tasks: b });
              }
              if (!queued.length) finish();
            };
            w.on('message', (msg: PackedBatch) => {
              queued.shift();
              send(); // refill before writing: the worker parses while we write
              try {
                opts.onResults(unpackBatch(msg));
              } catch (err) {
                failure = err;
              }
              if (!queued.length) finish();
            });
            const crashed = () => {
              // a crashed (or exited) worker must not lose its batches: finish them inline
              for (const b of queued.splice(0)) {
                if (failure) break;
                try {
                  opts.onResults(b.map((t) => processFile(t)));
                } catch (err) {
                  failure = err;
                }
              }
              finish();
            };
            w.on('error', crashed);
            w.on('exit', crashed);
            send();
            if (exitedEarly.has(w)) crashed(); // a started worker that died before we listened
          }),
      ),
    );
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
  // batches left by a crashed worker
  while (!failure && !opts.signal?.aborted && next < last) opts.onResults(batches[next++].map((t) => processFile(t)));
  if (failure) throw failure;
  throwIfAborted(opts.signal);
}
