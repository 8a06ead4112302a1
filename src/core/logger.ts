/**
 * Structured JSON-lines logs under `logs/`, rotated by size through pino-roll (a pino transport
 * running in a worker thread, so logging never blocks the daemon's event loop).
 */
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { ensurePrivateDir } from './fsutil.js';

export type { Logger };

export interface LoggerOptions {
  logsDir: string;
  name: string; // file stem: daemon, night, cli
  level?: string;
  maxSizeMb?: number;
  keep?: number;
}

export function createFileLogger(opts: LoggerOptions): Logger {
  ensurePrivateDir(opts.logsDir);
  const transport = pino.transport({
    target: 'pino-roll',
    options: {
      file: path.join(opts.logsDir, opts.name),
      extension: '.log',
      size: `${opts.maxSizeMb ?? 10}m`,
      limit: { count: opts.keep ?? 5 },
      mkdir: true,
      symlink: true, // <name>.log → current file, for `logs -f`
    },
  });
  return pino({ level: opts.level ?? 'info', base: { pid: process.pid, component: opts.name } }, transport);
}

/** A logger that drops everything: default for library code and tests. */
export const nullLogger: Logger = pino({ level: 'silent' });
