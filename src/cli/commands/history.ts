/**
 * `history [--project P] [--limit N]`: what was learned over time and whether it helped. For each
 * applied (or since reverted) proposal: when, the file, the score it promised (validation and
 * test, before → after), and how the same jobs — the recurring asks it was trained on — went in
 * the sessions before and after the apply: asks, corrections per ask, and which corrections came
 * back after (the same words again: the rule did not take).
 */
import type { Command } from 'commander';
import { action } from '../run.js';
import type { CliContext } from '../context.js';
import { iso } from '../json-shape.js';
import { resolveProjectOption } from '../project.js';
import { fmtScore } from '../../proposals/staging-report.js';
import type { Outcome } from '../../mine/outcome.js';
import { correctionsOf } from '../../mine/outcome.js';
import { listProposals, listReceipts } from '../../store/repos/proposals.js';
import { getTask, getTaskClusterId } from '../../store/repos/tasks.js';
import type { Proposal } from '../../core/records.js';
import { clusterMemberRows } from '../../store/repos/mining.js';

interface Period {
  asks: number;
  corrections: number;
  /** corrections per ask (null: no ask in the period) */
  perAsk: number | null;
}

export interface JobHistory {
  family: string;
  example: string;
  before: Period;
  after: Period & { repeated: string[] };
}

export interface HistoryEntry {
  proposalId: string;
  skill: { name: string; path: string; project: string | null };
  status: string;
  appliedAt: string | null;
  revertedAt: string | null;
  /** what the text written promised: a partial apply's `val.after` is its re-scored subset's (null: never re-scored) */
  promised: { val: { before: number; after: number | null }; test: { before: number | null; after: number | null } };
  /** edits written to the file */
  edits: number;
  /** the accepted edits of the proposal (edits < editsOf: a partial apply) */
  editsOf: number;
  /** ids of the edits written */
  editIds: string[];
  /** the user edited the text before it was written */
  edited: boolean;
  jobs: JobHistory[];
  /** one line: fewer corrections, the same ones again, or not enough sessions since */
  verdict: string;
}

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();

function period(asks: number, corrections: number): Period {
  return { asks, corrections, perAsk: asks ? Math.round((corrections / asks) * 100) / 100 : null };
}

function jobsOf(ctx: CliContext, taskIds: string[], appliedAt: number, until: number | null): JobHistory[] {
  const families = new Set<string>();
  for (const id of taskIds) {
    const fam = getTask(ctx.db, id)?.family ?? getTaskClusterId(ctx.db, id);
    if (fam) families.add(fam);
  }
  const out: JobHistory[] = [];
  for (const family of families) {
    const members = clusterMemberRows(ctx.db, family, 100_000);
    if (!members.length) continue;
    let asksBefore = 0;
    let corrBefore = 0;
    let asksAfter = 0;
    let corrAfter = 0;
    const seenBefore = new Set<string>();
    const repeated = new Set<string>();
    // oldest first, so "repeated" compares with what was said before the apply
    for (const m of [...members].reverse()) {
      if (m.ts === null) continue;
      let outcome: Outcome;
      try {
        outcome = JSON.parse(m.outcome) as Outcome;
      } catch {
        continue;
      }
      const said = correctionsOf({ ...outcome, reactions: outcome.reactions ?? [] });
      if (m.ts < appliedAt) {
        asksBefore++;
        corrBefore += said.length;
        for (const c of said) seenBefore.add(norm(c));
      } else if (until === null || m.ts < until) {
        asksAfter++;
        corrAfter += said.length;
        for (const c of said) if (seenBefore.has(norm(c))) repeated.add(c);
      }
    }
    out.push({ family, example: members[0]!.prompt.replace(/\s+/g, ' ').slice(0, 100), before: period(asksBefore, corrBefore), after: { ...period(asksAfter, corrAfter), repeated: [...repeated] } });
  }
  return out;
}

function verdictOf(jobs: JobHistory[]): string {
  const after = jobs.reduce((n, j) => n + j.after.asks, 0);
  if (!jobs.length) return 'no mined job to follow (its tasks are gone)';
  if (!after) return 'no session has asked for these jobs since';
  const before = jobs.reduce((n, j) => n + j.before.asks, 0);
  const rate = (k: 'before' | 'after') => jobs.reduce((n, j) => n + j[k].corrections, 0) / Math.max(1, k === 'before' ? before : after);
  const repeated = jobs.flatMap((j) => j.after.repeated);
  const b = rate('before');
  const a = rate('after');
  const trend = a < b ? `fewer corrections (${b.toFixed(2)} → ${a.toFixed(2)} per ask)` : a > b ? `more corrections (${b.toFixed(2)} → ${a.toFixed(2)} per ask)` : `as many corrections as before (${a.toFixed(2)} per ask)`;
  return `${after} ask${after === 1 ? '' : 's'} since: ${trend}${repeated.length ? `; the same correction${repeated.length === 1 ? '' : 's'} again: ${repeated.map((r) => `"${r.slice(0, 60)}"`).join(', ')}` : ''}`;
}

