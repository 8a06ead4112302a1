/**
 * The typed records modules exchange (docs/ARCHITECTURE.md, "Records between modules"). Zod schemas are the source of
 * truth; the TypeScript types are inferred from them. Modules talk through these, never through
 * each other's internals.
 */
import { z } from 'zod';

/** The agents of the registry (adapters/index.ts AGENTS; tests/unit/agent-registry.test.ts keeps the two equal). */
export const AgentId = z.enum(['claude-code', 'codex', 'copilot', 'gemini', 'pi', 'cursor', 'opencode']);
export type AgentId = z.infer<typeof AgentId>;

export const SessionKind = z.enum(['interactive', 'headless', 'subagent', 'self']);
export type SessionKind = z.infer<typeof SessionKind>;

export const EventRole = z.enum(['user', 'assistant', 'tool']);
export const EventKind = z.enum(['prompt', 'text', 'tool_call', 'tool_result']);

/** One normalized transcript event. `text` is always redacted before it is stored. */
export const SessionEventSchema = z.object({
  agent: AgentId,
  sessionId: z.string(),
  seq: z.number().int().nonnegative(),
  ts: z.number().int().nullable(), // epoch ms, null when the format has no timestamp
  role: EventRole,
  kind: EventKind,
  toolName: z.string().optional(),
  isError: z.boolean().optional(),
  text: z.string(),
  cwd: z.string().optional(),
  /** `final` marks the last assistant text of a turn; other vendor details stay here too. */
  meta: z.record(z.string(), z.unknown()).default({}),
});
export type SessionEvent = z.infer<typeof SessionEventSchema>;

export const SessionSchema = z.object({
  id: z.string(), // globally unique: `<agent>:<vendor session id>`
  agent: AgentId,
  vendorId: z.string(),
  project: z.string().nullable(), // absolute project root (git root or cwd)
  cwd: z.string().nullable(),
  gitBranch: z.string().nullable().optional(),
  startedAt: z.number().int().nullable(),
  endedAt: z.number().int().nullable(),
  kind: SessionKind,
  parentId: z.string().nullable().optional(),
  file: z.string(),
  title: z.string().nullable().optional(),
  promptCount: z.number().int().nonnegative(),
  toolErrorCount: z.number().int().nonnegative(),
});
export type Session = z.infer<typeof SessionSchema>;

/** Judge checks. `sealed` checks count in the gate but their text never reaches the optimizer. */
export const CheckOp = z.enum([
  'contains',
  'not_contains',
  'regex',
  'section_present',
  'section_contains',
  'min_chars',
  'max_chars',
  'json_valid',
  'starts_with',
  'no_refusal',
  'tool_called',
  'ran_command',
]);
export type CheckOp = z.infer<typeof CheckOp>;

export const CheckSchema = z.object({
  id: z.string(),
  op: CheckOp,
  /** operand: substring, pattern, section heading, number of chars, tool name... */
  value: z.union([z.string(), z.number()]).optional(),
  /** second operand for section_contains (the text expected inside the section) */
  needle: z.string().optional(),
  flags: z.string().optional(), // regex flags
  caseSensitive: z.boolean().optional(),
  weight: z.number().positive().default(1),
  sealed: z.boolean().default(false),
  /** human description: what the check enforces, used in feedback to the optimizer */
  description: z.string().optional(),
  /**
   * What the check reads: `reply` (default) the agent's reply; `file:<path>` the content of a file
   * the agent created or changed in the workspace (fails when it did not touch it); `diff` the
   * whole diff of the agent's changes.
   */
  target: z
    .string()
    .regex(/^(reply|diff|file:.+)$/, 'target is reply, diff or file:<path>')
    .optional(),
  /**
   * Where a check comes from when it is grounded in outcome evidence (issue 41): `kept` a property
   * the user's kept versions have and the agent's did not; `procedure` the command that worked
   * where another failed. Review cites the evidence of such checks.
   */
  grounded: z.enum(['kept', 'procedure']).optional(),
});
export type Check = z.infer<typeof CheckSchema>;

