import type { Command } from 'commander';
import { action } from '../run.js';
import { rejectProposal } from '../../proposals/apply.js';

export function register(program: Command): void {
  program
    .command('reject <id>')
    .description('reject a proposal (staged, stale or superseded); its edits are not proposed again unless you `forget` them')
    .option('--reason <text>', 'why (kept with the rejected edits)')
    .action(
      action((ctx, id: string, opts: { reason?: string }) => {
        const p = rejectProposal(ctx.db, ctx.paths, id, opts.reason);
        const n = p.rememberedEdits;
        ctx.emit('reject', { ok: true, id: p.id, status: p.status, reason: p.reason ?? null, rememberedEdits: n }, () =>
          ctx.print(`rejected ${p.id}; ${n} edit${n === 1 ? '' : 's'} will not be proposed again for ${p.skillTarget.name} (\`skillopt-sleep forget EDIT\` lifts that)`),
        );
      }),
    );
}
