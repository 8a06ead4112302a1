/**
 * `uninstall`: take skillopt-sleep off this machine — stop the daemon, remove the service units
 * `schedule install` wrote, take the session-start hooks out of the agents' files (restored
 * exactly), and delete the state folder (database, proposals, runs, backups, logs) and the config
 * folder. Asks first, `--yes` for scripts; `--keep-data` leaves the state and config folders.
 * Skill files you applied stay: they are yours now. The binary itself is npm's to remove.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { action } from '../run.js';
import { assertDeletableFolder, confirm } from '../confirm.js';
import { liveDaemon, stopDaemon } from '../../daemon/lifecycle.js';
import { removeSupervisor, showSupervisor, type SupervisorKind } from '../../daemon/schedule-install.js';
import { SleepError } from '../../core/errors.js';
import { agentDisplayName } from '../../../adapters/index.js';
import { hookAgents, hookStates, removeHook, type HookRemoveResult } from '../session-hooks.js';

function supervisorKinds(platform = process.platform): SupervisorKind[] {
  if (platform === 'darwin') return ['launchd', 'cron'];
  if (platform === 'win32') return [];
  return ['systemd', 'cron'];
}

function installedSupervisors(env: NodeJS.ProcessEnv): Array<{ kind: SupervisorKind; file: string }> {
  const out: Array<{ kind: SupervisorKind; file: string }> = [];
  for (const kind of supervisorKinds()) {
    try {
      const s = showSupervisor(kind, env);
      if (s.installed) out.push({ kind, file: s.target.file });
    } catch {
      // (no crontab on this system: nothing of ours there)
    }
  }
  return out;
}

export function register(program: Command): void {
  program
    .command('uninstall')
    .description('stop the daemon, remove its service units and the agent hooks, delete state and config; asks first')
    .option('-y, --yes', 'do not ask')
    .option('--keep-data', 'keep the state folder (database, proposals, backups) and the config')
    .action(
      action(async (ctx, opts: { yes?: boolean; keepData?: boolean }) => {
        const daemon = liveDaemon(ctx.paths);
        const units = installedSupervisors(ctx.env);
        const hooks = hookStates(ctx.env).filter((h) => h.installed);
        const dirs = opts.keepData ? [] : [ctx.paths.stateDir, ctx.paths.configDir].filter((d, i, a) => fs.existsSync(d) && a.indexOf(d) === i);
        for (const d of dirs) assertDeletableFolder(d, ctx.env);
        const plan = [
          daemon ? `stop the daemon (pid ${daemon.pid})` : null,
          ...units.map((u) => `remove the ${u.kind} service ${u.file}`),
          ...hooks.map((h) => `remove the session-start hook from ${h.file} (restored exactly)`),
          ...dirs.map((d) => `delete ${d}`),
        ].filter((x): x is string => !!x);
        if (!plan.length) {
          ctx.emit('uninstall', { ok: true, done: [], binary: 'npm uninstall -g skillopt-sleep' }, () => {
            ctx.print('nothing of skillopt-sleep is installed here (no daemon, service, hook or data)');
            ctx.print('to remove the command itself: `npm uninstall -g skillopt-sleep` (or `npm unlink -g skillopt-sleep` for a linked clone)');
          });
          return 0;
        }
        const question = `Uninstall skillopt-sleep? This will:\n${plan.map((p) => `  - ${p}`).join('\n')}\nSkill files you applied and your agents' transcripts stay.`;
        if (!(await confirm(ctx, question, opts.yes))) {
          ctx.note('nothing changed');
          return 1;
        }
        const done: string[] = [];
        if (daemon) {
          const res = await stopDaemon(ctx.paths, ctx.db, { force: true, by: '`skillopt-sleep uninstall`' });
          if (res.stillRunning) throw new SleepError('INTERNAL', `the daemon (pid ${daemon.pid}) did not stop; nothing else was changed`, { hint: '`skillopt-sleep stop --force`, then run uninstall again' });
          done.push(`stopped the daemon (pid ${daemon.pid})`);
        }
        for (const u of units) {
          removeSupervisor(u.kind, ctx.env);
          done.push(`removed the ${u.kind} service ${u.file}`);
        }
        const removed: HookRemoveResult[] = hookAgents().map((a) => removeHook(ctx.paths, a, ctx.env));
        for (const r of removed) if (r.status !== 'absent') done.push(`${agentDisplayName(r.agent)}: ${r.status === 'edited' ? 'took our hook out of' : r.status === 'deleted' ? 'removed' : 'restored'} ${r.file}`);
        ctx.close();
        for (const d of dirs) {
          fs.rmSync(d, { recursive: true, force: true });
          done.push(`deleted ${d}`);
        }
        ctx.emit('uninstall', { ok: true, done, binary: 'npm uninstall -g skillopt-sleep' }, () => {
          for (const d of done) ctx.print(d);
          ctx.print('to remove the command itself: `npm uninstall -g skillopt-sleep` (or `npm unlink -g skillopt-sleep` for a linked clone)');
        });
        return 0;
      }),
    );
}
