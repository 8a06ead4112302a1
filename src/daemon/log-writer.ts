/**
 * The daemon's logger: the same JSON lines, file names and size rotation as `createFileLogger`
 * (pino + pino-roll), but written from the main thread. createFileLogger runs pino-roll as a
 * transport in a worker thread, which costs ~18 MB of resident memory — too much for a resident
 * process budgeted at 120 MB.
 *
 * Writes are synchronous. An asynchronous write still in flight when `flush()` ran was neither
 * flushed nor waited for: the line could be lost at exit, and a test reading the log right after
 * `flush()` found it empty under load. The daemon logs a few lines a minute at most (per-file
 * harvest lines are debug), so a blocking write of one line costs nothing that matters.
 */
import path from 'node:path';
import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import { ensurePrivateDir } from '../core/fsutil.js';
import type { LoggerOptions } from '../core/logger.js';

interface RollStream extends NodeJS.WritableStream {
  flushSync(): void;
  fd: number;
}
type RollFactory = (opts: Record<string, unknown>) => Promise<RollStream>;

const require = createRequire(import.meta.url);

export interface DaemonLogger {
  logger: Logger;
  /** synchronous flush, safe in exit paths */
  flush(): void;
}

export async function createDaemonLogger(opts: LoggerOptions): Promise<DaemonLogger> {
  ensurePrivateDir(opts.logsDir);
  const roll = require('pino-roll') as RollFactory;
  const stream = await roll({
    file: path.join(opts.logsDir, opts.name),
    extension: '.log',
    size: `${opts.maxSizeMb ?? 10}m`,
    limit: { count: opts.keep ?? 5 },
    mkdir: true,
    mode: 0o600,
    sync: true,
  });
  // SonicBoom opens the file asynchronously; wait, so a crash right after start still leaves a log
  if (stream.fd < 0) {
    await new Promise<void>((resolve, reject) => {
      stream.once('ready', () => resolve());
      stream.once('error', reject);
    });
  }
  const logger = pino({ level: opts.level ?? 'info', base: { pid: process.pid, component: opts.name } }, stream);
  return {
    logger,
    flush: () => {
      try {
        stream.flushSync();
      } catch {
        /* nothing buffered, or the file is gone */
      }
    },
  };
}
