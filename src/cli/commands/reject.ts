import type { Command } from 'commander';
import { action } from '../run.js';
import { rejectProposal } from '../../proposals/apply.js';

export function register(program: Command): void {
  program
    .command('reject <id>')
    .description('reject a staged proposal; its edits are remembered and not proposed again')
    .option('--reason <text>', 'why (kept with the rejected edits)')
    .action(
      action((ctx, id: string, opts: { reason?: string }) => {
        const p = rejectProposal(ctx.db, ctx.paths, id, opts.reason);
        const n = p.edits.filter((e) => e.status === 'accepted').length;
        ctx.emit({ ok: true, id: p.id, status: p.status, reason: p.reason ?? null, rememberedEdits: n }, () =>
          ctx.print(`rejected ${p.id}; ${n} edit${n === 1 ? '' : 's'} will not be proposed again for ${p.skillTarget.name}`),
        );
      }),
    );
}
