import path from 'node:path';
import type { Command } from 'commander';
import { action } from '../run.js';
import { UsageError } from '../../core/errors.js';
import { cliPath, foregroundArgv } from '../../daemon/lifecycle.js';
import { defaultKind, installSupervisor, removeSupervisor, showSupervisor, type SupervisorKind } from '../../daemon/schedule-install.js';
import type { CliContext } from '../context.js';
import { agentHomeEnvVars } from '../../../adapters/index.js';

const KINDS: SupervisorKind[] = ['systemd', 'launchd', 'cron'];

function kindOf(opt: string | undefined): SupervisorKind {
  if (opt === undefined) return defaultKind();
  if (!KINDS.includes(opt as SupervisorKind)) throw new UsageError(`--kind "${opt}" is not one of ${KINDS.join(', ')}`);
  return opt as SupervisorKind;
}

/** A `schedule` subcommand: each acts on one supervisor, named by --kind or chosen by platform. */
function kindCommand(schedule: Command, name: string, description: string, run: (ctx: CliContext, kind: SupervisorKind) => void): void {
  schedule
    .command(name)
    .description(description)
    .option('--kind <kind>', `supervisor: ${KINDS.join(' | ')} (default: by platform)`)
    .action(action((ctx, opts: { kind?: string }) => run(ctx, kindOf(opts.kind))));
}

/** What the supervised daemon needs from this shell: where our state is, and PATH to find agent CLIs. */
function daemonEnv(ctx: CliContext): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ['SKILLOPT_SLEEP_HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', ...agentHomeEnvVars()]) {
    const v = ctx.env[k];
    if (v) env[k] = path.isAbsolute(v) ? v : path.resolve(v);
  }
  if (ctx.env.PATH) env.PATH = ctx.env.PATH;
  return env;
}

export function register(program: Command): void {
  const schedule = program
    .command('schedule')
    .description('keep the daemon running across logins and reboots (systemd user unit, launchd agent, or crontab @reboot)');

  kindCommand(schedule, 'install', 'write and enable the service that runs `skillopt-sleep start --foreground`', (ctx, kind) => {
    const res = installSupervisor(kind, { argv: foregroundArgv(), cronArgv: [process.execPath, cliPath(), 'start'], env: daemonEnv(ctx), logsDir: ctx.paths.logsDir }, ctx.env);
    ctx.emit('schedule-install', { ok: true, kind, file: res.target.file, activated: res.activated, commands: res.commands }, () => {
      ctx.print(`installed ${kind} ${kind === 'cron' ? 'entry' : 'service'}: ${res.target.file}`);
      if (res.activated) ctx.print(kind === 'cron' ? 'it starts the daemon at every boot; run `skillopt-sleep start` to start it now' : 'enabled and started');
      else if (res.commands.length) {
        ctx.print('to activate it, run:');
        for (const c of res.commands) ctx.print(`  ${c}`);
      }
    });
  });

  kindCommand(schedule, 'remove', 'disable and delete the service written by `schedule install`', (ctx, kind) => {
    const res = removeSupervisor(kind, ctx.env);
    ctx.emit('schedule-remove', { ok: true, kind, file: res.target.file, removed: res.removed }, () => {
      ctx.print(res.removed ? `removed ${kind} ${kind === 'cron' ? 'entry' : 'service'}: ${res.target.file}` : `no ${kind} service installed (${res.target.file})`);
      if (res.removed) ctx.print('the daemon keeps running until `skillopt-sleep stop`');
    });
  });

  kindCommand(schedule, 'show', 'print the installed service, if any', (ctx, kind) => {
    const res = showSupervisor(kind, ctx.env);
    ctx.emit('schedule-show', { ok: true, kind, file: res.target.file, installed: res.installed, content: res.content ?? null }, () => {
      if (!res.installed) {
        ctx.print(`no ${kind} service installed (${res.target.file}); \`skillopt-sleep schedule install\` writes one`);
        return;
      }
      ctx.print(`${kind}: ${res.target.file}`);
      ctx.print('');
      ctx.print(res.content ?? '');
    });
  });
}
