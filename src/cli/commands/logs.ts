import type { Command } from 'commander';
import { action } from '../run.js';
import { followLog, formatLogLine, readLastLines } from '../../daemon/log-reader.js';
import { jsonOutput } from '../json-shape.js';
import { wholeNumberOption } from '../options.js';

/**
 * One log line under --json: the daemon's pino record, one JSON object a line (JSON Lines, so
 * `--follow` streams), tagged like every --json output and with `time` as an ISO string.
 */
export function logLineJson(raw: string): string {
  let record: object;
  try {
    const parsed = JSON.parse(raw) as unknown;
    record = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : { msg: raw };
  } catch {
    record = { msg: raw }; // a line pino did not write (a crash's stderr): kept whole as the message
  }
  return JSON.stringify(jsonOutput('log', record));
}

export function register(program: Command): void {
  program
    .command('logs')
    .description("print the daemon's log (logs/daemon.*.log), newest last")
    .option('-f, --follow', 'keep printing new lines until interrupted')
    .option('-n, --lines <n>', 'how many lines to print first', '50')
    .action(
      action(async (ctx, opts: { follow?: boolean; lines: string }) => {
        const n = wholeNumberOption('-n', opts.lines, 0);
        const show = (raw: string) => ctx.out.write((ctx.json ? logLineJson(raw) : formatLogLine(raw)) + '\n');
        const lines = readLastLines(ctx.paths.logsDir, 'daemon', n);
        if (lines.length === 0 && !opts.follow) {
          ctx.note(`no daemon log yet in ${ctx.paths.logsDir} (\`skillopt-sleep start\` starts the daemon)`);
          return;
        }
        for (const l of lines) show(l);
        if (opts.follow) {
          const ac = new AbortController();
          process.once('SIGINT', () => ac.abort());
          process.once('SIGTERM', () => ac.abort());
          await followLog(ctx.paths.logsDir, 'daemon', show, ac.signal);
        }
      }),
    );
}
