import path from 'node:path';
import type { Command } from 'commander';
import { action } from '../run.js';
import type { CliContext } from '../context.js';
import { BackendName } from '../../core/config.js';
import { UsageError } from '../../core/errors.js';
import { findRepoRoot } from '../../../adapters/skills-common.js';
import { resolveSkillTarget } from '../../../adapters/skills-registry.js';
import { runNight } from '../../night/night.js';
import type { NightReport } from '../../night/report.js';
import { fmtScore } from '../../proposals/staging-report.js';

export interface NightCliOptions {
  dryRun?: boolean;
  project?: string;
  skill?: string;
  backend?: string;
  [extra: string]: unknown;
}

/**
 * Extension points for the daemon (H7): `nightCommandExtensions` may add options to the command
 * (e.g. `--now`), and a delegate may handle the invocation instead of running the night in this
 * process (e.g. ask the running daemon to run it) by returning its report; `null` = not handled.
 */
export const nightCommandExtensions: Array<(cmd: Command) => void> = [];
export const nightDelegates: Array<(ctx: CliContext, opts: NightCliOptions) => Promise<NightReport | null>> = [];

export function renderNightText(ctx: CliContext, r: NightReport, runsDir: string): void {
  ctx.print(r.summary);
  if (r.forecast) {
    ctx.print(
      `forecast: up to ${r.forecast.calls} calls (fewer with cache hits), ~${r.forecast.tokens} tokens, ~$${r.forecast.usd.toFixed(4)} (budget ${r.limits.maxCalls} calls, ${r.limits.maxTokens} tokens, $${r.limits.maxUsd}, done by ${r.limits.deadline})${r.forecast.fits ? '' : ` — exceeds the ${r.forecast.limitedBy} budget: the night will stop there`}`,
    );
  }
  for (const i of r.items) {
    const tasks = `${i.tasks.train}/${i.tasks.val}/${i.tasks.test} train/val/test`;
    const val = i.val ? ` val ${fmtScore(i.val.before)} → ${fmtScore(i.val.after)}` : '';
    const test = i.test && i.test.before !== null ? ` test ${fmtScore(i.test.before)} → ${fmtScore(i.test.after)}` : '';
    ctx.print(`  ${i.target.name} (${i.target.path}): ${tasks}${val}${test} → ${i.status}${i.proposalId ? ` ${i.proposalId}` : ''}`);
    if (i.reason) ctx.print(`      ${i.reason}${i.needed ? `; needed: ${i.needed}` : ''}`);
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
  const cmd = program
    .command('night')
    .description('run one night now: harvest, mine, train your skills under the budget, stage proposals (never writes a live skill)')
    .option('--dry-run', 'print the budget forecast and the tasks it would use; no model calls, nothing staged')
    .option('--project <path>', 'only this project')
    .option('--skill <name|path>', 'only this skill (a name from your skill folders, or a path)')
    .option('--backend <name>', `use this backend for every role (${BackendName.options.join('|')})`);
  for (const ext of nightCommandExtensions) ext(cmd);
  cmd.action(
    action(async (ctx, opts: NightCliOptions) => {
      if (opts.backend && !BackendName.safeParse(opts.backend).success) {
        throw new UsageError(`unknown backend "${opts.backend}"`, `use one of ${BackendName.options.join(', ')}`);
      }
      for (const d of nightDelegates) {
        const delegated = await d(ctx, opts);
        if (delegated) {
          ctx.emit(delegated, () => renderNightText(ctx, delegated, ctx.paths.runsDir));
          return delegated.status === 'failed' ? 1 : 0;
        }
      }
      const project = opts.project ? path.resolve(opts.project) : undefined;
      const skill = opts.skill
        ? resolveSkillTarget(opts.skill, { project: project ?? findRepoRoot(process.cwd()) ?? process.cwd(), env: ctx.env })
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
          backend: opts.backend as BackendName | undefined,
          env: ctx.env,
          signal: controller.signal,
          progress: ctx.progress(),
        });
        ctx.emit(report, () => renderNightText(ctx, report, ctx.paths.runsDir));
        return report.status === 'failed' ? 1 : 0;
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    }),
  );
}
