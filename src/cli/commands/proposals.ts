import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { resolveProjectOption } from '../project.js';
import { action } from '../run.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../../core/errors.js';
import { ProposalStatus, type Proposal } from '../../core/records.js';
import { listProposals, listReceipts, requireProposal } from '../../store/repos/proposals.js';
import { fmtScore } from '../../proposals/staging-report.js';
import { agentDisplayName } from '../../../adapters/index.js';
import { banLine, rejectedEditVerdicts } from '../../store/repos/rejected-edits.js';
import { editHash } from '../../trainer/buffer.js';

export const agentsLabel = (ids: string[]): string => (ids.length ? ids.map(agentDisplayName).join(', ') : 'no agent detected');

/** One line per proposal for `proposals list`. */
export function proposalLine(p: Proposal): string {
  const accepted = p.edits.filter((e) => e.status === 'accepted').length;
  const test = p.testBefore !== null && p.testBefore !== undefined ? `  test ${fmtScore(p.testBefore)}→${fmtScore(p.testAfter)}` : '';
  const when = new Date(p.createdAt).toISOString().slice(0, 16).replace('T', ' ');
  return `${p.id}  ${p.status.padEnd(10)} ${p.skillTarget.name}  val ${fmtScore(p.baselineScore)}→${fmtScore(p.candidateScore)}${test}  ${accepted} edit${accepted === 1 ? '' : 's'}  ${when}`;
}

function show(ctx: CliContext, id: string): void {
  const p = requireProposal(ctx.db, id);
  const receipts = listReceipts(ctx.db, p.id);
  let reportMd: string | null = null;
  try {
    reportMd = fs.readFileSync(path.join(p.dir, 'report.md'), 'utf8');
  } catch {
    /* folder removed: the record still has everything that matters */
  }
  ctx.emit({ proposal: p, receipts, files: { dir: p.dir, report: path.join(p.dir, 'report.md'), diff: path.join(p.dir, 'changes.diff') } }, () => {
    ctx.print(proposalLine(p));
    ctx.print(`file:    ${p.skillTarget.path}`);
    ctx.print(`read by: ${agentsLabel(p.skillTarget.readBy)}`);
    if (p.reason) ctx.print(`reason:  ${p.reason}`);
    ctx.print('');
    for (const e of p.edits) {
      const effect = e.effect !== undefined && e.effect !== null ? ` (effect ${e.effect >= 0 ? '+' : ''}${e.effect.toFixed(2)})` : '';
      ctx.print(`  [${e.status}] ${e.id} #${editHash(e)} ${e.op}: ${e.content.replace(/\s+/g, ' ').slice(0, 100)}${effect}`);
      if (e.rationale) ctx.print(`      why: ${e.rationale.replace(/\s+/g, ' ').slice(0, 140)}`);
      if (e.status === 'rejected') {
        // the strongest verdict first: the user's rejection, then a ban, then a demotion
        const rank = { user: 0, gate: 1, demoted: 2 } as const;
        const v = rejectedEditVerdicts(ctx.db, [p.skillTarget.path, `managed:${p.skillTarget.name}`], editHash(e)).sort((a, b) => rank[a.source] - rank[b.source])[0];
        if (v) ctx.print(`      ${banLine(v)}`);
      }
    }
    ctx.print('');
    ctx.print(p.diff.trimEnd());
    for (const r of receipts) ctx.print(`${new Date(r.ts).toISOString()} ${r.action}${r.note ? ` (${r.note})` : ''}`);
    if (reportMd) ctx.print(`\nfull report: ${path.join(p.dir, 'report.md')}`);
  });
}

export function register(program: Command): void {
  const cmd = program.command('proposals').description('list and show staged skill proposals (decide with apply / reject / revert, or `review`)');
  cmd
    .command('list', { isDefault: true })
    .description('list proposals, newest first')
    .option('--status <status>', `only this status (${ProposalStatus.options.join('|')})`)
    .option('--project <path>', 'only proposals for this project')
    .action(
      action((ctx, opts: { status?: string; project?: string }) => {
        if (opts.status && !ProposalStatus.safeParse(opts.status).success) {
          throw new UsageError(`unknown status "${opts.status}"`, `use one of ${ProposalStatus.options.join(', ')}`);
        }
        const list = listProposals(ctx.db, { status: opts.status as ProposalStatus | undefined, project: opts.project ? resolveProjectOption(ctx.db, opts.project, { mustExist: true }) : undefined });
        ctx.emit({ proposals: list.map(({ candidate: _c, diff: _d, ...rest }) => rest) }, () => {
          if (list.length === 0) ctx.print('no proposals yet: a night stages them (`skillopt-sleep night`, or wait for the scheduled one)');
          for (const p of list) ctx.print(proposalLine(p));
        });
      }),
    );
  cmd
    .command('show <id>')
    .description('show one proposal: scores, edits with their ids and reasons, the diff, decisions')
    .action(action((ctx, id: string) => show(ctx, id)));
}
