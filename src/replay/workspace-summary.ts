/**
 * What a set of rollouts says about their workspaces, for the night report: which commit they
 * started from (and why the others were empty), how many reused a workspace reset to that commit,
 * whether the agent loaded the skill on its own, how often it changed files, and how the outcome
 * command went. Pure; `addReplayWorkspace` lets a meter tally rollouts as they come.
 */
import type { Rollout } from '../core/records.js';

export interface ReplayWorkspaceSummary {
  rollouts: number;
  /** rollouts that ran in an agent-CLI workspace at all */
  withWorkspace: number;
  seeded: number;
  /** seeded rollouts by the commit they started from: `<commit 12> on <ref>` → count */
  commits: Record<string, number>;
  /** of `seeded`: a workspace of an earlier replay of the same commit, reset instead of checked out */
  reused: number;
  /** why the other workspaces were empty, with counts */
  emptyBecause: Record<string, number>;
  /** notes on seeded workspaces (a branch that is gone, so HEAD was used), with counts */
  notes: Record<string, number>;
  /** native delivery: rollouts where the agent loaded the skill / did not */
  skillLoaded: number;
  skillNotLoaded: number;
  changedFiles: number;
  outcome: { ran: number; passed: number; timedOut: number };
}

export function emptyReplayWorkspaceSummary(): ReplayWorkspaceSummary {
  return {
    rollouts: 0,
    withWorkspace: 0,
    seeded: 0,
    commits: {},
    reused: 0,
    emptyBecause: {},
    notes: {},
    skillLoaded: 0,
    skillNotLoaded: 0,
    changedFiles: 0,
    outcome: { ran: 0, passed: 0, timedOut: 0 },
  };
}

const bump = (m: Record<string, number>, k: string): void => {
  m[k] = (m[k] ?? 0) + 1;
};

/** Adds one rollout to a summary (in place). */
export function addReplayWorkspace(s: ReplayWorkspaceSummary, r: Rollout): void {
  s.rollouts++;
  const w = r.workspace;
  if (!w) return;
  s.withWorkspace++;
  if (w.seeded) {
    s.seeded++;
    bump(s.commits, `${(w.commit ?? 'unknown').slice(0, 12)}${w.ref ? ` on ${w.ref.replace(/^refs\/heads\//, '')}` : ''}`);
    if (w.reused) s.reused++;
    if (w.reason) bump(s.notes, w.reason);
  } else bump(s.emptyBecause, w.reason ?? 'unknown');
  if (w.skillLoaded === true) s.skillLoaded++;
  if (w.skillLoaded === false) s.skillNotLoaded++;
  if (w.changedFiles.length > 0) s.changedFiles++;
  if (w.outcome) {
    s.outcome.ran++;
    if (w.outcome.exitCode === 0 && !w.outcome.timedOut) s.outcome.passed++;
    if (w.outcome.timedOut) s.outcome.timedOut++;
  }
}

export function summarizeReplayWorkspaces(rollouts: Rollout[]): ReplayWorkspaceSummary {
  const s = emptyReplayWorkspaceSummary();
  for (const r of rollouts) addReplayWorkspace(s, r);
  return s;
}

/** One line for the night report, or '' when no rollout ran in a workspace. */
export function describeReplayWorkspaces(s: ReplayWorkspaceSummary): string {
  if (s.withWorkspace === 0) return '';
  const commits = Object.entries(s.commits);
  const at = commits.length ? ` at ${commits.map(([c, n]) => (commits.length > 1 ? `${c} (${n})` : c)).join(', ')}` : '';
  const reused = s.reused ? `, ${s.reused} in a reused workspace reset to it` : '';
  const notes = Object.entries(s.notes)
    .map(([why, n]) => `${n}: ${why}`)
    .join('; ');
  const empty = Object.entries(s.emptyBecause)
    .map(([why, n]) => `${n} empty: ${why}`)
    .join('; ');
  const loaded = s.skillLoaded + s.skillNotLoaded > 0 ? `, skill loaded by the agent in ${s.skillLoaded}/${s.skillLoaded + s.skillNotLoaded}` : '';
  const outcome = s.outcome.ran ? `, outcome command passed ${s.outcome.passed}/${s.outcome.ran}${s.outcome.timedOut ? ` (${s.outcome.timedOut} killed at the limit)` : ''}` : '';
  const aside = [notes, empty].filter(Boolean).join('; ');
  return `replays: ${s.seeded}/${s.withWorkspace} seeded from the repository${at}${reused}${aside ? ` (${aside})` : ''}${loaded}, files changed in ${s.changedFiles}${outcome}`;
}
