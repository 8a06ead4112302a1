/**
 * The command registry: one file per command under ./ ; add a line here to register a new one.
 * Each module is loaded only when it is needed (commands/load below): a command that prints one
 * line must not pay for the modules of every other command at start-up (issue 40; `npm run bench -- cli`).
 */
import type { Command } from 'commander';

export interface CommandModule {
  register(program: Command): void;
}

/** Top-level command names, in the order `--help` lists them, each with the module that registers it. */
export const COMMAND_LOADERS: ReadonlyArray<{ name: string; load: () => Promise<CommandModule> }> = [
  { name: 'paths', load: () => import('./paths.js') },
  { name: 'config', load: () => import('./config.js') },
  { name: 'doctor', load: () => import('./doctor.js') },
  { name: 'demo', load: () => import('./demo.js') },
  { name: 'proposals', load: () => import('./proposals.js') },
  { name: 'apply', load: () => import('./apply.js') },
  { name: 'reject', load: () => import('./reject.js') },
  { name: 'forget', load: () => import('./forget.js') },
  { name: 'revert', load: () => import('./revert.js') },
  { name: 'night', load: () => import('./night.js') },
  { name: 'review', load: () => import('./review.js') },
  { name: 'start', load: () => import('./start.js') },
  { name: 'stop', load: () => import('./stop.js') },
  { name: 'restart', load: () => import('./restart.js') },
  { name: 'status', load: () => import('./status.js') },
  { name: 'logs', load: () => import('./logs.js') },
  { name: 'schedule', load: () => import('./schedule.js') },
  { name: 'harvest', load: () => import('./harvest.js') },
  { name: 'sessions', load: () => import('./sessions.js') },
  { name: 'ledger', load: () => import('./ledger.js') },
  { name: 'train', load: () => import('./train.js') },
  { name: 'mine', load: () => import('./mine.js') },
  { name: 'tasks', load: () => import('./tasks.js') },
  { name: 'wipe', load: () => import('./wipe.js') },
  { name: 'export', load: () => import('./export.js') },
  { name: 'hooks', load: () => import('./hooks.js') },
  { name: 'uninstall', load: () => import('./uninstall.js') },
  { name: 'skills', load: () => import('./skills.js') },
  { name: 'history', load: () => import('./history.js') },
  { name: 'team', load: () => import('./team.js') },
];

/**
 * The modules to register: only the named command's when `name` is one (its own help and usage
 * errors need nothing else), every command's otherwise (the program's help, an unknown command's
 * suggestion), in registry order.
 */
export async function loadCommands(name?: string): Promise<CommandModule[]> {
  const one = COMMAND_LOADERS.find((c) => c.name === name);
  return Promise.all((one ? [one] : COMMAND_LOADERS).map((c) => c.load()));
}
