/**
 * The `claude`, `codex` and `copilot` backends: one call = one run of the agent CLI in a fresh,
 * marked temporary workspace (see workspace.ts). For `perform` (target role) the workspace is
 * seeded from the user's repository at the session's point in time, the skill under test is
 * installed where that agent really loads it (and, by default, nowhere else), the agent runs with
 * file tools confined to the workspace, and the reply carries what it changed there and the
 * project's outcome command result. Other operations run the CLI as a plain text completion with
 * no tools. Every run uses a private agent home (no trace in the user's agent).
 * The vendor-specific parts (flags, skill location, output format, home) live in adapters/<agent>/exec.ts.
 */
import type { Backend, LlmReply, LlmRequest, Operation, PerformPayload } from '../core/protocol.js';
import type { OutcomeRun, ReplayWorkspace } from '../core/records.js';
import { SleepError } from '../core/errors.js';
import { redactSecrets } from '../core/redact.js';
import { isAgentSkill, type ExecAdapter, type ExecResult } from '../../adapters/exec-common.js';
import {
  DEFAULT_SEED_LIMITS,
  createAgentHome,
  createWorkspace,
  excludeFromChanges,
  installFile,
  installInstructions,
  recordBaseline,
  removeWorkspace,
  workspaceChanges,
  type SeedLimits,
  type SeedReport,
} from './workspace.js';
import { workspacePool, type SeededLease } from './workspace-pool.js';
import { runProcess, type ProcessResult } from './spawn.js';
import { costUsd, estimateTokens, priceFor } from './pricing.js';
import { runOutcomeCommand } from './outcome.js';

/** How replays set up the agent's workspace (config `replay`). */
export interface CliReplayOptions {
  seedWorkspace: boolean;
  seedLimits: SeedLimits;
  skillDelivery: 'native' | 'system-prompt';
  isolateAgentHomes: boolean;
  /** by project root: the command whose exit code scores the replay */
  outcomeCommands: Record<string, { command: string; timeoutMs: number; weight?: number }>;
}

export const DEFAULT_CLI_REPLAY: CliReplayOptions = {
  seedWorkspace: true,
  seedLimits: DEFAULT_SEED_LIMITS,
  skillDelivery: 'native',
  isolateAgentHomes: true,
  outcomeCommands: {},
};

/** The config's `replay` section as the CLI backends use it. */
export function cliReplayOptions(replay: {
  seedWorkspace: boolean;
  seedMaxFiles: number;
  seedMaxMb: number;
  skillDelivery: 'native' | 'system-prompt';
  isolateAgentHomes: boolean;
  outcomeCommands: Record<string, { command: string; timeoutMs: number; weight?: number }>;
}): CliReplayOptions {
  return {
    seedWorkspace: replay.seedWorkspace,
    seedLimits: { maxFiles: replay.seedMaxFiles, maxBytes: replay.seedMaxMb * 1024 * 1024, timeoutMs: DEFAULT_SEED_LIMITS.timeoutMs },
    skillDelivery: replay.skillDelivery,
    isolateAgentHomes: replay.isolateAgentHomes,
    outcomeCommands: replay.outcomeCommands,
  };
}

/** Does this CLI, with this environment, bill an API account per token (so its cost spends budget.maxUsd)? */
export function cliBillsApiKey(adapter: ExecAdapter, env: NodeJS.ProcessEnv): boolean {
  return adapter.home.billsApiKey(env, adapter.home.userHome(env));
}

export interface CliBackendOptions {
  adapter: ExecAdapter;
  /** resolved absolute path of the executable */
  binaryPath: string;
  model?: string;
  workspacesDir: string;
  /** environment of the child (defaults to process.env: the user's own CLI login) */
  env?: NodeJS.ProcessEnv;
  maxOutputBytes?: number;
  /** test/debug hook: called with the workspace before the agent runs */
  onWorkspace?: (dir: string, req: LlmRequest) => void;
  /** keep workspaces after the run (debugging) */
  keepWorkspaces?: boolean;
  replay?: CliReplayOptions;
}

const AUTH_RE = /\b(401|403)\b|invalid api key|invalid x-api-key|authentication[_ ]error|not (logged|signed) in|please (log|sign) in|unauthori[sz]ed|\/login|run `?\w+ login/i;
const RATE_RE = /\b429\b|rate[_ -]?limit|overloaded|\b529\b|too many requests|usage limit/i;
const TRANSIENT_RE = /\b5\d\d\b|timed? ?out|ECONNRESET|ECONNREFUSED|EAI_AGAIN|network error|stream disconnected|socket hang up/i;

export function classifyCliFailure(backend: string, binary: string, detail: string): SleepError {
  const short = detail.replace(/\s+/g, ' ').trim().slice(0, 400);
  if (AUTH_RE.test(detail)) {
    return new SleepError('BACKEND_AUTH', `${backend} CLI is not authenticated: ${short}`, {
      hint: `log in once with \`${backend} login\` (or set its API key), then retry; \`skillopt-sleep doctor\` checks it`,
      details: { retryable: false, binary },
    });
  }
  if (RATE_RE.test(detail)) {
    return new SleepError('BACKEND_RATE_LIMIT', `${backend} CLI was rate-limited: ${short}`, { details: { retryable: true, binary } });
  }
  return new SleepError('BACKEND_UNAVAILABLE', `${backend} CLI failed: ${short || 'no output'}`, {
    hint: `run \`${binary} --version\` to check the install; \`skillopt-sleep doctor\``,
    details: { retryable: TRANSIENT_RE.test(detail), binary },
  });
}

