/**
 * The report every night leaves (`runs/<id>/night-report.{json,md}` and the `runs` row): what was
 * harvested and mined, the forecast, what each target did and why, what was staged, what it cost.
 * A night that stages nothing says exactly why and what is needed.
 */
import path from 'node:path';
import type { AgentId } from '../core/records.js';
import { fmtScore, sanitizeLine } from '../proposals/staging-report.js';
import { describeReplayWorkspaces, type ReplayWorkspaceSummary } from '../replay/index.js';
import type { CallOverhead } from '../llm/ledger.js';
import type { ItemShape, Limit } from './fit.js';

export type NightStatus = 'done' | 'nothing_staged' | 'failed' | 'aborted' | 'dry_run';
/** `planned`: what a dry run would train (nothing ran) */
export type ItemStatus = 'staged' | 'applied' | 'not_improved' | 'skipped' | 'failed' | 'stopped' | 'planned';

export interface NightItemReport {
  target: { name: string; path: string; kind: string; readBy: AgentId[] };
  project: string | null;
  routedBy: string;
  tasks: { train: number; val: number; test: number; ids: { train: string[]; val: string[]; test: string[] } };
  status: ItemStatus;
  reason?: string;
  needed?: string;
  trainRunId?: string;
  stoppedBy?: string;
  val?: { before: number; after: number };
  test?: { before: number | null; after: number | null };
  /**
   * The sealed audit slice (mine/splits.ts auditSlice): test tasks left out of `test`, of the
   * proposal and of autoApply tonight, scored only here (before = the starting skill, after = the
   * staged one; null when nothing was staged or there was no such task)
   */
  audit?: { slot: number; ids: string[]; before: number | null; after: number | null };
  edits?: { accepted: number; rejected: number; unmatched: number };
  /**
   * The judge's sanity audit before training (replay/judge-audit.ts): fresh re-grades of replies
   * it graded, and its grades against the tasks' own rule checks. `failed`: nothing was trained
   * or staged for this skill, `reason` says why
   */
  judgeAudit?: { verdict: 'passed' | 'failed' | 'skipped'; sampled: number; repeat: { pairs: number; disagreements: number }; rules: { pairs: number; disagreements: number }; maxDisagreement: number };
  proposalId?: string;
  autoApplied?: boolean;
  /** where this skill's replays ran: the commit each started from, reused workspaces, empty ones and why */
  replays?: ReplayWorkspaceSummary;
}

export interface NightReport {
  schema: 'skillopt-sleep.night.v1';
  id: string;
  status: NightStatus;
  dryRun: boolean;
  startedAt: string;
  endedAt: string | null;
  project: string | null;
  deadline: string | null;
  backends: Record<string, { backend: string; model: string; destination: string }> | null;
  harvest: Record<string, unknown> | { error: string } | null;
  mining: Record<string, unknown> | { error: string } | null;
  forecast: {
    calls: number;
    tokens: number;
    usd: number;
    fits: boolean;
    limitedBy?: string;
    callsThatFit: number;
    /** agent-CLI roles: the per-call overhead the forecast counted, measured in the ledger or assumed */
    cliOverhead?: Partial<Record<'target' | 'optimizer', CallOverhead>>;
  } | null;
  /**
   * The plan fitted to the budget before the first call (fit.ts): what the mined plan wanted, what
   * fits, the shape each trained skill got (`wanted` → `planned`: epochs and train/val/test tasks)
   * and the skills left for later nights. null when nothing was planned.
   */
  budgetPlan?: {
    wanted: { calls: number; tokens: number; usd: number };
    planned: { calls: number; tokens: number; usd: number };
    limitedBy: Limit | null;
    trained: Array<{ target: string; path: string; wanted: ItemShape; planned: ItemShape; forecast: { calls: number; tokens: number; usd: number } }>;
    deferred: Array<{ target: string; path: string; tasks: number; reason: string }>;
    stopBeforeSpending: string | null;
  } | null;
  limits: { maxUsd: number; maxTokens: number; maxCalls: number; maxTasks: number; deadline: string };
  used: { usd: number; tokens: number; calls: number };
  /**
   * The night's model calls as the infrastructure guard counted them (logical calls, after
   * retries; cache hits count as calls that worked): more than `maxFailedShare` failed, or all of
   * them, and the night is `failed`. null until the night ends (and on a dry run: none are made).
   */
  modelCalls?: { calls: number; failed: number; byRole: Record<string, { calls: number; failed: number }>; maxFailedShare: number } | null;
  items: NightItemReport[];
  /** tasks set aside before planning: their project is not on disk or never had a harvested session (orphans.ts) */
  orphaned?: Array<{ project: string; tasks: string[]; reason: string }>;
  proposals: string[];
  /** the one-line verdict: what happened, or why nothing was staged and what is needed */
  summary: string;
  notes: string[];
  recovered: string[];
}

