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
import { processFile, type FileResult, type FileTask } from './process-file.js';

export interface PoolOptions {
  /** worker count; 0 = inline. Default: decided from the amount of work and the CPU count */
  workers?: number;
  signal?: AbortSignal;
  onResults(results: FileResult[]): void;
}

/** Below this many bytes to read, starting workers costs more than it saves. */
const WORKER_MIN_BYTES = 8 << 20;
const BATCH_BYTES = 4 << 20;
const BATCH_FILES = 64;

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
  // the main thread parses too (between store writes): one worker per remaining core, at most two
  // (each worker is a V8 isolate of ~45 MB; the pass must stay under ~300 MB)
  return Math.max(1, Math.min(2, cpus - 1));
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
  if (workers <= 0) {
    for (const b of batches) {
      throwIfAborted(opts.signal);
      opts.onResults(b.map((t) => processFile(t)));
      await new Promise((r) => setImmediate(r)); // let timers/signals run between batches
    }
    return;
  }
  const file = workerFile();
  if (!file) return runTasks(tasks, 0, opts);
  let next = 0;
  let failure: unknown = null;
  const pool = Array.from({ length: Math.min(workers, batches.length) }, () => new Worker(file));
  // The main thread writes results as they arrive; between writes it parses batches too, rather
  // than idle while the workers start up or while the last batches are in flight.
  const mainThread = (async () => {
    while (!failure && !opts.signal?.aborted && next < batches.length) {
      await new Promise((r) => setImmediate(r)); // deliver pending worker results first
      if (next >= batches.length || failure || opts.signal?.aborted) break;
      const b = batches[next++];
      try {
        opts.onResults(b.map((t) => processFile(t)));
      } catch (err) {
        failure = err;
      }
    }
  })();
  try {
    await Promise.all([
      mainThread,
      ...pool.map(
        (w) =>
          new Promise<void>((resolve) => {
            let current: FileTask[] | null = null;
            const send = () => {
              if (failure || opts.signal?.aborted || next >= batches.length) {
                current = null;
                resolve();
                return;
              }
              current = batches[next++];
              w.postMessage({ id: next, tasks: current });
            };
            w.on('message', (msg: { results: FileResult[] }) => {
              try {
                opts.onResults(msg.results);
              } catch (err) {
                failure = err;
              }
              send();
            });
            w.on('error', () => {
              // a crashed worker must not lose its batch: finish it inline
              if (current) {
                try {
                  opts.onResults(current.map((t) => processFile(t)));
                } catch (err) {
                  failure = err;
                }
              }
              resolve();
            });
            send();
          }),
      ),
    ]);
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
  // batches left by a crashed worker
  while (!failure && !opts.signal?.aborted && next < batches.length) opts.onResults(batches[next++].map((t) => processFile(t)));
  if (failure) throw failure;
  throwIfAborted(opts.signal);
}
