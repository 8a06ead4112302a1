import type { Command } from 'commander';
import { action } from '../run.js';
import { describeHealth, startDetached, stopDaemon } from '../../daemon/lifecycle.js';
import { SleepError } from '../../core/errors.js';

export function register(program: Command): void {
  program
    .command('restart')
    .description('stop the daemon if it runs, then start it again (picks up config changes)')
    .action(
      action(async (ctx) => {
        void ctx.config; // a broken config fails before we stop a working daemon
        const stopped = await stopDaemon(ctx.paths, ctx.db, { timeoutMs: 15_000, force: true });
        if (stopped.stillRunning) throw new SleepError('INTERNAL', `the daemon (pid ${stopped.pid}) would not stop`, { hint: 'kill it by hand, then `skillopt-sleep start`' });
        ctx.close();
        const res = await startDetached(ctx.paths, ctx.env);
        ctx.emit('restart', { ok: true, stoppedPid: stopped.pid ?? null, pid: res.pid, health: res.health ?? null }, () => {
          if (stopped.wasRunning) ctx.print(`stopped pid ${stopped.pid}`);
          ctx.print(`skillopt-sleep started (pid ${res.pid})`);
          if (res.health) for (const l of describeHealth(res.health, ctx.paths)) ctx.print(l);
        });
      }),
    );
}