export function summarizeNight(r: Pick<NightReport, 'items' | 'proposals' | 'dryRun' | 'status' | 'orphaned'>): string {
  if (r.dryRun) {
    const n = r.items.filter((i) => i.status !== 'skipped').length;
    return `dry run: would train ${n} skill${n === 1 ? '' : 's'}; nothing was called or staged`;
  }
  if (r.proposals.length) return `staged ${r.proposals.length} proposal${r.proposals.length === 1 ? '' : 's'}: review with \`skillopt-sleep review\``;
  if (r.items.length === 0 && r.orphaned?.length) {
    return `nothing staged: every task belongs to a project that can take no proposal (${r.orphaned.map((o) => `${o.project}: ${o.reason}`).join('; ')}); see the notes`;
  }
  if (r.items.length === 0) return 'nothing staged: no recurring tasks yet (keep using your agents; tasks appear once a request recurs)';
  const reasons = r.items.map((i) => `${i.target.name}${whereOf(i)}: ${i.reason ?? i.status}`);
  return `nothing staged: ${reasons.join('; ')}`;
}

const pct = (n: number | null | undefined) => fmtScore(n);

/**
 * Which skill an item is, for a person: every project's managed skill has the same name, so a
 * reason ("thin night …") names the project it is about, or says it is the personal one.
 */
function whereOf(i: Pick<NightItemReport, 'routedBy' | 'project'>): string {
  if (i.routedBy === 'personal') return ' (personal: recurs across projects)';
  return i.project ? ` (${sanitizeLine(path.basename(i.project), 60)})` : '';
}

/** "12 sessions, 3 recurringTasks" from a summary object, numbers only (the JSON has the rest). */
function describeCounts(o: Record<string, unknown>, keys: string[]): string {
  const words: Record<string, string> = { filesChanged: 'changed files', recurringTasks: 'recurring tasks', newTasks: 'new tasks', updatedTasks: 'updated tasks' };
  const parts = keys.filter((k) => typeof o[k] === 'number').map((k) => `${o[k] as number} ${words[k] ?? k}`);
  const errors = Array.isArray(o.errors) ? o.errors.length : 0;
  if (errors) parts.push(`${errors} file error(s)`);
  return parts.join(', ') || 'done';
}

/** "target CLI overhead counted: ~13500 tokens per call (measured on its last 42 calls)". */
export function describeCliOverhead(role: string, o: CallOverhead): string {
  const cost = o.usdPerCall > 0 ? `, $${o.usdPerCall.toFixed(4)} per call` : '';
  return `${role} CLI overhead counted: ~${o.tokens} tokens per call${cost} (${o.source === 'measured' ? `measured on its last ${o.calls} calls` : 'built-in figure: no calls measured yet'})`;
}

const shapeText = (s: ItemShape) => `${s.train}/${s.val}/${s.test} tasks, ${s.epochs === 0 ? 'no training steps (the start draft through the gate)' : `${s.epochs} epoch${s.epochs === 1 ? '' : 's'}`}`;

/** The budget fit in lines: what the mined plan wanted, what was cut and what waits for later nights. */
export function describeBudgetPlan(r: Pick<NightReport, 'budgetPlan'>): string[] {
  const p = r.budgetPlan;
  if (!p || (!p.limitedBy && p.deferred.length === 0)) return [];
  const lines = [`budget plan: the mined plan wanted ~${p.wanted.calls} calls and ~${p.wanted.tokens} tokens; it was cut to ~${p.planned.calls} calls and ~${p.planned.tokens} tokens to fit the ${p.limitedBy ?? 'night\'s'} budget`];
  for (const t of p.trained) {
    const w = t.wanted;
    const q = t.planned;
    if (w.epochs !== q.epochs || w.train !== q.train || w.val !== q.val || w.test !== q.test) lines.push(`  cut ${sanitizeLine(t.target, 60)}: ${shapeText(w)} → ${shapeText(q)} (train/val/test); the tasks left out wait for later nights`);
  }
  for (const d of p.deferred) lines.push(`  left for later nights: ${sanitizeLine(d.target, 60)} (${d.tasks} tasks)`);
  if (p.stopBeforeSpending) lines.push(`  stopped before spending: ${sanitizeLine(p.stopBeforeSpending, 600)}`);
  return lines;
}

