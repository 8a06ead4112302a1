/**
 * The structured contract between callers (trainer, replay, mine) and model backends.
 *
 * Every model call carries both a rendered prompt (for real models) and a typed `payload`
 * (for the deterministic `sim` backend, which must not parse prose). Replies of structured
 * operations are validated with the `*Reply` schemas below (one repair attempt, then a typed error).
 */
import { z } from 'zod';
import { EditSchema, CheckSchema, type ReplayWorkspace } from './records.js';

export const Role = z.enum(['target', 'optimizer', 'judge', 'miner']);
export type Role = z.infer<typeof Role>;

export const Operation = z.enum([
  'perform', // target: do the task under the skill
  'reflect', // optimizer: analyse a minibatch of rollouts → bounded edits
  'merge', // optimizer: merge patches from several analysts
  'rank', // optimizer: order candidate edits by expected value
  'lr_budget', // optimizer (autonomous schedule): choose this step's edit budget
  'slow_update', // optimizer: rewrite the protected guidance block at an epoch boundary
  'meta_skill', // optimizer: update the optimizer-side strategy memory
  'judge_rubric', // judge: grade a response against a rubric
  'mine_task', // miner: turn a cluster of prompts into a self-contained task with checks
  'review_clusters', // miner: review the night's changed clusters: merges, splits, a job name each
]);
export type Operation = z.infer<typeof Operation>;

// ---- payloads ----------------------------------------------------------------------------------

export interface RolloutDigest {
  taskId: string;
  intent: string;
  response: string; // may be truncated
  score: number; // soft score
  passed: boolean; // hard
  feedback: string; // non-sealed failures only
  /** the user's corrections for this task, quoted with the session and time they were said */
  corrections?: Array<{ text: string; session: string | null; at: number | null }>;
  /** the rubric (or outcome description) the judge grades against */
  rubric?: string;
  /** what each non-sealed check wants, and whether this reply met it */
  wants?: Array<{ checkId: string; wants: string; passed: boolean }>;
  /** tools the target called and files it changed, in short form */
  toolsCalled?: string[];
  changedFiles?: string[];
  /**
   * Failing attempts only (issue 41): what the user kept of this job's earlier occurrences — the
   * agent's version beside the one that landed in git, with the commit and its date. The
   * differences are the user's silent corrections.
   */
  kept?: Array<{ kind: 'commit_message' | 'file'; file?: string; agent: string; kept: string; commit: string; at: number }>;
  /** failing attempts only: commands that failed in this job's sessions and the one that then worked */
  procedures?: Array<{ failed: string; worked: string; purpose?: string; sessions: number }>;
}

export interface RejectedEditDigest {
  op: 'add' | 'delete' | 'replace';
  anchor?: string;
  content: string;
  scoreDrop: number | null;
  source: 'gate' | 'user';
}

export interface ReflectPayload {
  skill: string;
  mode: 'failures' | 'successes';
  rollouts: RolloutDigest[];
  rejectedEdits: RejectedEditDigest[];
  metaSkill: string;
  maxEdits: number;
}
/**
 * The analyst's reading of each failure: a `defect` of the skill (it lacks or gets wrong a rule:
 * edit it) or a `lapse` of execution (the skill already says it; the agent did not do it: a new
 * rule would only repeat it). Edits backed only by lapses are dropped.
 */
export const FailureLabel = z.object({ taskId: z.string(), kind: z.enum(['defect', 'lapse']), why: z.string().default('') });
export type FailureLabel = z.infer<typeof FailureLabel>;
export const ReflectReply = z.object({ edits: z.array(EditSchema), failures: z.array(FailureLabel).default([]) });

export interface MergePayload {
  skill: string;
  patches: Array<z.infer<typeof EditSchema>[]>; // failures-first order
  maxEdits: number;
}
export const MergeReply = z.object({ edits: z.array(EditSchema) });

export interface RankPayload {
  skill: string;
  edits: z.infer<typeof EditSchema>[];
  budget: number;
}
export const RankReply = z.object({ order: z.array(z.number().int().nonnegative()) });

export interface LrBudgetPayload {
  skill: string;
  step: number;
  totalSteps: number;
  min: number;
  max: number;
  recentAcceptRate: number;
  candidateEdits: number;
}
export const LrBudgetReply = z.object({ budget: z.number().int(), reason: z.string().default('') });

export interface SlowUpdatePayload {
  skillBefore: string;
  skillAfter: string;
  currentGuidance: string;
  perTask: Array<{
    taskId: string;
    intent: string;
    before: number;
    after: number;
    status: 'improved' | 'regressed' | 'still_failing' | 'stable';
    /** regressed and still-failing tasks: the replies (clipped) and judge feedback before and after */
    trajectory?: { before: { response: string; feedback: string }; after: { response: string; feedback: string } };
  }>;
}
export const SlowUpdateReply = z.object({ guidance: z.string() });

export interface MetaSkillPayload {
  previousMeta: string;
  epoch: number;
  accepted: z.infer<typeof EditSchema>[];
  rejected: Array<z.infer<typeof EditSchema> & { scoreDrop: number | null }>;
  valBefore: number;
  valAfter: number;
}
export const MetaSkillReply = z.object({ meta: z.string() });

