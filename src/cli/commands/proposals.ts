import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { resolveProjectOption } from '../project.js';
import { action } from '../run.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../../core/errors.js';
import { ProposalStatus, type Proposal } from '../../core/records.js';
import { listProposals, listReceipts, requireProposal } from '../../store/repos/proposals.js';
import { fmtScore, noGainBanner } from '../../proposals/staging-report.js';
import { agentDisplayName } from '../../../adapters/index.js';
import { banLine, rejectedEditVerdicts } from '../../store/repos/rejected-edits.js';
import { editHash } from '../../skilldoc/edit-key.js';
import { lintEdit, type RiskFlag } from '../../proposals/risk-lint.js';
import { terminalSafe } from '../../core/terminal-text.js';
import { agentsInProject } from '../../store/repos/sessions.js';
import { paintDiffLine, type StyleName } from '../style.js';

export const agentsLabel = (ids: string[]): string => (ids.length ? ids.map(agentDisplayName).join(', ') : 'no agent detected');

/** One line per proposal for `proposals list`. */
export function proposalLine(p: Proposal): string {
  const accepted = p.edits.filter((e) => e.status === 'accepted').length;
  const test = p.testBefore !== null && p.testBefore !== undefined ? `  test ${fmtScore(p.testBefore)}→${fmtScore(p.testAfter)}` : '';
  const when = new Date(p.createdAt).toISOString().slice(0, 16).replace('T', ' ');
  // what was written, once applied: a partial apply says "1 of 2 edits" and the score its subset promised
  const a = (p.status === 'applied' || p.status === 'reverted') && p.applied ? p.applied : null;
  const val = a && !a.edited && a.editIds.length !== a.of ? `${fmtScore(p.baselineScore)}→${a.valAfter === null ? 'not re-scored' : fmtScore(a.valAfter)}` : `${fmtScore(p.baselineScore)}→${fmtScore(p.candidateScore)}`;
  const edits = a ? (a.edited ? 'your edited text' : a.editIds.length === a.of ? `${a.of} edit${a.of === 1 ? '' : 's'}` : `${a.editIds.length} of ${a.of} edits`) : `${accepted} edit${accepted === 1 ? '' : 's'}`;
  return `${p.id}  ${p.status.padEnd(10)} ${p.skillTarget.name}  val ${val}${test}  ${edits}  ${when}`;
}

const STATUS_PAINT: Record<string, StyleName> = { staged: 'cyan', applied: 'green', rejected: 'red', stale: 'magenta', reverted: 'yellow', superseded: 'dim' };

/** What the risk lint finds in what applying would write over the live file now (as `apply` checks it). */
function riskNow(p: Proposal): RiskFlag[] {
  if (p.status !== 'staged' && p.status !== 'stale') return [];
  let live = '';
  try {
    live = fs.readFileSync(p.skillTarget.path, 'utf8');
  } catch {
    /* a new file */
  }
  return lintEdit(live, p.candidate);
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
  const risk = riskNow(p);
  // agents used in the project that read none of the files this proposal writes
  const readers = new Set([...p.skillTarget.readBy, ...(p.skillTarget.mirrors ?? []).flatMap((m) => m.readBy)]);
  const missed = p.skillTarget.project ? agentsInProject(ctx.db, p.skillTarget.project).filter((a) => !readers.has(a)) : [];
  ctx.emit('proposal', { proposal: p, receipts, risk, noGain: noGainBanner({ before: p.testBefore, after: p.testAfter }), notReadBy: missed, files: { dir: p.dir, report: path.join(p.dir, 'report.md'), diff: path.join(p.dir, 'changes.diff') } }, () => {
    const paint = ctx.paint;
    const safe = (t: string) => terminalSafe(t);
    const noGain = noGainBanner({ before: p.testBefore, after: p.testAfter });
    if (noGain) ctx.print(paint.yellow(paint.bold(`⚠ ${noGain}`)));
    ctx.print(proposalLine(p).replace(` ${p.status.padEnd(10)} `, ` ${paint[STATUS_PAINT[p.status] ?? 'bold'](p.status.padEnd(10))} `));
    ctx.printWrapped('file:    ', p.skillTarget.path);
    ctx.printWrapped('read by: ', agentsLabel(p.skillTarget.readBy));
    // a managed skill in a project used with agents that read different folders: a copy for each
    for (const m of p.skillTarget.mirrors ?? []) {
      ctx.printWrapped('copy:    ', m.path);
      ctx.printWrapped('read by: ', agentsLabel(m.readBy));
    }
    if (missed.length) ctx.printWrapped('not read by: ', `${agentsLabel(missed)}, though you use ${missed.length === 1 ? 'it' : 'them'} in this project`, 'yellow');
    if (p.reason) ctx.printWrapped('reason:  ', safe(p.reason));
    if (risk.length) {
      ctx.print('');
      ctx.print(paint.red(paint.bold(`⚠ risk lint: ${risk.length} flagged line${risk.length === 1 ? '' : 's'}; \`skillopt-sleep apply ${p.id}\` refuses without --force-risky`)));
      for (const f of risk) {
        ctx.printWrapped(`  ${f.rule}: `, f.why, 'red');
        ctx.printWrapped('    ', `"${safe(f.line)}"`, 'yellow');
      }
    }
    ctx.print('');
    for (const e of p.edits) {
      const effect = e.effect !== undefined && e.effect !== null ? ` (effect ${e.effect >= 0 ? '+' : ''}${e.effect.toFixed(2)})` : '';
      const tone: StyleName = e.status === 'accepted' ? 'green' : e.status === 'rejected' ? 'red' : 'dim';
      // the whole edit, as it will be written, wrapped to the terminal: never cut
      ctx.print(`  ${paint[tone](`[${e.status}]`)} ${e.id} #${editHash(e)} ${e.op}${effect}:`);
      ctx.printWrapped('      ', safe(e.content));
      if (e.anchor && e.op !== 'add') ctx.printWrapped('      was: ', safe(e.anchor));
      if (e.rationale) ctx.printWrapped('      why: ', safe(e.rationale.replace(/\s+/g, ' ')));
      if (e.status === 'rejected') {
        // the strongest verdict first: the user's rejection, then a ban, then a demotion
        const rank = { user: 0, gate: 1, demoted: 2 } as const;
        const v = rejectedEditVerdicts(ctx.db, [p.skillTarget.path, `managed:${p.skillTarget.name}`], editHash(e)).sort((a, b) => rank[a.source] - rank[b.source])[0];
        if (v) ctx.printWrapped('      ', banLine(v));
      }
    }
    // each rule's outcome evidence: what the user kept, the command that worked (issue 41)
    if (p.ruleEvidence?.length) {
      ctx.print('');
      ctx.print(paint.bold('Rules and what you did:'));
      for (const r of p.ruleEvidence) {
        ctx.printWrapped('  rule: ', safe(r.rule));
        for (const item of r.evidence) ctx.printWrapped('    kept: ', safe(item.text), 'green');
      }
    }
    ctx.print('');
    for (const line of p.diff.trimEnd().split('\n')) ctx.print(paintDiffLine(safe(line), paint));
    for (const r of receipts) ctx.print(`${new Date(r.ts).toISOString()} ${r.action}${r.note ? ` (${safe(r.note)})` : ''}`);
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
        ctx.emit('proposals', { proposals: list.map(({ candidate: _c, diff: _d, ...rest }) => rest) }, () => {
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
