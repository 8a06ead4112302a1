/**
 * The proposal list as data: which columns fit the terminal width, each row's cells, and the
 * search filter. Pure, so narrow terminals and filtering are unit-tested without rendering.
 */
import type { Proposal, ProposalStatus } from '../core/records.js';
import { editsLabel, nightLabel, projectLabel, readersLabel, scoreChange } from './format.js';
import { oneLine } from './text.js';

export interface ListItem {
  proposal: Proposal;
  /** the status shown: a staged proposal whose live file changed since its base shows 'stale' */
  status: ProposalStatus;
  /** the risk lint flags lines this proposal would write (a red ! before the name) */
  risky?: boolean;
  /** a team proposal's branch (issue 42): the row reads `team <skill>` */
  team?: string;
}

export type ColumnId = 'skill' | 'readers' | 'project' | 'night' | 'val' | 'test' | 'edits' | 'status';

export interface Column {
  id: ColumnId;
  title: string;
  width: number;
}

// Columns in the order they are dropped from the right when the terminal is narrow (last = first to go).
const FIXED: Array<{ id: ColumnId; title: string; width: number; priority: number }> = [
  { id: 'readers', title: 'READ BY', width: 20, priority: 5 },
  { id: 'project', title: 'PROJECT', width: 14, priority: 4 },
  { id: 'night', title: 'NIGHT', width: 11, priority: 6 },
  { id: 'val', title: 'VALIDATION', width: 10, priority: 1 },
  { id: 'test', title: 'TEST', width: 10, priority: 3 },
  { id: 'edits', title: 'EDITS', width: 5, priority: 2 },
  { id: 'status', title: 'STATUS', width: 8, priority: 0 },
];
const MARKER = 2;
const GAP = 1;
const MIN_SKILL = 12;

/** Columns that fit `width`: the skill name takes what is left after the fixed columns that fit. */
export function listColumns(width: number): Column[] {
  const chosen = [...FIXED].sort((a, b) => a.priority - b.priority);
  let fixed = chosen;
  const need = (cols: typeof FIXED) => MARKER + MIN_SKILL + cols.reduce((n, c) => n + c.width + GAP, 0);
  while (fixed.length > 0 && need(fixed) > width) fixed = fixed.slice(0, -1);
  const keep = new Set(fixed.map((c) => c.id));
  const ordered = FIXED.filter((c) => keep.has(c.id));
  const used = MARKER + ordered.reduce((n, c) => n + c.width + GAP, 0);
  const skillWidth = Math.max(MIN_SKILL, Math.min(32, width - used - 1));
  return [{ id: 'skill', title: 'SKILL', width: skillWidth }, ...ordered.map(({ id, title, width: w }) => ({ id, title, width: w }))];
}

export function cellText(item: ListItem, id: ColumnId, now: number): string {
  const p = item.proposal;
  switch (id) {
    case 'skill':
      return oneLine(item.team ? `team ${p.skillTarget.name}` : p.skillTarget.name);
    case 'readers':
      return readersLabel(p, true);
    case 'project':
      return oneLine(projectLabel(p));
    case 'night':
      return nightLabel(p.createdAt, now);
    case 'val':
      return scoreChange(p.baselineScore, p.candidateScore);
    case 'test':
      return scoreChange(p.testBefore, p.testAfter);
    case 'edits':
      return editsLabel(p);
    case 'status':
      return item.status;
  }
}

export function sortNewestFirst(ps: Proposal[]): Proposal[] {
  return [...ps].sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id));
}

/** Case-insensitive match of every word of the query against the proposal's visible fields. */
export function matchesQuery(item: ListItem, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const p = item.proposal;
  const hay = [
    p.id,
    p.skillTarget.name,
    p.skillTarget.path,
    p.skillTarget.project ?? '',
    readersLabel(p),
    readersLabel(p, true),
    item.status,
    ...(item.team ? ['team', item.team] : []),
    ...p.edits.map((e) => e.rationale),
  ]
    .join('\n')
    .toLowerCase();
  return words.every((w) => hay.includes(w));
}

export function isPending(status: ProposalStatus): boolean {
  return status === 'staged' || status === 'stale';
}
