import path from 'node:path';
import type { Command } from 'commander';
import { projectOfCwd, resolveProjectOption } from '../project.js';
import { action } from '../run.js';
import type { CliContext } from '../context.js';
import { BackendName } from '../../core/config.js';
import { SleepError, UsageError } from '../../core/errors.js';
import { isSkillPathSpec, resolveSkillTarget } from '../../../adapters/skills-registry.js';
import { findRepoRoot } from '../../../adapters/skills-common.js';
import { runNight } from '../../night/night.js';
import { describeBudgetPlan, describeCliOverhead, type NightReport } from '../../night/report.js';
import { describeReplayWorkspaces } from '../../replay/index.js';
import { fmtScore } from '../../proposals/staging-report.js';
import { requestNightNow } from '../../daemon/ipc.js';

export interface NightCliOptions {
  dryRun?: boolean;
  project?: string;
  skill?: string;
  backend?: string;
  now?: boolean;
  team?: boolean;
  push?: string;
}

/** `night --team`: the team night of one opted-in repository, in this terminal (src/team/member-night.ts). */
async function teamNight(ctx: CliContext, opts: NightCliOptions): Promise<number> {
  if (opts.now || opts.dryRun || opts.skill || opts.backend) {
    throw new UsageError('--team runs the whole team night of one repository; it takes only --project and --push', 'drop --now, --dry-run, --skill and --backend (the team night trains every committed skill with the configured backends)');
  }
  const start = path.resolve(opts.project ?? process.cwd());
  const project = findRepoRoot(start);
  if (!project) throw new SleepError('INVALID_INPUT', `${start} is not inside a git repository`, { hint: 'a team night works on one opted-in repository: pass --project with its folder' });
  const { runTeamNightAsMember } = await import('../../team/member-night.js');
  const r = await runTeamNightAsMember(ctx, project, { pushRemote: opts.push, progress: ctx.progress() });
  ctx.emit('night-team', r, () => {
    ctx.print(`team night of ${project} on ${r.server}: ${r.status}${r.reason ? ` (${r.reason})` : ''}`);
    ctx.print(`pool: ${r.pool.tasks} task(s) from ${r.pool.members} member(s), ${r.pool.sessions} session(s); ${r.jobs.team} team job(s), ${r.jobs.personalLeftOut} left personal (seen from one member)`);
    for (const s of r.skills) {
      const val = s.val ? `, val ${fmtScore(s.val.before)} → ${fmtScore(s.val.after)}` : '';
      ctx.print(`  ${s.file}: ${s.status}${s.reason ? ` (${s.reason})` : ''}${val}${s.branch ? `; branch ${s.branch}${s.pushed ? ` pushed to ${s.pushed}` : ' (local, not pushed)'}` : ''}`);
    }
    for (const n of r.notes) ctx.print(`note: ${n}`);
    if (r.skills.some((s) => s.branch)) ctx.print('review it with `skillopt-sleep review`; applying a team proposal means merging its branch');
  });
  return r.status === 'failed' ? 1 : 0;
}

/**
 * `night --now`: instead of training in this terminal, ask the running daemon to start its night
 * immediately (same child process, same overlap guard, same log), wait for it and return its report.
 */
async function nightThroughDaemon(ctx: CliContext, opts: NightCliOptions): Promise<NightReport> {
  if (opts.dryRun || opts.project || opts.skill || opts.backend) {
    throw new SleepError('USAGE', '--now runs the daemon’s regular night; it cannot be combined with --dry-run, --project, --skill or --backend', {
      hint: 'drop --now to run a customised night in this terminal',
      exitCode: 2,
    });
  }
  const res = await requestNightNow(ctx, { wait: true, onUpdate: (l) => ctx.note(l) });
  if (!res.accepted) {
    throw new SleepError('BACKEND_UNAVAILABLE', `the daemon did not start a night: ${res.reason}`, {
      hint: '`skillopt-sleep status` shows the daemon; `skillopt-sleep doctor` says what is missing',
    });
  }
  const report = res.outcome?.report as NightReport | undefined;
  if (report && typeof report === 'object' && typeof report.id === 'string') return report;
  throw new SleepError('INTERNAL', `the night ${res.outcome?.status ?? 'ended'} without a report: ${res.reason}`, {
    hint: '`skillopt-sleep logs` shows the night process output',
  });
}