interface PerformSetup {
  system?: string;
  seed: SeedReport;
  baseline?: Awaited<ReturnType<typeof recordBaseline>>;
  native: boolean;
  /** the skill sits in a skills folder the agent opens with a tool (else an instructions file injected whole) */
  loadsByTool: boolean;
  outcome?: { command: string; timeoutMs: number; weight?: number };
}

export class CliBackend implements Backend {
  readonly name: string;
  readonly model: string;
  readonly destination: string;
  /** the model named by the user's own agent config (carried into the private home) */
  private homeModel: string | undefined;

  constructor(private readonly opts: CliBackendOptions) {
    this.name = opts.adapter.backend;
    // the ledger names a real model: the configured one, else what the CLI reports per call
    this.model = opts.model ?? `${opts.adapter.backend}-cli-default`;
    this.destination = opts.binaryPath;
  }

  /** The replay settings that change what a perform run of a `project` task produces (rollout cache key). */
  replayVariant(project: string | null | undefined): string {
    const r = this.opts.replay ?? DEFAULT_CLI_REPLAY;
    const outcome = project ? r.outcomeCommands[project] : undefined;
    return JSON.stringify({
      seed: r.seedWorkspace ? [r.seedLimits.maxFiles, r.seedLimits.maxBytes] : false,
      skill: r.skillDelivery,
      isolated: r.isolateAgentHomes,
      outcome: outcome ? [outcome.command, outcome.timeoutMs, outcome.weight ?? null] : null,
    });
  }

  async complete<O extends Operation>(req: LlmRequest<O>, signal?: AbortSignal): Promise<LlmReply> {
    const started = Date.now();
    const { adapter } = this.opts;
    const replay = this.opts.replay ?? DEFAULT_CLI_REPLAY;
    const info = { backend: this.name, operation: req.operation, runId: req.runId ?? null };
    const lease = req.operation === 'perform' ? await this.openPerformWorkspace(req as LlmRequest<'perform'>, replay, info) : { dir: createWorkspace(this.opts.workspacesDir, info) };
    const workspace = lease.dir;
    try {
      const env: NodeJS.ProcessEnv = { ...(this.opts.env ?? process.env) };
      if (replay.isolateAgentHomes) {
        const home = adapter.home;
        const userHome = home.userHome(env);
        const privateHome = createAgentHome(workspace);
        const carried = home.carryLogin(userHome, privateHome, env);
        Object.assign(env, carried.env, { [home.envVar]: privateHome });
        if (carried.model) this.homeModel = carried.model;
      }
      let system = req.system;
      let setup: PerformSetup | undefined;
      if ('seed' in lease) {
        setup = await this.preparePerform(workspace, lease.seed, req as LlmRequest<'perform'>, replay);
        system = setup.system;
      }
      this.opts.onWorkspace?.(workspace, req);
      const inv = adapter.buildInvocation({
        prompt: req.prompt,
        system,
        model: this.opts.model,
        workspace,
        mode: req.operation === 'perform' ? 'agent' : 'text',
        // (an unseeded workspace holds only the skill we installed: the adapter may leave out search tools)
        emptyWorkspace: 'seed' in lease ? !lease.seed.seeded : undefined,
        env: this.opts.env ?? process.env,
      });
      // files the adapter needs beside the workspace's own (an isolated CLI home's settings): its
      // folders are ours, so what the CLI writes there is not reported as the agent's changes
      const adapterFiles = Object.entries(inv.files ?? {});
      for (const [rel, content] of adapterFiles) installFile(workspace, rel, content);
      if (setup) excludeFromChanges(workspace, [...new Set(adapterFiles.map(([rel]) => rel.split('/')[0]))]);
      const proc = await runProcess(this.opts.binaryPath, inv.argv, {
        cwd: workspace,
        env: { ...env, ...inv.env },
        stdin: inv.stdin,
        signal,
        maxOutputBytes: this.opts.maxOutputBytes,
      });
      let parsed = adapter.parseOutput(proc.stdout);
      if (adapter.readUsage && !parsed.tokensIn && !parsed.tokensOut) {
        // the CLI's own usage log in the home this run used (private, or the user's when not isolated)
        const fromHome = adapter.readUsage(adapter.home.userHome(env), parsed);
        if (fromHome) parsed = { ...parsed, ...fromHome };
      }
      const reply = this.toReply(proc, parsed, started, (system ?? '') + req.prompt);
      if (setup) reply.workspace = await this.finishPerform(workspace, setup, reply, replay);
      return reply;
    } finally {
      if (this.opts.keepWorkspaces) {
        /* left for debugging */
      } else if ('seed' in lease && lease.pooled) workspacePool(this.opts.workspacesDir).release(lease);
      else removeWorkspace(workspace);
    }
  }