export const ReferenceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('rule') }),
  z.object({ kind: z.literal('exact'), answer: z.string(), normalize: z.boolean().default(true) }),
  z.object({ kind: z.literal('rubric'), rubric: z.string(), passThreshold: z.number().min(0).max(1).default(0.7) }),
  z.object({ kind: z.literal('outcome'), description: z.string() }),
]);
export type Reference = z.infer<typeof ReferenceSchema>;

export const JudgeSchema = z.object({
  checks: z.array(CheckSchema).default([]),
  reference: ReferenceSchema.default({ kind: 'rule' }),
});
export type Judge = z.infer<typeof JudgeSchema>;

export const Split = z.enum(['train', 'val', 'test']);
export type Split = z.infer<typeof Split>;

/**
 * What the user kept of one occurrence of a job (issue 41): the agent's version beside the one that
 * landed in the project's git history after the session. The differences are the user's silent
 * corrections. Both texts are redacted and capped before they are stored.
 */
export const KeptOutcomeSchema = z.object({
  /** a commit message the agent proposed vs the one that landed, or a file it wrote vs that file as committed next */
  kind: z.enum(['commit_message', 'file']),
  /** the repository-relative path, for kind `file` */
  file: z.string().optional(),
  /** what the agent produced (its commit message, or the file as it wrote it) */
  agent: z.string(),
  /** what the user kept (the message that landed, or the file as of the next commit that touched it) */
  kept: z.string(),
  /** provenance: the commit the kept version is read from (full or abbreviated sha) and its commit time (ms) */
  commit: z.string(),
  at: z.number().int(),
  /** the session the agent's version came from */
  session: z.string().nullable(),
});
export type KeptOutcome = z.infer<typeof KeptOutcomeSchema>;

/** A project procedure learned the hard way: a command that failed in the session, then the one that worked. */
export const ProcedureSchema = z.object({
  failed: z.string(),
  worked: z.string(),
  /** what the commands were for, when the tool kinds know it (test, lint, typecheck, format) */
  purpose: z.string().optional(),
  /** sessions in which this pair was seen (the evidence count), and the latest time */
  sessions: z.number().int().positive().default(1),
  at: z.number().int().nullable(),
});
export type Procedure = z.infer<typeof ProcedureSchema>;

export const TaskSchema = z.object({
  id: z.string(),
  project: z.string().nullable(),
  intent: z.string(), // self-contained instruction given to the target
  context: z.string().default(''), // minimal context (file excerpts, conventions)
  judge: JudgeSchema,
  split: Split,
  origin: z.enum(['real', 'dream', 'imported']),
  skillHint: z.string().nullable().optional(),
  /** the recurring family (intent cluster) this task is one occurrence of; a family's tasks share a judge */
  family: z.string().nullable().optional(),
  occurrences: z.number().int().nonnegative(),
  firstSeen: z.number().int().nullable(),
  lastSeen: z.number().int().nullable(),
  status: z.enum(['active', 'disabled']).default('active'),
  reviewed: z.boolean().default(false),
  /** user corrections seen after this task: preference evidence */
  corrections: z.array(z.string()).default([]),
  /** where each correction was said (same order as `corrections`), when the miner knows it */
  correctionSources: z.array(z.object({ session: z.string().nullable(), at: z.number().int().nullable() })).optional(),
  agents: z.array(AgentId).default([]),
  /** outcome evidence: what the agent produced beside what the user kept (mined from git after the session) */
  kept: z.array(KeptOutcomeSchema).optional(),
  /** commands that failed in this job's sessions and the ones that then worked */
  procedures: z.array(ProcedureSchema).optional(),
});
export type Task = z.infer<typeof TaskSchema>;

