/**
 * What the user kept of one occurrence of a job (issue 41): the agent's version (artifacts.ts)
 * beside the version that landed in the project's git history after the session — the commit
 * message of the first commit after the ask, and each file the agent wrote as of the next commit
 * that touched it. Only commits inside a window are looked at: from the ask to the next
 * occurrence of the same job (its own evidence) or `windowMs` later, whichever comes first.
 * Both texts are redacted and capped before they are stored; each carries its provenance.
 */
import type { KeptOutcome } from '../../core/records.js';
import { redactSecrets } from '../../core/redact.js';
import type { AgentArtifacts } from './artifacts.js';
import type { GitHistory } from './git-read.js';

/** How long after an ask a commit still counts as its outcome. Assumption: a job's result is committed within a week. */
export const KEPT_WINDOW_MS = 7 * 24 * 3600 * 1000;
/** Cap on each stored text (agent and kept). Assumption, as ARTIFACT_CAPS.content. */
export const KEPT_TEXT_CAP = 4000;

export interface KeptInput {
  session: string | null;
  /** when the ask was made (ms); null: no time, no evidence */
  ts: number | null;
  /** the session's working directory (where relative paths the agent wrote resolve) */
  cwd: string;
  artifacts: AgentArtifacts | undefined;
  /** when the next occurrence of the same job started (ms), if any: the window ends there */
  nextTs?: number | null;
}

const clean = (s: string): string => redactSecrets(s.replace(/\r\n/g, '\n')).text.slice(0, KEPT_TEXT_CAP);

export function keptOutcomesOf(input: KeptInput, git: GitHistory, windowMs = KEPT_WINDOW_MS): KeptOutcome[] {
  const a = input.artifacts;
  if (!a || input.ts === null) return [];
  const since = input.ts;
  const until = Math.min(since + windowMs, input.nextTs && input.nextTs > since ? input.nextTs : Infinity);
  const out: KeptOutcome[] = [];
  if (a.commitMessage) {
    const landed = git.commits(since, until)[0];
    if (landed && landed.message) {
      out.push({ kind: 'commit_message', agent: clean(a.commitMessage), kept: clean(landed.message), commit: landed.sha.slice(0, 12), at: landed.at, session: input.session });
    }
  }
  for (const f of a.files ?? []) {
    if (f.content === undefined) continue; // no agent version to compare with (an edit, a patch)
    const rel = git.relativePath(f.path, input.cwd);
    if (!rel) continue;
    const next = git.commits(since, until, rel)[0];
    if (!next) continue;
    const kept = git.fileAt(next.sha, rel);
    if (kept === null) continue;
    out.push({ kind: 'file', file: rel, agent: clean(f.content), kept: clean(kept), commit: next.sha.slice(0, 12), at: next.at, session: input.session });
  }
  return out;
}
