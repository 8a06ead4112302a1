/**
 * What a set of rollouts says about their workspaces, for the night report: how many started from
 * the user's repository (and why the others were empty), whether the agent loaded the skill on its
 * own, how often it changed files, and how the outcome command went. Pure.
 */
import type { Rollout } from '../core/records.js';

export interface ReplayWorkspaceSummary {
  rollouts: number;
  /** rollouts that ran in an agent-CLI workspace at all */
  withWorkspace: number;
  seeded: number;
  /** why the other workspaces were empty, with counts */
  emptyBecause: Record<string, number>;
  /** native delivery: rollouts where the agent loaded the skill / did not */
  skillLoaded: number;
  skillNotLoaded: number;
  changedFiles: number;
  outcome: { ran: number; passed: number; timedOut: number };
}

export function summarizeReplayWorkspaces(rollouts: Rollout[]): ReplayWorkspaceSummary {
  const s: ReplayWorkspaceSummary = {
    rollouts: rollouts.length,
    withWorkspace: 0,
    seeded: 0,
    emptyBecause: {},
    skillLoaded: 0,
    skillNotLoaded: 0,
    changedFiles: 0,
    outcome: { ran: 0, passed: 0, timedOut: 0 },
  };
  for (const r of rollouts) {
    const w = r.workspace;
    if (!w) continue;
    s.withWorkspace++;
    if (w.seeded) s.seeded++;
    else {
      const why = w.reason ?? 'unknown';
      s.emptyBecause[why] = (s.emptyBecause[why] ?? 0) + 1;
    }
    if (w.skillLoaded === true) s.skillLoaded++;
    if (w.skillLoaded === false) s.skillNotLoaded++;
    if (w.changedFiles.length > 0) s.changedFiles++;
    if (w.outcome) {
      s.outcome.ran++;
      if (w.outcome.exitCode === 0 && !w.outcome.timedOut) s.outcome.passed++;
      if (w.outcome.timedOut) s.outcome.timedOut++;
    }
  }
  return s;
}

/** One line for the night report, or '' when no rollout ran in a workspace. */
export function describeReplayWorkspaces(s: ReplayWorkspaceSummary): string {
  if (s.withWorkspace === 0) return '';
  const empty = Object.entries(s.emptyBecause)
    .map(([why, n]) => `${n} empty: ${why}`)
    .join('; ');
  const loaded = s.skillLoaded + s.skillNotLoaded > 0 ? `, skill loaded by the agent in ${s.skillLoaded}/${s.skillLoaded + s.skillNotLoaded}` : '';
  const outcome = s.outcome.ran ? `, outcome command passed ${s.outcome.passed}/${s.outcome.ran}${s.outcome.timedOut ? ` (${s.outcome.timedOut} killed at the limit)` : ''}` : '';
  return `replays: ${s.seeded}/${s.withWorkspace} seeded from the repository${empty ? ` (${empty})` : ''}${loaded}, files changed in ${s.changedFiles}${outcome}`;
}
