/**
 * Reads the "why" of a proposal from the store and its folder: the tasks behind each edit (intent,
 * the user's prompts and corrections from task_occurrences), transcript excerpts for event refs,
 * the night's report (report.json / report.md), and the egress ledger summary.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db.js';
import type { Proposal, Split } from '../core/records.js';
import { getTask, listOccurrences } from '../store/repos/tasks.js';
import { listRuns } from '../store/repos/runs.js';
import { eventText } from '../store/repos/events.js';
import { listEgress, sumTotals, totalsByDestination } from '../llm/ledger.js';
import type { EvidenceBundle, Excerpt, LedgerSummary, ReportBundle, TaskEvidence } from './services.js';

const MAX_PROMPTS = 3;
const NIGHT_STILL_RUNNING_MS = 12 * 3600_000;

function stringsIn(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return v.map((x) => (typeof x === 'string' ? x : typeof x === 'object' && x && 'text' in x ? String((x as { text: unknown }).text) : '')).filter(Boolean);
}

export function loadTaskEvidence(db: Db, taskId: string): TaskEvidence | null {
  const task = getTask(db, taskId);
  if (!task) return null;
  const occ = listOccurrences(db, taskId);
  const corrections = new Set<string>(task.corrections);
  for (const o of occ) for (const c of stringsIn(o.outcome.corrections)) corrections.add(c);
  const prompts: Excerpt[] = occ
    .slice(-MAX_PROMPTS)
    .reverse()
    .map((o) => ({ sessionId: o.sessionId, seq: o.eventSeq, ts: o.ts, text: o.prompt }));
  return { id: task.id, intent: task.intent, split: task.split as Split, occurrences: Math.max(task.occurrences, occ.length), prompts, corrections: [...corrections] };
}

/** An evidence ref that is not a task id: `<session id>#<seq>` (or `:<seq>`) resolved to the event text. */
export function loadEventRef(db: Db, ref: string): Excerpt | null {
  const m = /^(.*)[#:@](\d+)$/.exec(ref);
  if (!m) return null;
  const row = eventText(db, m[1], Number(m[2]));
  return row ? { sessionId: m[1], seq: row.seq, ts: row.ts, text: row.text } : null;
}

/** The proposal's evidence log (`evidence.jsonl`, one JSON object per line); unreadable lines are skipped. */
export function readEvidenceLog(p: Proposal, maxBytes = 5_000_000): Array<Record<string, unknown>> {
  const text = readText(path.join(p.dir, 'evidence.jsonl'), maxBytes);
  if (!text) return [];
  const out: Array<Record<string, unknown>> = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === 'object') out.push(v as Record<string, unknown>);
    } catch {
      /* a truncated last line */
    }
  }
  return out;
}

