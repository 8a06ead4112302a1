/**
 * The command registry: one file per command under ./ ; add a line here to register a new one.
 * Each module is loaded only when it is needed (commands/load below): a command that prints one
 * line must not pay for the modules of every other command at start-up (issue 40; `npm run bench -- cli`).
 */
import type { Command } from 'commander';

export interface CommandModule {
  register(program: Command): void;
}

/**
 * Top-level commands, in the order `--help` lists them, each with the module that registers it and
 * what the program's help shows of it (its term and description), so `skillopt-sleep --help` loads
 * no command module (cli/program.ts buildHelpProgram; a test holds these to what the modules register).
 */
export const COMMAND_LOADERS: ReadonlyArray<{ name: string; term: string; summary: string; load: () => Promise<CommandModule> }> = [
  { name: 'paths', term: 'paths', summary: 'print where config, state, database, logs, proposals and backups live', load: () => import('./paths.js') },
  { name: 'config', term: 'config', summary: 'show, read and change configuration (config.json; env vars override)', load: () => import('./config.js') },
  { name: 'doctor', term: 'doctor [options]', summary: 'check Node, config, database, agent transcript folders and backends; say what to fix', load: () => import('./doctor.js') },
  { name: 'demo', term: 'demo [options]', summary: 'try it without an API key: a sandbox with sample transcripts, a simulated night, then the review', load: () => import('./demo.js') },
  { name: 'proposals', term: 'proposals', summary: 'list and show staged skill proposals (decide with apply / reject / revert, or `review`)', load: () => import('./proposals.js') },
  { name: 'apply', term: 'apply [options] <id>', summary: 'write a proposal to the live skill file (atomic, with a backup; refuses if the file changed since)', load: () => import('./apply.js') },
  { name: 'reject', term: 'reject [options] <id>', summary: 'reject a proposal (staged, stale or superseded); its edits are not proposed again unless you `forget` them', load: () => import('./reject.js') },
  { name: 'forget', term: 'forget <edit>', summary: 'un-ban a rejected edit (its #hash or a unique prefix, or PROPOSAL:EDIT / EDIT as in `proposals show`) so it can be proposed again', load: () => import('./forget.js') },
  { name: 'revert', term: 'revert <id>', summary: 'put a skill file back exactly as it was before apply (refuses if you edited it since)', load: () => import('./revert.js') },
  { name: 'night', term: 'night [options]', summary: 'run one night now: harvest, mine, train your skills under the budget, stage proposals (never writes a live skill)', load: () => import('./night.js') },
  { name: 'review', term: 'review [options]', summary: 'review staged proposals in the terminal: diff, evidence, report; apply, reject, partial apply, edit, undo', load: () => import('./review.js') },
  { name: 'start', term: 'start [options]', summary: 'start the daemon: watch agent transcripts, ingest them, run the night on schedule (returns at once; --foreground stays)', load: () => import('./start.js') },
  { name: 'stop', term: 'stop [options]', summary: 'stop the daemon (in-flight work is aborted and checkpointed; it exits within 10 s)', load: () => import('./stop.js') },
  { name: 'restart', term: 'restart', summary: 'stop the daemon if it runs, then start it again (picks up config changes)', load: () => import('./restart.js') },
  { name: 'status', term: 'status', summary: 'daemon state, watched folders, what was ingested, last night, proposals waiting, next night', load: () => import('./status.js') },
  { name: 'logs', term: 'logs [options]', summary: 'print the daemon\'s log (logs/daemon.*.log), newest last', load: () => import('./logs.js') },
  { name: 'schedule', term: 'schedule', summary: 'keep the daemon running across logins and reboots (systemd user unit, launchd agent, or crontab @reboot)', load: () => import('./schedule.js') },
  { name: 'harvest', term: 'harvest [options]', summary: 'read new transcript lines of Claude Code, Codex and Copilot into the store (one pass)', load: () => import('./harvest.js') },
  { name: 'sessions', term: 'sessions', summary: 'inspect harvested sessions', load: () => import('./sessions.js') },
  { name: 'ledger', term: 'ledger [options]', summary: 'show what left this machine: one row per outbound model call, with totals per destination', load: () => import('./ledger.js') },
  { name: 'train', term: 'train [options]', summary: 'train a skill on your recurring tasks with the gated optimizer and stage the result as a proposal (never writes the live file)', load: () => import('./train.js') },
  { name: 'mine', term: 'mine [options]', summary: 'cluster recurring asks from harvested sessions into judged tasks (incremental)', load: () => import('./mine.js') },
  { name: 'tasks', term: 'tasks', summary: 'list, inspect, edit, enable/disable, export and import mined tasks', load: () => import('./tasks.js') },
  { name: 'wipe', term: 'wipe [options]', summary: 'delete what skillopt-sleep stored: everything (the state folder), or one project with --project; asks first', load: () => import('./wipe.js') },
  { name: 'export', term: 'export [options]', summary: 'write the store as JSONL (header line, then one {table, row} per line; redacted; ISO timestamps)', load: () => import('./export.js') },
  { name: 'hooks', term: 'hooks', summary: 'opt-in morning nudge: a session-start hook in your agents that says when proposals wait for review', load: () => import('./hooks.js') },
  { name: 'uninstall', term: 'uninstall [options]', summary: 'stop the daemon, remove its service units and the agent hooks, delete state and config; asks first', load: () => import('./uninstall.js') },
  { name: 'skills', term: 'skills [options]', summary: 'every skill and instruction file found, which agents read it, which tasks route to it, when it was last trained', load: () => import('./skills.js') },
  { name: 'history', term: 'history [options]', summary: 'what was applied when, the score it promised, and how the same jobs went in the sessions since (corrections before/after)', load: () => import('./history.js') },
  { name: 'team', term: 'team', summary: 'team mode: pool one repository\'s mined tasks with your team on a shared PostgreSQL (opt-in per repository; docs/TEAM.md)', load: () => import('./team.js') },
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
