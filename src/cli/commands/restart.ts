import type { Command } from 'commander';
import { action } from '../run.js';
import { describeHealth, liveDaemon, noteStopReason, startDetached, stopDaemon } from '../../daemon/lifecycle.js';
import { daemonPreflight } from '../../daemon/preflight.js';
import { errorMessage, SleepError } from '../../core/errors.js';

export function register(program: Command): void {
  program
    .command('restart')
    .description('stop the daemon if it runs, then start it again (picks up config changes)')
    .action(
      action(async (ctx) => {
        // a broken config (or an unwritable state folder) fails before we stop a working daemon
        const running = liveDaemon(ctx.paths);
        daemonPreflight(ctx.paths, ctx.config, running ? `Nothing was stopped: the daemon (pid ${running.pid}) keeps running with the config it started with.` : 'Nothing was started.');
        const stopped = await stopDaemon(ctx.paths, ctx.db, { timeoutMs: 15_000, force: true, by: '`skillopt-sleep restart`' });
        if (stopped.stillRunning) throw new SleepError('INTERNAL', `the daemon (pid ${stopped.pid}) would not stop`, { hint: 'kill it by hand, then `skillopt-sleep start`' });
        let res: Awaited<ReturnType<typeof startDetached>>;
        try {
          res = await startDetached(ctx.paths, ctx.env);
        } catch (err) {
          // status then says why the daemon is not running
          noteStopReason(ctx.db, `stopped by \`skillopt-sleep restart\`, which could not start it again: ${errorMessage(err)}`);
          throw err;
        }
        ctx.close();
        ctx.emit('restart', { ok: true, stoppedPid: stopped.pid ?? null, pid: res.pid, health: res.health ?? null }, () => {
          if (stopped.wasRunning) ctx.print(`stopped pid ${stopped.pid}`);
          ctx.print(`skillopt-sleep started (pid ${res.pid})`);
          if (res.health) for (const l of describeHealth(res.health, ctx.paths)) ctx.print(l);
        });
      }),
    );
}