export function renderNightReport(r: NightReport): string {
  const lines: string[] = [];
  lines.push(`# Night ${r.id}${r.dryRun ? ' (dry run)' : ''}`, '');
  lines.push(`**${sanitizeLine(r.summary, 1000)}**`, '');
  lines.push(`- status: ${r.status}`);
  lines.push(`- started: ${r.startedAt}${r.endedAt ? `, ended: ${r.endedAt}` : ''}${r.deadline ? `, deadline: ${r.deadline}` : ''}`);
  if (r.project) lines.push(`- project: \`${r.project}\``);
  if (r.backends) lines.push(`- backends: ${Object.entries(r.backends).map(([role, b]) => `${role} ${b.backend}/${b.model} → ${b.destination}`).join(', ')}`);
  if (r.harvest) lines.push(`- harvest: ${'error' in r.harvest ? `failed: ${sanitizeLine(String(r.harvest.error))}` : describeCounts(r.harvest, ['files', 'filesChanged', 'sessions', 'prompts', 'redactions'])}`);
  if (r.mining) lines.push(`- mining: ${'error' in r.mining ? `failed: ${sanitizeLine(String(r.mining.error))}` : describeCounts(r.mining, ['sessions', 'recurringTasks', 'newTasks', 'updatedTasks'])}`);
  const l = r.limits;
  lines.push(`- budget: $${l.maxUsd}, ${l.maxTokens} tokens, ${l.maxCalls} calls, ${l.maxTasks} tasks, done by ${l.deadline}`);
  if (r.forecast) {
    lines.push(
      `- forecast: up to ${r.forecast.calls} calls, ~${r.forecast.tokens} tokens, ~$${r.forecast.usd.toFixed(4)}${r.forecast.fits ? ' (fits)' : ` (exceeds the ${r.forecast.limitedBy} budget after ${r.forecast.callsThatFit} calls: the night stops there and stages only what passed the gate)`}`,
    );
    for (const [role, o] of Object.entries(r.forecast.cliOverhead ?? {})) lines.push(`  - ${describeCliOverhead(role, o)}`);
  }
  for (const line of describeBudgetPlan(r)) lines.push(`- ${line}`);
  lines.push(`- used: ${r.used.calls} calls, ${r.used.tokens} tokens, $${r.used.usd.toFixed(4)}`);
  if (r.modelCalls?.failed) lines.push(`- failed model calls: ${r.modelCalls.failed} of ${r.modelCalls.calls} (a night allows ${Math.round(r.modelCalls.maxFailedShare * 100)}%)`);
  lines.push('');
  if (r.items.length) {
    lines.push('## Skills', '', '| Skill | Read by | Tasks (train/val/test) | Validation | Test | Result |', '|---|---|---|---|---|---|');
    for (const i of r.items) {
      const val = i.val ? `${pct(i.val.before)} → ${pct(i.val.after)}` : '—';
      const test = i.test ? `${pct(i.test.before)} → ${pct(i.test.after)}` : '—';
      const result = i.proposalId ? `${i.status} (${i.proposalId})` : i.status;
      lines.push(`| ${sanitizeLine(i.target.name, 60)}${whereOf(i)} | ${i.target.readBy.join(', ') || '—'} | ${i.tasks.train}/${i.tasks.val}/${i.tasks.test} | ${val} | ${test} | ${result} |`);
    }
    lines.push('');
    for (const i of r.items.filter((x) => x.reason)) {
      lines.push(`- **${sanitizeLine(i.target.name, 60)}**${whereOf(i)}: ${sanitizeLine(i.reason!, 600)}${i.needed ? `. Needed: ${sanitizeLine(i.needed, 600)}` : ''}`);
    }
    for (const i of r.items.filter((x) => x.judgeAudit && x.judgeAudit.verdict !== 'skipped')) {
      const a = i.judgeAudit!;
      lines.push(`- **${sanitizeLine(i.target.name, 60)}**${whereOf(i)} judge audit: ${a.verdict} (fresh re-grades: ${a.repeat.disagreements} of ${a.repeat.pairs} disagreed; against rule checks: ${a.rules.disagreements} of ${a.rules.pairs}; allowed ${Math.round(a.maxDisagreement * 100)}%)`);
    }
    for (const i of r.items) {
      const where = i.replays ? describeReplayWorkspaces(i.replays) : '';
      if (where) lines.push(`- **${sanitizeLine(i.target.name, 60)}** ${sanitizeLine(where, 800)}`);
    }
    lines.push('');
  }
  if (r.recovered.length) {
    lines.push('## Recovered from an earlier interruption', '');
    for (const x of r.recovered) lines.push(`- ${sanitizeLine(x, 600)}`);
    lines.push('');
  }
  if (r.notes.length) {
    lines.push('## Notes', '');
    for (const n of r.notes) lines.push(`- ${sanitizeLine(n, 600)}`);
    lines.push('');
  }
  return lines.join('\n');
}