/**
 * What the apply wrote and what that text promised, from the proposal's `applied` record (older
 * proposals without it: the whole proposal, the only kind of apply they recorded truthfully). The
 * held-out test score was measured for all edits only: a partial or edited text promises none.
 */
function writtenOf(p: Proposal): Pick<HistoryEntry, 'promised' | 'edits' | 'editsOf' | 'editIds' | 'edited'> {
  const accepted = p.edits.filter((e) => e.status === 'accepted').map((e) => e.id);
  const a = p.applied ?? { editIds: accepted, of: accepted.length, valAfter: p.candidateScore };
  const whole = !a.edited && a.editIds.length === a.of;
  return {
    promised: { val: { before: p.baselineScore, after: a.valAfter }, test: whole ? { before: p.testBefore ?? null, after: p.testAfter ?? null } : { before: null, after: null } },
    edits: a.editIds.length,
    editsOf: a.of,
    editIds: a.editIds,
    edited: a.edited === true,
  };
}

/** "2 edits", "1 of 2 edits", "your edited text" */
export function editsWritten(e: { edits: number; editsOf: number; edited: boolean }): string {
  if (e.edited) return 'your edited text';
  return e.edits === e.editsOf ? `${e.edits} edit${e.edits === 1 ? '' : 's'}` : `${e.edits} of ${e.editsOf} edits`;
}

export function buildHistory(ctx: CliContext, opts: { project?: string; limit?: number }): HistoryEntry[] {
  const proposals = listProposals(ctx.db, { status: ['applied', 'reverted'], ...(opts.project ? { project: opts.project } : {}) });
  const entries: HistoryEntry[] = [];
  for (const p of proposals.slice(0, opts.limit ?? 50)) {
    const receipts = listReceipts(ctx.db, p.id);
    const applied = receipts.filter((r) => r.action === 'apply').at(-1)?.ts ?? p.decidedAt ?? p.createdAt;
    const reverted = p.status === 'reverted' ? (receipts.filter((r) => r.action === 'revert').at(-1)?.ts ?? p.decidedAt ?? null) : null;
    const jobs = jobsOf(ctx, [...new Set(p.perTask.map((t) => t.taskId))], applied, reverted);
    entries.push({
      proposalId: p.id,
      skill: { name: p.skillTarget.name, path: p.skillTarget.path, project: p.skillTarget.project ?? null },
      status: p.status,
      appliedAt: iso(applied),
      revertedAt: iso(reverted),
      ...writtenOf(p),
      jobs,
      verdict: verdictOf(jobs),
    });
  }
  return entries;
}

export function register(program: Command): void {
  program
    .command('history')
    .description('what was applied when, the score it promised, and how the same jobs went in the sessions since (corrections before/after)')
    .option('--project <p>', 'only proposals for this project (path or folder name)')
    .option('--limit <n>', 'at most N proposals, newest first', '50')
    .action(
      action((ctx, opts: { project?: string; limit: string }) => {
        const project = opts.project ? resolveProjectOption(ctx.db, opts.project, { mustExist: true }) : undefined;
        const entries = buildHistory(ctx, { project, limit: Math.max(1, Number(opts.limit) || 50) });
        ctx.emit('history', { project: project ?? null, entries }, () => {
          if (!entries.length) {
            ctx.print('nothing applied yet: `skillopt-sleep review` shows the proposals waiting');
            return;
          }
          for (const e of entries) {
            const test = e.promised.test.before !== null ? `, test ${fmtScore(e.promised.test.before)} → ${fmtScore(e.promised.test.after)}` : '';
            ctx.print(`${e.appliedAt?.slice(0, 16).replace('T', ' ')} UTC  ${e.status === 'reverted' ? `applied, reverted ${e.revertedAt?.slice(0, 16).replace('T', ' ')} UTC` : 'applied'}  ${e.skill.name}  (${e.proposalId})`);
            ctx.print(`  file      ${e.skill.path}`);
            const val = e.promised.val.after === null ? `${fmtScore(e.promised.val.before)} → not re-scored` : `${fmtScore(e.promised.val.before)} → ${fmtScore(e.promised.val.after)}`;
            ctx.print(`  promised  validation ${val}${test}, ${editsWritten(e)}`);
            for (const j of e.jobs) {
              const per = (p: Period) => (p.perAsk === null ? 'no ask' : `${p.asks} ask${p.asks === 1 ? '' : 's'}, ${p.corrections} correction${p.corrections === 1 ? '' : 's'}`);
              ctx.print(`  job       "${j.example}"  before: ${per(j.before)}  since: ${per(j.after)}`);
            }
            ctx.print(`  since     ${e.verdict}`);
          }
        });
      }),
    );
}
