import type { Command } from 'commander';
import { action } from '../run.js';
import { revertProposal } from '../../proposals/apply.js';
import { recoverAndReport } from './apply.js';

export function register(program: Command): void {
  program
    .command('revert <id>')
    .description('put a skill file back exactly as it was before apply (refuses if you edited it since)')
    .action(
      action((ctx, id: string) => {
        recoverAndReport(ctx);
        const out = revertProposal(ctx.db, ctx.paths, id, { env: ctx.env });
        ctx.emit('revert', { ok: true, id: out.proposal.id, path: out.path, restored: out.restored, copies: out.copies, removedDirs: out.removedDirs }, () => {
          ctx.print(out.restored === 'removed' ? `reverted ${out.proposal.id}: removed ${out.path} (it did not exist before)` : `reverted ${out.proposal.id}: ${out.path} is back to its previous content`);
          for (const c of out.copies) ctx.print(`copy:    ${c.path} ${c.outcome}`);
          for (const d of out.removedDirs) ctx.print(`removed: ${d}/ (apply had created it)`);
        });
      }),
    );
}
