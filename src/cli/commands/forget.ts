/**
 * `forget EDIT`: un-bans a rejected edit so a later night may propose it again (the only way back
 * from a reject).
 */
import type { Command } from 'commander';
import { action } from '../run.js';
import { forgetRejectedEdit } from '../../proposals/forget.js';

export function register(program: Command): void {
  program
    .command('forget <edit>')
    .description('un-ban a rejected edit (its #hash or a unique prefix, or PROPOSAL:EDIT / EDIT as in `proposals show`) so it can be proposed again')
    .action(
      action((ctx, edit: string) => {
        const out = forgetRejectedEdit(ctx.db, edit);
        ctx.emit('forget', { ok: true, editHash: out.editHash, skillPath: out.skillPath, op: out.op, content: out.content, sources: out.sources }, () =>
          ctx.print(`forgot rejected edit #${out.editHash} (${out.op}: ${out.content.replace(/\s+/g, ' ').slice(0, 80)}) for ${out.skillPath}; a later night may propose it again`),
        );
      }),
    );
}
