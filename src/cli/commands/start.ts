import type { Command } from 'commander';
import { action } from '../run.js';
import { packageVersion } from '../../core/version.js';
import { describeHealth, runForeground, startDetached } from '../../daemon/lifecycle.js';
import { daemonPreflight } from '../../daemon/preflight.js';

export function register(program: Command): void {
  program
    .command('start')
    .description('start the daemon: watch agent transcripts, ingest them, run the night on schedule (returns at once; --foreground stays)')
    .option('--foreground', 'run in this process until SIGTERM/SIGINT (for systemd, launchd, containers)')
    .action(
      action(async (ctx, opts: { foreground?: boolean }) => {
        // a bad key, schedule or an unwritable state folder fails here, with its hint, rather than inside the daemon
        daemonPreflight(ctx.paths, ctx.config, 'Nothing was started.');
        if (opts.foreground) {
          const config = ctx.config;
          return runForeground({ paths: ctx.paths, config, env: ctx.env, version: packageVersion(), print: (l) => ctx.print(l) });
        }
        const res = await startDetached(ctx.paths, ctx.env);
        ctx.emit('start', { ok: true, already: res.already, pid: res.pid, health: res.health ?? null }, () => {
          ctx.print(res.already ? `skillopt-sleep is already running (pid ${res.pid})` : `skillopt-sleep started (pid ${res.pid})`);
          if (res.health) for (const l of describeHealth(res.health, ctx.paths)) ctx.print(l);
          ctx.print('`skillopt-sleep status` shows it at any time; `skillopt-sleep stop` stops it.');
        });
      }),
    );
}
