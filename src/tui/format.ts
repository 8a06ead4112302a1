/**
 * Pure formatting for the review screens: scores, deltas, agents, paths, times, the egress summary.
 */
import os from 'node:os';
import type { AgentId, Proposal } from '../core/records.js';
import type { LedgerSummary } from './services.js';
import { AGENT_IDS, agentDisplayName, agentShortName } from '../../adapters/index.js';

export function agentName(a: AgentId): string {
  return agentDisplayName(a);
}

/**
 * Who reads what a proposal writes: the file's readers (readBy when known, else the owning agent)
 * and those of the copies a managed skill gets for agents that read another folder.
 */
export function readersOf(p: Proposal): AgentId[] {
  const own = p.skillTarget.readBy.length > 0 ? p.skillTarget.readBy : p.skillTarget.agent ? [p.skillTarget.agent] : [];
  const all = new Set<AgentId>([...own, ...(p.skillTarget.mirrors ?? []).flatMap((m) => m.readBy)]);
  return AGENT_IDS.filter((a) => all.has(a));
}

/** One line per file a proposal writes and who reads it: the file, then each copy. */
export function readersByFile(p: Proposal): Array<{ path: string; readers: string; copy: boolean }> {
  const own = p.skillTarget.readBy.length > 0 ? p.skillTarget.readBy : p.skillTarget.agent ? [p.skillTarget.agent] : [];
  const label = (ids: readonly AgentId[]) => (ids.length ? ids.map(agentName).join(', ') : 'no agent detected');
  return [{ path: p.skillTarget.path, readers: label(own), copy: false }, ...(p.skillTarget.mirrors ?? []).map((m) => ({ path: m.path, readers: label(m.readBy), copy: true }))];
}

export function readersLabel(p: Proposal, short = false): string {
  const r = readersOf(p);
  if (r.length === 0) return 'shared';
  if (short) return r.map(agentShortName).join(',');
  return r.map(agentName).join(', ');
}

export function score(n: number | null | undefined): string {
  return n === null || n === undefined || Number.isNaN(n) ? '–' : n.toFixed(2);
}

export function scoreChange(before: number | null | undefined, after: number | null | undefined): string {
  if (before === null || before === undefined || after === null || after === undefined) return '–';
  return `${score(before)}→${score(after)}`;
}

export function signed(n: number | null | undefined, digits = 2): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '–';
  const s = n.toFixed(digits);
  return n > 0 ? `+${s}` : s;
}

export function deltaTone(before: number | null | undefined, after: number | null | undefined): 'up' | 'down' | 'flat' {
  if (before === null || before === undefined || after === null || after === undefined) return 'flat';
  if (after > before + 1e-9) return 'up';
  if (after < before - 1e-9) return 'down';
  return 'flat';
}

export function homeRelative(p: string | null | undefined, home = os.homedir()): string {
  if (!p) return '–';
  if (home && (p === home || p.startsWith(home + '/'))) return '~' + p.slice(home.length);
  return p;
}

export function projectLabel(p: Proposal): string {
  const project = p.skillTarget.project;
  if (!project) return 'personal';
  const parts = project.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? project;
}

/** "tonight 03:00", "Tue 03:00", or a date, relative to `now`. */
export function whenLabel(at: Date, now: Date): string {
  const hhmm = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
  const dayMs = 24 * 3600 * 1000;
  const startOf = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round((startOf(at) - startOf(now)) / dayMs);
  if (days === 0) return `today ${hhmm}`;
  if (days === 1) return `tomorrow ${hhmm}`;
  if (days > 1 && days < 7) return `${at.toLocaleDateString('en-US', { weekday: 'short' })} ${hhmm}`;
  return `${at.toISOString().slice(0, 10)} ${hhmm}`;
}

/** The night a proposal came from, as a short date ("11-28 03:12"), or how long ago. */
export function nightLabel(createdAt: number, now: number): string {
  const d = new Date(createdAt);
  const ageH = (now - createdAt) / 3600_000;
  if (ageH >= 0 && ageH < 1) return `${Math.max(1, Math.round(ageH * 60))}m ago`;
  if (ageH >= 0 && ageH < 20) return `${Math.round(ageH)}h ago`;
  const mm = String(d.getMonth() + 1).padStart(2, '0');
  const dd = String(d.getDate()).padStart(2, '0');
  return `${mm}-${dd} ${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function usd(n: number): string {
  if (n === 0) return '$0';
  return n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`;
}

/** Which night a ledger summary describes: "last night", "tonight's night so far", or its date when older. */
export function ledgerWindowLabel(s: LedgerSummary, now = Date.now()): string {
  if (s.window !== 'night') return 'in the last 24 h';
  if (s.running) return 'during the night running now';
  const ageH = (now - s.since) / 3600_000;
  if (ageH >= 0 && ageH < 30) return 'last night';
  const d = new Date(s.since);
  return `during the last night (${d.toISOString().slice(0, 10)})`;
}

/** The one-line "what left your machine" summary. */
export function ledgerLine(s: LedgerSummary, now = Date.now()): string {
  const window = ledgerWindowLabel(s, now);
  if (s.calls === 0) return `What left this machine ${window}: nothing (0 model calls).`;
  const dests = s.destinations
    .slice(0, 3)
    .map((d) => `${d.destination} ×${d.calls}`)
    .join(', ');
  const more = s.destinations.length > 3 ? ` +${s.destinations.length - 3} more` : '';
  const failed = s.failed > 0 ? `, ${s.failed} failed` : '';
  return `What left this machine ${window}: ${s.calls} calls (${dests}${more}${failed}), ${bytes(s.bytesSent)} sent, ${usd(s.costUsd)} API cost.`;
}

export function editsLabel(p: Proposal): string {
  return String(p.edits.filter((e) => e.status === 'accepted').length);
}