export interface JudgeRubricPayload {
  rubric: string;
  intent: string;
  response: string;
}
export const JudgeRubricReply = z.object({ score: z.number().min(0).max(1), feedback: z.string().default('') });

export interface MineTaskPayload {
  prompts: string[];
  corrections: string[];
  project: string | null;
}
export const MineTaskReply = z.object({
  intent: z.string(),
  context: z.string().default(''),
  checks: z.array(CheckSchema.partial({ id: true, weight: true, sealed: true })),
});

export interface ReviewClustersPayload {
  /** the clusters that changed, each with a few representative asks (already redacted) */
  clusters: Array<{
    id: string;
    size: number;
    asks: string[];
    /** what the agent did for each shown ask (work signs, src/mine/work.ts), aligned with `asks`; absent when nothing is known */
    did?: string[][];
    /** how many of the asks read are worded like each shown ask (one wording is shown once), aligned with `asks`; absent when all are 1 */
    worded?: number[];
    /** the work signs across the cluster's asks read (not only those shown), most frequent first, with how many asks show each */
    work?: Array<{ did: string; asks: number }>;
    /** how many asks the `work` counts were read from */
    asksRead?: number;
  }>;
}
export const ReviewClustersReply = z.object({
  /** a one-line job name per cluster reviewed ("writing a CHANGELOG entry") */
  names: z.array(z.object({ id: z.string(), job: z.string() })).default([]),
  /** groups of cluster ids that are the same job */
  merges: z.array(z.array(z.string()).min(2)).default([]),
  /** a cluster holding several jobs: groups of its asks (indexes into the asks shown), each with a job name */
  splits: z.array(z.object({ id: z.string(), groups: z.array(z.object({ job: z.string(), asks: z.array(z.number().int().nonnegative()).min(1) })).min(2) })).default([]),
});

/**
 * What the target sees, and no more: the rendered prompt carries exactly these (the skill, the
 * ask and its context). Never the task's checks, reference or id — a simulated target must not
 * know what a model could not.
 */
export interface PerformPayload {
  intent: string;
  context: string;
  skill: { name: string; content: string };
  sample: number;
}

export type PayloadFor = {
  perform: PerformPayload;
  reflect: ReflectPayload;
  merge: MergePayload;
  rank: RankPayload;
  lr_budget: LrBudgetPayload;
  slow_update: SlowUpdatePayload;
  meta_skill: MetaSkillPayload;
  judge_rubric: JudgeRubricPayload;
  mine_task: MineTaskPayload;
  review_clusters: ReviewClustersPayload;
};

// ---- requests and replies ----------------------------------------------------------------------

export interface LlmRequest<O extends Operation = Operation> {
  role: Role;
  operation: O;
  system?: string;
  prompt: string;
  payload: PayloadFor[O];
  maxTokens?: number;
  temperature?: number;
  /** deterministic calls (temperature 0, optimizer/judge) may be served from the response cache */
  cacheable?: boolean;
  runId?: string;
  /** perform only: how an agent CLI target sets up its workspace (ignored by backends without one) */
  replay?: ReplayRequest;
}

/** Which repository state a replay starts from (see src/llm/workspace.ts). */
export interface ReplaySeed {
  repo: string;
  branch?: string | null;
  /** epoch ms the original session started */
  before?: number | null;
}

export interface ReplayRequest {
  seed?: ReplaySeed;
  /** the system prompt without the skill block, for agents that load the skill themselves */
  systemWithoutSkill?: string;
  /** the project the task belongs to (selects its outcome command) */
  project?: string | null;
}

export interface LlmReply {
  text: string;
  backend: string;
  model: string;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  latencyMs: number;
  cached: boolean;
  /** target role: tool names the agent used */
  toolsCalled?: string[];
  /**
   * target role: the shell commands the agent ran, in order (issue 41: a project's procedure is
   * which command works; a `ran_command` check reads these)
   */
  commandsRun?: string[];
  /** of tokensIn: prompt tokens read from the provider's cache */
  cacheReadTokens?: number;
  /** agent CLI targets: what the workspace started from and what the agent changed */
  workspace?: ReplayWorkspace;
}

/** One configured backend bound to a model. Implementations live in src/llm. */
export interface Backend {
  readonly name: string; // claude | codex | copilot | openai | anthropic | sim
  readonly model: string;
  /** host or binary the calls go to ('local' for sim) — recorded in the egress ledger */
  readonly destination: string;
  complete<O extends Operation>(req: LlmRequest<O>, signal?: AbortSignal): Promise<LlmReply>;
  /**
   * For backends that replay a task in a workspace (the agent CLIs): the settings beyond name and
   * model that change a replay's result for a task of `project` (workspace seeding, how the skill
   * is delivered, the project's outcome command). Part of the rollout cache key; absent elsewhere.
   */
  replayVariant?(project: string | null | undefined): string;
}

/** The four roles resolved to backends for a run. */
export interface RoleBackends {
  target: Backend;
  optimizer: Backend;
  judge: Backend;
  miner?: Backend;
}
