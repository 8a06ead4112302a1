import type { Command } from 'commander';
import { action } from '../run.js';
import type { CliContext } from '../context.js';
import { applyProposal } from '../../proposals/apply.js';
import { recoverInterrupted } from '../../proposals/recover.js';
import { agentsLabel } from './proposals.js';
import { contentForEdits } from '../../proposals/partial.js';
import { fmtScore } from '../../proposals/staging-report.js';
import { requireProposal } from '../../store/repos/proposals.js';
import { cachedScore } from '../../tui/rescore.js';

/**
 * The validation score of exactly these edits, when training already scored that text on every
 * validation task (the rollout cache); null otherwise. Recorded with the apply: never a guess.
 */
function cachedSubsetScore(ctx: CliContext, id: string, editIds: string[]): number | null {
  const p = requireProposal(ctx.db, id);
  const valIds = p.perTask.filter((t) => t.split === 'val').map((t) => t.taskId);
  return cachedScore(ctx.db, contentForEdits(p, editIds), valIds, ctx.config.training.gateMetric);
}

/** Finishes or cleans up decisions a crash interrupted, and says what it did. */
export function recoverAndReport(ctx: CliContext): { actions: string[]; unresolved: string[] } {
  const r = recoverInterrupted(ctx.db, ctx.paths, ctx.env);
  for (const a of r.actions) ctx.note(`recovered: ${a}`);
  for (const u of r.unresolved) ctx.note(`warning: ${u}`);
  return r;
}

export function register(program: Command): void {
  program
    .command('apply <id>')
    .description('write a proposal to the live skill file (atomic, with a backup; refuses if the file changed since)')
    .option('--force', 'apply even if the live file changed since the proposal was trained (a backup is kept)')
    .option('--force-risky', 'apply even though the risk lint flagged the edit (read the flagged lines first)')
    .option('--only <editIds>', 'apply only these accepted edits (comma-separated ids from `proposals show`)')
    .action(
      action((ctx, id: string, opts: { force?: boolean; forceRisky?: boolean; only?: string }) => {
        const recovery = recoverAndReport(ctx);
        const editIds = opts.only
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const promisedScore = editIds?.length ? cachedSubsetScore(ctx, id, editIds) : undefined;
        const out = applyProposal(ctx.db, ctx.paths, id, { force: opts.force, forceRisky: opts.forceRisky, editIds, env: ctx.env, promisedScore });
        const applied = out.proposal.applied ?? null;
        ctx.emit('apply', { ok: true, id: out.proposal.id, path: out.path, backup: out.beforeHash ? out.backupPath : null, beforeHash: out.beforeHash, afterHash: out.afterHash, readBy: out.readBy, copies: out.copies, forced: out.forced, partial: out.partial, applied, recovered: recovery.actions }, () => {
          ctx.print(`applied ${out.proposal.id}${out.partial ? ` (only ${editIds!.join(', ')})` : ''} to ${out.path}`);
          if (out.partial && applied) {
            ctx.print(
              applied.valAfter === null
                ? `score:   ${applied.editIds.length} of ${applied.of} edits were never scored together (\`skillopt-sleep review\` re-scores a selection before it applies it)`
                : `score:   validation ${fmtScore(out.proposal.baselineScore)} → ${fmtScore(applied.valAfter)} with these ${applied.editIds.length} of ${applied.of} edits (from the rollout cache)`,
            );
          }
          // a managed skill in a project used with agents that read different folders gets a copy for each
          for (const c of out.copies) ctx.print(`copy:    ${c.path} (${c.outcome}; for ${agentsLabel(c.readBy)})`);
          ctx.print(`read by: ${agentsLabel(out.readBy)}`);
          ctx.print(out.beforeHash ? `backup:  ${out.backupPath}` : 'backup:  none needed (the file did not exist before)');
          ctx.print(`undo:    skillopt-sleep revert ${out.proposal.id}`);
        });
      }),
    );
}