export const CheckResultSchema = z.object({
  checkId: z.string(),
  passed: z.boolean(),
  score: z.number().min(0).max(1),
  sealed: z.boolean(),
  /** text for the optimizer; empty for sealed checks */
  feedback: z.string(),
});
export type CheckResult = z.infer<typeof CheckResultSchema>;

/** A file the agent created, changed or deleted in its workspace (content capped and redacted). */
export const ChangedFileSchema = z.object({
  path: z.string(),
  status: z.enum(['added', 'modified', 'deleted']),
  content: z.string().optional(),
  binary: z.boolean().optional(),
  truncated: z.boolean().optional(),
});
export type ChangedFile = z.infer<typeof ChangedFileSchema>;

/** The outcome command of a project, run in the workspace after the agent finished. */
export const OutcomeRunSchema = z.object({
  command: z.string(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  /** how the network was cut (`unshare -n`), or why it could not be */
  network: z.string(),
  ms: z.number().nonnegative(),
  /** the command's last output lines (redacted) */
  tail: z.string(),
  /** weight of the outcome check among the task's checks */
  weight: z.number().positive().optional(),
});
export type OutcomeRun = z.infer<typeof OutcomeRunSchema>;

/** What a replay's workspace started from and what the agent did in it. */
export const ReplayWorkspaceSchema = z.object({
  seeded: z.boolean(),
  /** why it is empty, or a note about the commit used */
  reason: z.string().optional(),
  commit: z.string().optional(),
  /** the ref the commit was found on (the session's branch, a remote's copy of it, or HEAD) */
  ref: z.string().optional(),
  files: z.number().int().nonnegative().optional(),
  /** the workspace of an earlier replay of the same commit, reset to it instead of checked out again */
  reused: z.boolean().optional(),
  /** time spent preparing the workspace (resolve + checkout or reset) */
  seedMs: z.number().nonnegative().optional(),
  /** how the skill reached the agent */
  skillDelivery: z.enum(['native', 'system-prompt']),
  /** native delivery: did the agent load the skill (a Skill tool call; instruction files are injected, so true) */
  skillLoaded: z.boolean().optional(),
  changedFiles: z.array(ChangedFileSchema).default([]),
  diff: z.string().default(''),
  outcome: OutcomeRunSchema.optional(),
});
export type ReplayWorkspace = z.infer<typeof ReplayWorkspaceSchema>;

/** One task performed once under one skill, judged. */
export const RolloutSchema = z.object({
  taskId: z.string(),
  skillHash: z.string(),
  sample: z.number().int().nonnegative().default(0),
  backend: z.string(),
  model: z.string(),
  response: z.string(),
  toolsCalled: z.array(z.string()).default([]),
  /** the shell commands the target ran, in order (LlmReply.commandsRun), what `ran_command` checks read; absent when none */
  commandsRun: z.array(z.string()).optional(),
  /** files the target wrote or changed in its workspace (relative paths), when the replay knows them */
  changedFiles: z.array(z.string()).optional(),
  hardScore: z.number().min(0).max(1), // 1 if every check passed
  softScore: z.number().min(0).max(1), // weighted fraction of checks passed (rubric score if rubric)
  checks: z.array(CheckResultSchema),
  /** feedback for the optimizer: failures of non-sealed checks and rubric critique */
  feedback: z.string(),
  tokensIn: z.number().int().nonnegative().default(0),
  tokensOut: z.number().int().nonnegative().default(0),
  costUsd: z.number().nonnegative().default(0),
  latencyMs: z.number().nonnegative().default(0),
  cached: z.boolean().default(false),
  error: z.string().optional(),
  /** agent CLI targets: the workspace (seed, changed files, outcome command) */
  workspace: ReplayWorkspaceSchema.optional(),
});
export type Rollout = z.infer<typeof RolloutSchema>;

export const EditOp = z.enum(['add', 'delete', 'replace']);
export const EditSchema = z.object({
  op: EditOp,
  /** text in the current skill the edit targets (delete/replace), or after which to add; absent = append */
  anchor: z.string().optional(),
  content: z.string().default(''),
  rationale: z.string().default(''),
  evidence: z.array(z.string()).default([]), // task ids / event refs
});
export type Edit = z.infer<typeof EditSchema>;

export const ProposalStatus = z.enum(['staged', 'applied', 'rejected', 'reverted', 'stale', 'superseded']);
export type ProposalStatus = z.infer<typeof ProposalStatus>;

export const SkillTargetSchema = z.object({
  agent: AgentId.nullable(), // null = a shared root read by several agents
  path: z.string(), // absolute path of the live file
  name: z.string(),
  kind: z.enum(['skill', 'agents-md', 'claude-md', 'copilot-instructions', 'gemini-md', 'instructions', 'managed']),
  readBy: z.array(AgentId).default([]),
  project: z.string().nullable().optional(),
  /**
   * Copies of a managed skill for the agents the user works with that do not read `path` (Codex
   * reads `.agents/skills`, Claude Code `.claude/skills`): apply writes the same text to each, and
   * revert restores each. Derived by adapters/skills-registry.ts, checked again at staging and apply.
   */
  mirrors: z.array(z.object({ path: z.string(), readBy: z.array(AgentId).default([]) })).optional(),
});
export type SkillTarget = z.infer<typeof SkillTargetSchema>;

export const PerTaskScoreSchema = z.object({
  taskId: z.string(),
  split: Split,
  before: z.number(),
  after: z.number(),
});

export const EditRecordSchema = EditSchema.extend({
  id: z.string(),
  status: z.enum(['accepted', 'rejected', 'unmatched']),
  /** marginal effect on validation (leave-one-out), when measured */
  effect: z.number().nullable().optional(),
  scoreDrop: z.number().nullable().optional(),
});
export type EditRecord = z.infer<typeof EditRecordSchema>;

export const ProposalSchema = z.object({
  id: z.string(),
  runId: z.string().nullable(),
  nightId: z.string().nullable().optional(),
  skillTarget: SkillTargetSchema,
  baseHash: z.string(), // sha256 of the live file at base time ('' when the file did not exist)
  startHash: z.string().optional(), // sha256 of start.md (what training started from): a partial apply checks the file against it
  candidate: z.string(),
  diff: z.string(),
  baselineScore: z.number(),
  candidateScore: z.number(),
  testBefore: z.number().nullable().optional(),
  testAfter: z.number().nullable().optional(),
  perTask: z.array(PerTaskScoreSchema),
  edits: z.array(EditRecordSchema),
  status: ProposalStatus,
  createdAt: z.number().int(),
  decidedAt: z.number().int().nullable().optional(),
  reason: z.string().nullable().optional(),
  dir: z.string(), // proposals/<id>/
  /**
   * What the last apply wrote: the accepted edits (all of them, or the subset of a partial apply),
   * out of how many, and the validation score that text promised (the candidate's for all edits,
   * the re-scored subset's for a partial apply; null when the subset was never scored or the user
   * edited the text).
   */
  applied: z
    .object({ editIds: z.array(z.string()), of: z.number().int(), valAfter: z.number().nullable(), edited: z.boolean().optional() })
    .nullable()
    .optional(),
  /**
   * The outcome evidence behind each rule of the candidate (issue 41), computed at staging from the
   * kept outcomes and procedures of the tasks of the families it was scored on: rules without any
   * are left out; absent on proposals staged before it was recorded (or with no outcome evidence).
   */
  ruleEvidence: z
    .array(
      z.object({
        rule: z.string(),
        evidence: z.array(
          z.object({ text: z.string(), kind: z.string(), literal: z.string(), changed: z.number().int(), of: z.number().int(), commits: z.array(z.string()) }),
        ),
      }),
    )
    .optional(),
});
export type Proposal = z.infer<typeof ProposalSchema>;
