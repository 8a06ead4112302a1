import type { Command } from 'commander';
import { action } from '../run.js';

export function register(program: Command): void {
  program
    .command('paths')
    .description('print where config, state, database, logs, proposals and backups live')
    .action(
      action((ctx) => {
        const p = ctx.paths;
        const data = {
          config: p.configFile,
          state: p.stateDir,
          database: p.database,
          logs: p.logsDir,
          proposals: p.proposalsDir,
          backups: p.backupsDir,
          runs: p.runsDir,
          workspaces: p.workspacesDir,
          override: ctx.env.SKILLOPT_SLEEP_HOME ? 'SKILLOPT_SLEEP_HOME' : null,
        };
        ctx.emit('paths', data, () => {
          const w = 11;
          for (const [k, v] of Object.entries(data)) {
            if (k === 'override') continue;
            ctx.print(`${k.padEnd(w)} ${v}`);
          }
          if (data.override) ctx.print(`(overridden by SKILLOPT_SLEEP_HOME)`);
        });
      }),
    );
}
