/**
 * A family's outcome evidence (issue 41), per ask: what the user kept of what the agent produced
 * (kept.ts, from the session's repository) and the commands that failed before another worked
 * (procedures.ts). The window of each ask ends at the next occurrence of the same job in the same
 * project: that one's commits are its own evidence.
 */
import type { KeptOutcome, Procedure } from '../../core/records.js';
import type { StoredMember } from '../state.js';
import { GitHistory } from './git-read.js';
import { keptOutcomesOf, KEPT_WINDOW_MS } from './kept.js';
import { proceduresOfCommands } from './procedures.js';

export interface AskEvidence {
  kept: KeptOutcome[];
  procedures: Array<Omit<Procedure, 'sessions'>>;
}

export const askKey = (m: { sessionId: string; seq: number }) => `${m.sessionId}#${m.seq}`;

/** At most this many asks of a family are read from git per run (the newest). Assumption: enough occurrences to see a habit. */
export const MAX_EVIDENCE_ASKS = 40;

/**
 * Evidence of each of a family's asks that has artifacts. `cwdOf` gives a session's working
 * directory (null: unknown, no git evidence); repositories are opened once per run (`repos`).
 */
export function familyEvidence(
  members: StoredMember[],
  cwdOf: (sessionId: string) => string | null,
  repos: Map<string, GitHistory | null>,
  windowMs = KEPT_WINDOW_MS,
): Map<string, AskEvidence> {
  const out = new Map<string, AskEvidence>();
  const withArtifacts = members.filter((m) => m.outcome.artifacts).sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0));
  const recent = withArtifacts.slice(-MAX_EVIDENCE_ASKS);
  for (const m of recent) {
    const artifacts = m.outcome.artifacts!;
    const procedures = proceduresOfCommands(artifacts.commands ?? []);
    let kept: KeptOutcome[] = [];
    const cwd = cwdOf(m.sessionId);
    if (cwd && m.ts !== null && (artifacts.commitMessage || artifacts.files?.some((f) => f.content !== undefined))) {
      if (!repos.has(cwd)) repos.set(cwd, GitHistory.open(cwd));
      const git = repos.get(cwd);
      // the next occurrence of the job in another session of the same project closes the window
      let next: number | null = null;
      for (const o of members) if (o.sessionId !== m.sessionId && o.project === m.project && o.ts !== null && o.ts > m.ts && (next === null || o.ts < next)) next = o.ts;
      if (git) kept = keptOutcomesOf({ session: m.sessionId, ts: m.ts, cwd, artifacts, nextTs: next }, git, windowMs);
    }
    if (kept.length || procedures.length) out.set(askKey(m), { kept, procedures });
  }
  return out;
}
