import type { Progress } from '../core/progress.js';

/**
 * Progress on stderr: a redrawn bar on a TTY; otherwise (a log file, a pipe) plain lines every
 * ~10%, but only for work that has run longer than QUIET_MS: a pass that takes a fraction of a
 * second would otherwise fill a log with eleven lines that say nothing.
 */
export const QUIET_MS = 2_000;

export function createCliProgress(stream: NodeJS.WriteStream, now: () => number = Date.now): Progress {
  const tty = !!stream.isTTY;
  let startedAt = 0;
  let label = '';
  let total: number | undefined;
  let count = 0;
  let lastPct = -1;
  let lastDraw = 0;

  const draw = (detail?: string) => {
    if (!tty) {
      if (total && now() - startedAt >= QUIET_MS) {
        const pct = Math.floor((count / total) * 10) * 10;
        if (pct !== lastPct) {
          lastPct = pct;
          stream.write(`${label}: ${count}/${total} (${pct}%)\n`);
        }
      }
      return;
    }
    const t = now();
    if (t - lastDraw < 50 && (!total || count < total)) return;
    lastDraw = t;
    const width = Math.max(10, Math.min(30, (stream.columns ?? 80) - 50));
    let line: string;
    if (total) {
      const frac = Math.min(1, count / total);
      const filled = Math.round(frac * width);
      line = `${label} [${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${count}/${total}`;
    } else {
      line = `${label} ${count}`;
    }
    if (detail) line += ` ${detail}`;
    const max = (stream.columns ?? 80) - 1;
    stream.write(`\r\x1b[2K${line.slice(0, max)}`);
  };

  return {
    start(l, t) {
      label = l;
      total = t;
      count = 0;
      lastPct = -1;
      startedAt = now();
      draw();
    },
    tick(n = 1, detail) {
      count += n;
      draw(detail);
    },
    log(line) {
      if (tty) stream.write(`\r\x1b[2K${line}\n`);
      else stream.write(line + '\n');
    },
    done(summary) {
      if (tty) stream.write('\r\x1b[2K');
      if (summary) stream.write(summary + '\n');
    },
  };
}
