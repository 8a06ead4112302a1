/**
 * `wipe [--project P]`: forget what the store holds — everything (the database, proposals, runs,
 * backups, logs, workspaces: the whole state folder), or one project's sessions, tasks and
 * proposals. Asks first (numbered), `--yes` for scripts. Your skill files and your agents'
 * transcripts are never touched; the config file stays.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { action } from '../run.js';
import type { CliContext } from '../context.js';
import { assertDeletableFolder, confirm } from '../confirm.js';
import { resolveProjectOption } from '../project.js';
import { SleepError } from '../../core/errors.js';
import { getPath, loadConfig, setConfigValue } from '../../core/config.js';
import { liveDaemon, stopDaemon } from '../../daemon/lifecycle.js';
import { projectCounts, tableCounts, wipeProject } from '../../store/repos/privacy.js';

interface WipeOptions {
  project?: string;
  yes?: boolean;
  exclude?: boolean;
}

/** A path strictly inside `dir` (a proposal folder recorded in the db is removed only from our state). */
function inside(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return !!rel && !rel.startsWith('..') && !path.isAbsolute(rel);
}

async function wipeEverything(ctx: CliContext, yes: boolean | undefined): Promise<number> {
  const state = ctx.paths.stateDir;
  assertDeletableFolder(state, ctx.env);
  const counts = fs.existsSync(ctx.paths.database) ? tableCounts(ctx.db) : null;
  const daemon = liveDaemon(ctx.paths);
  const what = counts ? `${counts.sessions} sessions, ${counts.events} events, ${counts.tasks} tasks, ${counts.proposals} proposals, ${counts.runs} runs` : 'no database yet';
  const question = [
    `Delete everything skillopt-sleep stored (${what}) — the whole folder ${state}: database, proposals, runs, backups of applied skills (revert will no longer be possible), logs?`,
    daemon ? `The daemon (pid ${daemon.pid}) is stopped first.` : null,
    `Your skill files, your agents' transcripts and ${ctx.paths.configFile} are not touched.`,
  ]
    .filter(Boolean)
    .join('\n');
  if (!(await confirm(ctx, question, yes))) {
    ctx.note('nothing deleted');
    return 1;
  }
  let stopped: number | null = null;
  if (daemon) {
    const res = await stopDaemon(ctx.paths, ctx.db, { force: true, by: '`skillopt-sleep wipe`' });
    if (res.stillRunning) throw new SleepError('INTERNAL', `the daemon (pid ${daemon.pid}) did not stop; nothing deleted`, { hint: '`skillopt-sleep stop --force`, then run wipe again' });
    stopped = daemon.pid;
  }
  ctx.close();
  fs.rmSync(state, { recursive: true, force: true });
  if (fs.existsSync(state)) throw new SleepError('INTERNAL', `could not delete ${state}`, { hint: 'check its permissions' });
  ctx.emit('wipe', { ok: true, scope: 'all', stateDir: state, deleted: counts ?? {}, daemonStopped: stopped, configKept: ctx.paths.configFile }, () => {
    ctx.print(`deleted ${state}${counts ? ` (${what})` : ''}`);
    if (stopped) ctx.print(`stopped the daemon (pid ${stopped}); \`skillopt-sleep start\` starts it again on an empty store`);
    ctx.print(`kept ${ctx.paths.configFile}; your agents' transcripts are still in their folders, so the next harvest stores them again (\`skillopt-sleep uninstall\` removes the tool itself)`);
  });
  return 0;
}

async function wipeOneProject(ctx: CliContext, value: string, opts: WipeOptions): Promise<number> {
  if (!fs.existsSync(ctx.paths.database)) throw new SleepError('NOT_FOUND', 'nothing is stored yet', { hint: 'there is nothing to wipe' });
  const project = resolveProjectOption(ctx.db, value, { mustExist: true });
  const before = projectCounts(ctx.db, project);
  const question = [
    `Delete what skillopt-sleep stored about ${project} (${before.sessions} sessions, ${before.tasks} tasks, ${before.proposals} proposals, the edits banned for its files) and clear the response cache?`,
    opts.exclude ? `It is also added to privacy.excludeProjects, so its sessions are never stored again.` : `New work there is harvested again; add --exclude to stop that (privacy.excludeProjects).`,
    `Applied skill files stay as they are.`,
  ].join('\n');
  if (!(await confirm(ctx, question, opts.yes))) {
    ctx.note('nothing deleted');
    return 1;
  }
  if (opts.exclude) {
    const current = (getPath(loadConfig(ctx.paths, {}).fileValues, 'privacy.excludeProjects') as string[] | undefined) ?? [];
    if (!current.includes(project)) setConfigValue(ctx.paths, 'privacy.excludeProjects', JSON.stringify([...current, project]));
  }
  const { counts, proposalDirs } = wipeProject(ctx.db, project);
  let dirsRemoved = 0;
  for (const d of proposalDirs) {
    if (!inside(ctx.paths.proposalsDir, d)) continue;
    fs.rmSync(d, { recursive: true, force: true });
    dirsRemoved++;
  }
  ctx.emit('wipe', { ok: true, scope: 'project', project, deleted: { ...counts, proposalDirs: dirsRemoved }, excluded: !!opts.exclude }, () => {
    ctx.print(`deleted from the store for ${project}: ${counts.sessions} sessions (${counts.events} events), ${counts.tasks} tasks, ${counts.proposals} proposals, ${counts.rejectedEdits} banned edits; response cache cleared (${counts.responseCache} entries)`);
    ctx.print(
      opts.exclude
        ? `added ${project} to privacy.excludeProjects: its sessions are not stored from now on (restart the daemon if it runs: \`skillopt-sleep restart\`)`
        : `what was read is not read again; new sessions there are harvested as usual — \`skillopt-sleep wipe --project ${value} --exclude\` stops that`,
    );
  });
  return 0;
}

export function register(program: Command): void {
  program
    .command('wipe')
    .description('delete what skillopt-sleep stored: everything (the state folder), or one project with --project; asks first')
    .option('--project <p>', 'only this project (path or folder name): its sessions, tasks, proposals and banned edits')
    .option('--exclude', 'with --project: also add it to privacy.excludeProjects so it is never stored again')
    .option('-y, --yes', 'do not ask')
    .action(
      action(async (ctx, opts: WipeOptions) => {
        if (opts.exclude && !opts.project) throw new SleepError('USAGE', '--exclude needs --project', { exitCode: 2 });
        return opts.project ? wipeOneProject(ctx, opts.project, opts) : wipeEverything(ctx, opts.yes);
      }),
    );
}
