import type { Progress } from '../core/progress.js';

/**
 * Progress on stderr: a redrawn bar on a TTY, plain lines (every ~10%) otherwise.
 */
export function createCliProgress(stream: NodeJS.WriteStream): Progress {
  const tty = !!stream.isTTY;
  let label = '';
  let total: number | undefined;
  let count = 0;
  let lastPct = -1;
  let lastDraw = 0;

  const draw = (detail?: string) => {
    if (!tty) {
      if (total) {
        const pct = Math.floor((count / total) * 10) * 10;
        if (pct !== lastPct) {
          lastPct = pct;
          stream.write(`${label}: ${count}/${total} (${pct}%)\n`);
        }
      }
      return;
    }
    const now = Date.now();
    if (now - lastDraw < 50 && (!total || count < total)) return;
    lastDraw = now;
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
