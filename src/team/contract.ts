/**
 * The contract between a member's machine and the team's shared PostgreSQL (issue 42, team mode).
 *
 * Team mode is opt-in per repository. A member's daemon pushes what mining produced for the opted-in
 * repositories (tasks with their corrections and outcome evidence, redacted, tagged with an opaque
 * member id; never raw transcripts). One team night at a time per repository pools every member's
 * tasks, trains the repository's committed skills behind the same held-out gate, and stages the result
 * as a commit on a new local branch.
 *
 * Two sides meet here: `src/store/team/` implements `TeamServer` on PostgreSQL (the SQL lives in the
 * store, as everywhere), and `src/team/night.ts` runs the team night against any `TeamServer`.
 */
import type { Task } from '../core/records.js';

/**
 * A repository's identity across members' machines: a hash of its root commit(s), so two clones of
 * the same repository agree without sharing a path or a remote URL.
 */
export type RepoKey = string;

/** One mined task pooled on the server, tagged with who pushed it (an opaque id, never a name). */
export interface PooledTask {
  repoKey: RepoKey;
  /** opaque member id (a hash); a name is shown only when the team config allows names */
  memberId: string;
  /** the member's session the task was mined from, hashed: provenance counts sessions, never shows them */
  sessionKey: string;
  /** hash of the redacted task's content: the idempotency key of a push */
  contentHash: string;
  /** the task as mined on the member's machine, redacted before it left it */
  task: Task;
}

/** The right to run a repository's team night until `expiresAt` (ms since epoch); renewed while training. */
export interface NightLease {
  repoKey: RepoKey;
  /** who holds it: a member id plus the process (for `team status` and `doctor`) */
  holder: string;
  /** fencing token: a renewal or a release with a stale token fails */
  token: string;
  expiresAt: number;
}

/** What a team night leaves on the server when it ends (for `team status` and the next night). */
export interface TeamNightSummary {
  repoKey: RepoKey;
  status: 'staged' | 'no_gain' | 'failed';
  reason?: string;
  /** the local branch the proposal was committed to, when staged */
  branch?: string;
  members: number;
  sessions: number;
  tasks: number;
  finishedAt: number;
}

/** The team night's view of the shared server. */
export interface TeamServer {
  /** every member's tasks for the repository (active ones) */
  pooledTasks(repoKey: RepoKey): Promise<PooledTask[]>;
  /** one night at a time per repository: null when another holder's lease is live */
  acquireNight(repoKey: RepoKey, holder: string, ttlMs: number): Promise<NightLease | null>;
  /** extends the lease; false when it was lost (expired and taken): the night must stop */
  renewNight(lease: NightLease, ttlMs: number): Promise<boolean>;
  releaseNight(lease: NightLease): Promise<void>;
  /** the training state after each step, so a night killed mid-training resumes on the next one */
  saveCheckpoint(lease: NightLease, state: unknown): Promise<void>;
  loadCheckpoint(repoKey: RepoKey): Promise<unknown | null>;
  recordNight(lease: NightLease, summary: TeamNightSummary): Promise<void>;
}