export function loadEvidence(db: Db, p: Proposal): EvidenceBundle {
  const ids = new Set<string>([...p.perTask.map((t) => t.taskId), ...p.edits.flatMap((e) => e.evidence)]);
  const tasks: EvidenceBundle['tasks'] = {};
  const refs: EvidenceBundle['refs'] = {};
  for (const id of ids) {
    const t = loadTaskEvidence(db, id);
    if (t) {
      tasks[id] = t;
      continue;
    }
    const x = loadEventRef(db, id);
    if (x) refs[id] = x;
  }
  // the night's plan line lists the corrections it trained on, per task
  for (const entry of readEvidenceLog(p)) {
    if (entry.stage !== 'plan' || !Array.isArray(entry.corrections)) continue;
    for (const c of entry.corrections as Array<{ taskId?: unknown; correction?: unknown }>) {
      const t = typeof c.taskId === 'string' ? tasks[c.taskId] : undefined;
      if (t && typeof c.correction === 'string' && !t.corrections.includes(c.correction)) t.corrections.push(c.correction);
    }
  }
  return { tasks, refs };
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function readText(file: string, max = 200_000): string | null {
  try {
    const t = fs.readFileSync(file, 'utf8');
    return t.length > max ? t.slice(0, max) + '\n… (truncated)' : t;
  } catch {
    return null;
  }
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** report.json (schema skillopt-sleep.proposal.v1) as facts and notes; report.md as text. */
export function loadReport(p: Proposal): ReportBundle {
  const r = readJson(path.join(p.dir, 'report.json'));
  const facts: ReportBundle['facts'] = [];
  const notes: string[] = [];
  if (r) {
    const gate = (r.gate ?? {}) as Record<string, unknown>;
    const trials = Array.isArray(gate.trials) ? gate.trials.length : 0;
    if ('accepted' in gate) facts.push({ label: 'gate', value: `${gate.accepted ? 'passed' : 'did not pass'}${trials ? ` after ${trials} trial(s)` : ''}` });
    const budget = r.budget as Record<string, unknown> | null | undefined;
    if (budget) {
      const usd = num(budget.usd);
      facts.push({ label: 'spent', value: `${num(budget.calls) ?? 0} calls, ${num(budget.tokens) ?? 0} tokens, $${(usd ?? 0).toFixed(4)}` });
      const limits = budget.limits as Record<string, unknown> | undefined;
      if (limits && typeof limits === 'object') {
        facts.push({ label: 'budget', value: Object.entries(limits).map(([k, v]) => `${k} ${String(v)}`).join(', ') });
      }
    }
    const backends = r.backends as Record<string, { backend?: string; model?: string }> | undefined;
    if (backends && typeof backends === 'object') {
      for (const [role, b] of Object.entries(backends)) facts.push({ label: role, value: `${b?.backend ?? '?'}${b?.model ? ` / ${b.model}` : ''}` });
    }
    if (typeof r.editScope === 'string') facts.push({ label: 'edit scope', value: r.editScope === 'document' ? 'whole document' : 'learned region only' });
    if (typeof r.runId === 'string') facts.push({ label: 'run', value: `${r.runId}${typeof r.nightId === 'string' ? ` (night ${r.nightId})` : ''}` });
    for (const n of stringsIn(r.notes)) notes.push(n);
  }
  const log = readEvidenceLog(p);
  const steps = log.filter((e) => e.stage === 'step').length;
  const epochs = log.filter((e) => e.stage === 'epoch').length;
  if (steps || epochs) facts.push({ label: 'training', value: `${steps} step(s), ${epochs} epoch(s)` });
  const plan = log.find((e) => e.stage === 'plan');
  if (plan && typeof plan.routedBy === 'string') facts.push({ label: 'tasks routed by', value: plan.routedBy });
  return { facts, notes, markdown: readText(path.join(p.dir, 'report.md')) };
}

/**
 * What left the machine "last night": the ledger rows of the most recent night run, counted by
 * run: the night's own calls (mining) and those of the training runs it started (each skill trains
 * in a run of its own, tagged with that run's id). A time window would count every other call since
 * (a re-score in review, a manual `train`) as the night's. With no night on record: the last 24 h.
 */
export function loadLedgerSummary(db: Db, now: number): LedgerSummary {
  let night: ReturnType<typeof listRuns>[number] | undefined;
  try {
    night = listRuns(db, { kind: 'night', limit: 1 })[0];
  } catch {
    /* no runs table contents yet */
  }
  const rows = night ? listEgress(db, { runIds: nightRunIds(db, night, now) }) : listEgress(db, { sinceMs: now - 24 * 3600_000 });
  const destinations = totalsByDestination(rows);
  const { calls, failed, bytesSent, costUsd, tokensIn, tokensOut } = sumTotals(destinations);
  return {
    window: night ? 'night' : '24h',
    since: night ? night.startedAt : now - 24 * 3600_000,
    // a night still marked running long after it started died without closing its run: not "now"
    running: night ? night.status === 'running' && now - night.startedAt < NIGHT_STILL_RUNNING_MS : undefined,
    calls,
    failed,
    bytesSent,
    costUsd,
    tokensIn,
    tokensOut,
    destinations,
  };
}

/**
 * The night's run id and its training runs': those its report names (items[].trainRunId), and any
 * train run started while it ran (a skill whose training failed leaves no id in the report).
 */
function nightRunIds(db: Db, night: ReturnType<typeof listRuns>[number], now: number): string[] {
  const ids = new Set<string>([night.id]);
  const items = (night.record as { items?: Array<{ trainRunId?: unknown }> }).items;
  if (Array.isArray(items)) for (const it of items) if (typeof it?.trainRunId === 'string') ids.add(it.trainRunId);
  const end = night.endedAt ?? now;
  for (const r of listRuns(db, { kind: 'train', limit: 500 })) if (r.startedAt >= night.startedAt && r.startedAt <= end) ids.add(r.id);
  return [...ids];
}
