/**
 * `skillopt-sleep review [--id ID]`: the morning review TUI. Interactive only: without a terminal
 * (a pipe, CI, --json) it refuses and points at the scriptable commands.
 */
import type { Command } from 'commander';
import { action } from '../run.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../../core/errors.js';
import { requireProposal } from '../../store/repos/proposals.js';
import { recoverInterrupted } from '../../proposals/recover.js';
import { liveDaemon } from '../../daemon/lifecycle.js';
import { readHealth } from '../../daemon/health.js';

/** Why the daemon skips its nights (no backend found), from its last heartbeat; undefined when it has one. */
function nightsSkipped(ctx: CliContext): string | undefined {
  const backend = readHealth(ctx.db)?.backend;
  return backend && !backend.name ? `no backend (${backend.detail})` : undefined;
}

export function register(program: Command): void {
  program
    .command('review')
    .description('review staged proposals in the terminal: diff, evidence, report; apply, reject, partial apply, edit, undo')
    .option('--id <id>', 'open this proposal directly (an id or a unique prefix)')
    .action(
      action(async (ctx, opts: { id?: string }) => {
        if (ctx.json || !process.stdin.isTTY || !process.stdout.isTTY) {
          throw new UsageError(
            'review is interactive and needs a terminal (stdin and stdout must be a TTY)',
            'use `skillopt-sleep proposals list`, `proposals show ID`, then `apply ID` (or `apply ID --only EDIT_IDS`) / `reject ID --reason TEXT`',
          );
        }
        // finish or roll back an apply a crash interrupted before showing any state
        const recovery = recoverInterrupted(ctx.db, ctx.paths, ctx.env);
        for (const a of recovery.actions) ctx.note(`recovered: ${a}`);
        for (const u of recovery.unresolved) ctx.note(`warning: ${u}`);
        const initialId = opts.id ? requireProposal(ctx.db, opts.id).id : undefined;
        const { db, paths, config, env } = ctx;
        // React and Ink load only for this command, in production mode: the development build
        // renders several times slower and no other command should pay for loading them
        process.env.NODE_ENV ??= 'production';
        // before Ink and chalk are first imported: they read CI / NO_COLOR / FORCE_COLOR once
        const { prepareReviewEnv } = await import('../../tui/terminal-env.js');
        prepareReviewEnv(process.env);
        const { runReview } = await import('../../tui/run.js');
        const { createStoreServices } = await import('../../tui/store-services.js');
        await runReview((suspend) => createStoreServices({ db, paths, config, env, suspend, daemonRunning: () => liveDaemon(paths) !== undefined, nightsSkipped: () => nightsSkipped(ctx) }), { initialId });
      }),
    );
}