export function renderNightText(ctx: CliContext, r: NightReport, runsDir: string): void {
  ctx.print(r.summary);
  if (r.forecast) {
    ctx.print(
      `forecast: up to ${r.forecast.calls} calls (fewer with cache hits), ~${r.forecast.tokens} tokens, ~$${r.forecast.usd.toFixed(4)} (budget ${r.limits.maxCalls} calls, ${r.limits.maxTokens} tokens, $${r.limits.maxUsd}, done by ${r.limits.deadline})${r.forecast.fits ? '' : ` — exceeds the ${r.forecast.limitedBy} budget: the night will stop there`}`,
    );
    for (const [role, o] of Object.entries(r.forecast.cliOverhead ?? {})) ctx.print(`  ${describeCliOverhead(role, o)}`);
  }
  for (const line of describeBudgetPlan(r)) ctx.print(line);
  for (const i of r.items) {
    const tasks = `${i.tasks.train}/${i.tasks.val}/${i.tasks.test} train/val/test`;
    const val = i.val ? ` val ${fmtScore(i.val.before)} → ${fmtScore(i.val.after)}` : '';
    const test = i.test && i.test.before !== null ? ` test ${fmtScore(i.test.before)} → ${fmtScore(i.test.after)}` : '';
    ctx.print(`  ${i.target.name} (${i.target.path}): ${tasks}${val}${test} → ${i.status}${i.proposalId ? ` ${i.proposalId}` : ''}`);
    if (i.reason) ctx.print(`      ${i.reason}${i.needed ? `; needed: ${i.needed}` : ''}`);
    const where = i.replays ? describeReplayWorkspaces(i.replays) : '';
    if (where) ctx.print(`      ${where}`);
    if (r.dryRun) {
      const ids = [...i.tasks.ids.train, ...i.tasks.ids.val, ...i.tasks.ids.test];
      if (ids.length) ctx.print(`      tasks: ${ids.join(', ')}`);
    }
  }
  for (const n of r.notes) ctx.print(`note: ${n}`);
  for (const x of r.recovered) ctx.print(`recovered: ${x}`);
  if (!r.dryRun) ctx.print(`report: ${path.join(runsDir, r.id, 'night-report.md')}`);
  if (r.used.calls) ctx.print(`used: ${r.used.calls} calls, ${r.used.tokens} tokens, $${r.used.usd.toFixed(4)}`);
}

export function register(program: Command): void {
  program
    .command('night')
    .description('run one night now: harvest, mine, train your skills under the budget, stage proposals (never writes a live skill)')
    .option('--dry-run', 'print the plan fitted to the budget (what it cut, what waits for later nights), its forecast and the tasks it would use; no model calls, nothing staged')
    .option('--project <path>', 'only this project')
    .option('--skill <name|path>', 'only this skill (a name from your skill folders, or a path)')
    .option('--backend <name>', `use this backend for every role (${BackendName.options.join('|')})`)
    .option('--now', 'ask the running daemon to start its night immediately (waits for it and prints the report)')
    .option('--team', "run the team night of this repository (--project, or the current folder's) on the pooled tasks of every member; one per repository at a time (docs/TEAM-NIGHT.md)")
    .option('--push <remote>', 'with --team: push the proposal branch to this remote (never pushed otherwise)')
    .action(
    action(async (ctx, opts: NightCliOptions) => {
      if (opts.backend && !BackendName.safeParse(opts.backend).success) {
        throw new UsageError(`unknown backend "${opts.backend}"`, `use one of ${BackendName.options.join(', ')}`);
      }
      if (opts.team) return teamNight(ctx, opts);
      if (opts.push) throw new UsageError('--push goes with --team', 'a personal night never pushes anything; add --team to run the repository\'s team night');
      if (opts.now) {
        const delegated = await nightThroughDaemon(ctx, opts);
        ctx.emit('night', delegated, () => renderNightText(ctx, delegated, ctx.paths.runsDir));
        return delegated.status === 'failed' ? 1 : 0;
      }
      const project = opts.project ? resolveProjectOption(ctx.db, opts.project, { mustExist: true }) : undefined;
      // --skill without --project acts on the current directory's project, which must be a harvested one
      const skill = opts.skill
        ? resolveSkillTarget(opts.skill, { project: project ?? projectOfCwd(ctx.db), env: ctx.env })
        : undefined;
      const controller = new AbortController();
      const stop = () => {
        if (controller.signal.aborted) process.exit(130);
        ctx.note('stopping the night cleanly (press Ctrl-C again to quit at once)…');
        controller.abort();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      try {
        const report = await runNight(ctx.db, ctx.paths, ctx.config, {
          dryRun: opts.dryRun,
          project: project ?? skill?.project ?? undefined,
          skill,
          userSkillPath: skill && opts.skill && isSkillPathSpec(opts.skill) ? skill.path : undefined,
          backend: opts.backend as BackendName | undefined,
          env: ctx.env,
          signal: controller.signal,
          progress: ctx.progress(),
        });
        ctx.emit('night', report, () => renderNightText(ctx, report, ctx.paths.runsDir));
        return report.status === 'failed' ? 1 : 0;
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    }),
  );
}