  /**
   * The workspace of a perform run: seeded from the task's repository through the shared pool (a
   * workspace of an earlier replay of the same commit is reset and reused), or empty with the reason.
   */
  private async openPerformWorkspace(req: LlmRequest<'perform'>, replay: CliReplayOptions, info: Record<string, unknown>): Promise<SeededLease & { pooled: boolean }> {
    const seedSpec = req.replay?.seed;
    const reason = !replay.seedWorkspace ? 'seeding is off (replay.seedWorkspace)' : !seedSpec ? 'no repository is recorded for this task' : undefined;
    if (reason || !seedSpec) return { dir: createWorkspace(this.opts.workspacesDir, info), seed: { seeded: false, reason, ms: 0 }, pooled: false };
    const lease = await workspacePool(this.opts.workspacesDir).acquire(seedSpec, info, replay.seedLimits);
    return { ...lease, pooled: true };
  }

  /** Installs the skill the way the agent loads it and records the baseline of the seeded workspace. */
  private async preparePerform(workspace: string, seed: SeedReport, req: LlmRequest<'perform'>, replay: CliReplayOptions): Promise<PerformSetup> {
    const { skill } = req.payload as PerformPayload;
    const native = replay.skillDelivery === 'native';
    let skillPath: string | undefined;
    if (native && skill.content.trim()) {
      skillPath = this.opts.adapter.skillPath(skill);
      if (isAgentSkill(skill.content)) installFile(workspace, skillPath, skill.content);
      else installInstructions(workspace, skillPath, skill.content);
    }
    // a freshly seeded tree is known file by file: only what we installed needs adding
    const baseline = await recordBaseline(workspace, seed.seeded ? (skillPath ? [skillPath] : []) : undefined);
    const project = req.replay?.project ?? null;
    const outcome = project ? replay.outcomeCommands[project] : undefined;
    return {
      system: native ? (req.replay?.systemWithoutSkill ?? req.system) : req.system,
      seed,
      baseline,
      native,
      loadsByTool: skillPath !== undefined && isAgentSkill(skill.content),
      outcome,
    };
  }

  /** What the agent changed, the outcome command, whether the skill was loaded — redacted before it leaves. */
  private async finishPerform(workspace: string, setup: PerformSetup, reply: LlmReply, replay: CliReplayOptions): Promise<ReplayWorkspace> {
    const changes = setup.baseline ? await workspaceChanges(workspace, setup.baseline) : { files: [], diff: '', truncated: false };
    let outcome: OutcomeRun | undefined;
    if (setup.outcome) outcome = { ...(await runOutcomeCommand(workspace, setup.outcome.command, setup.outcome.timeoutMs)), weight: setup.outcome.weight };
    const clean = (t: string): string => redactSecrets(t).text;
    const tools = reply.toolsCalled ?? [];
    const skillLoaded = !setup.native ? undefined : setup.loadsByTool ? tools.some((t) => this.opts.adapter.skillTools.includes(t)) : true;
    return {
      seeded: setup.seed.seeded,
      reason: setup.seed.reason,
      commit: setup.seed.commit,
      ref: setup.seed.ref,
      files: setup.seed.files,
      ...(setup.seed.reused ? { reused: true } : {}),
      seedMs: setup.seed.ms,
      skillDelivery: replay.skillDelivery,
      skillLoaded,
      changedFiles: changes.files.map((f) => (f.content === undefined ? f : { ...f, content: clean(f.content) })),
      diff: clean(changes.diff),
      outcome,
    };
  }

  private toReply(proc: ProcessResult, parsed: ExecResult, started: number, sent: string): LlmReply {
    if (proc.truncated) {
      throw new SleepError('BACKEND_BAD_REPLY', `${this.name} CLI output exceeded the limit and was stopped`, { details: { retryable: false } });
    }
    if (proc.code !== 0 || (parsed.error && !parsed.text)) {
      throw classifyCliFailure(this.name, this.opts.binaryPath, [parsed.error, parsed.text, proc.stderr, proc.code !== 0 ? `exit code ${proc.code}` : ''].filter(Boolean).join(' | '));
    }
    const model = parsed.model ?? this.opts.model ?? this.homeModel ?? this.model;
    const price = priceFor(model);
    // no counts on stdout nor in the CLI's own log (readUsage): estimate so token budgets still bind
    const tokensIn = parsed.tokensIn || parsed.tokensOut ? parsed.tokensIn : estimateTokens(sent);
    const tokensOut = parsed.tokensIn || parsed.tokensOut ? parsed.tokensOut : estimateTokens(parsed.text);
    return {
      text: parsed.text,
      backend: this.name,
      model,
      tokensIn,
      tokensOut,
      cacheReadTokens: parsed.cacheReadTokens,
      // the CLI's own figure when it reports one; else our price table (0 when the model is unknown: subscription)
      costUsd: parsed.costUsd ?? (price ? costUsd(price, tokensIn, tokensOut) : 0),
      latencyMs: Date.now() - started,
      cached: false,
      toolsCalled: parsed.toolsCalled,
    };
  }
}
