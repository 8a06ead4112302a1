import type { Command } from 'commander';
import { action } from '../run.js';
import { stopDaemon } from '../../daemon/lifecycle.js';
import { SleepError } from '../../core/errors.js';
import { secondsOption } from '../options.js';

export function register(program: Command): void {
  program
    .command('stop')
    .description('stop the daemon (in-flight work is aborted and checkpointed; it exits within 10 s)')
    .option('--force', 'kill it (SIGKILL) if it has not exited after the timeout')
    .option('--timeout <seconds>', 'how long to wait for it to exit', '15')
    .action(
      action(async (ctx, opts: { force?: boolean; timeout: string }) => {
        const timeoutS = secondsOption('--timeout', opts.timeout);
        const res = await stopDaemon(ctx.paths, ctx.db, { force: opts.force, timeoutMs: timeoutS * 1000, by: '`skillopt-sleep stop`' });
        ctx.emit('stop', { ok: !res.stillRunning, ...res }, () => {
          if (!res.wasRunning) ctx.print(res.cleanedStale ? 'the daemon was not running (removed the leftovers of one that crashed)' : 'the daemon is not running');
          else if (res.stillRunning) ctx.print(`the daemon (pid ${res.pid}) has not exited yet`);
          else ctx.print(res.forced ? `killed the daemon (pid ${res.pid})` : `stopped the daemon (pid ${res.pid})`);
        });
        if (res.stillRunning) {
          throw new SleepError('INTERNAL', `the daemon (pid ${res.pid}) did not exit within ${timeoutS} s`, {
            hint: '`skillopt-sleep stop --force` kills it',
          });
        }
      }),
    );
}
