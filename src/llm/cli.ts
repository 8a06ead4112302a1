/**
 * The `claude`, `codex` and `copilot` backends: one call = one run of the agent CLI in a fresh,
 * marked temporary workspace (see workspace.ts). For `perform` (target role) the skill under test
 * is installed where that agent really loads it and the agent runs with file tools confined to the
 * workspace; other operations run the CLI as a plain text completion with no tools.
 * The vendor-specific parts (flags, skill location, output format) live in adapters/<agent>/exec.ts.
 */
import type { Backend, LlmReply, LlmRequest, Operation, PerformPayload } from '../core/protocol.js';
import { SleepError } from '../core/errors.js';
import type { ExecAdapter, ExecResult } from '../../adapters/exec-common.js';
import { createWorkspace, installFile, removeWorkspace } from './workspace.js';
import { runProcess, type ProcessResult } from './spawn.js';
import { costUsd, estimateTokens, priceFor } from './pricing.js';

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

export class CliBackend implements Backend {
  readonly name: string;
  readonly model: string;
  readonly destination: string;

  constructor(private readonly opts: CliBackendOptions) {
    this.name = opts.adapter.backend;
    this.model = opts.model ?? 'default';
    this.destination = opts.binaryPath;
  }

  async complete<O extends Operation>(req: LlmRequest<O>, signal?: AbortSignal): Promise<LlmReply> {
    const started = Date.now();
    const { adapter } = this.opts;
    const workspace = createWorkspace(this.opts.workspacesDir, { backend: this.name, operation: req.operation, runId: req.runId ?? null });
    try {
      if (req.operation === 'perform') {
        const { skill } = req.payload as PerformPayload;
        installFile(workspace, adapter.skillPath(skill), skill.content);
      }
      this.opts.onWorkspace?.(workspace, req);
      const inv = adapter.buildInvocation({
        prompt: req.prompt,
        system: req.system,
        model: this.opts.model,
        workspace,
        mode: req.operation === 'perform' ? 'agent' : 'text',
        env: this.opts.env ?? process.env,
      });
      // files the adapter needs beside the workspace's own (an isolated CLI home's settings)
      for (const [rel, content] of Object.entries(inv.files ?? {})) installFile(workspace, rel, content);
      const proc = await runProcess(this.opts.binaryPath, inv.argv, {
        cwd: workspace,
        env: { ...(this.opts.env ?? process.env), ...inv.env },
        stdin: inv.stdin,
        signal,
        maxOutputBytes: this.opts.maxOutputBytes,
      });
      return this.toReply(proc, adapter.parseOutput(proc.stdout), started, (req.system ?? '') + req.prompt);
    } finally {
      if (!this.opts.keepWorkspaces) removeWorkspace(workspace);
    }
  }

  private toReply(proc: ProcessResult, parsed: ExecResult, started: number, sent: string): LlmReply {
    if (proc.truncated) {
      throw new SleepError('BACKEND_BAD_REPLY', `${this.name} CLI output exceeded the limit and was stopped`, { details: { retryable: false } });
    }
    if (proc.code !== 0 || (parsed.error && !parsed.text)) {
      throw classifyCliFailure(this.name, this.opts.binaryPath, [parsed.error, parsed.text, proc.stderr, proc.code !== 0 ? `exit code ${proc.code}` : ''].filter(Boolean).join(' | '));
    }
    const model = parsed.model ?? this.model;
    const price = priceFor(model);
    // some CLIs (copilot) report no tokens: estimate so token budgets still bind
    const tokensIn = parsed.tokensIn || parsed.tokensOut ? parsed.tokensIn : estimateTokens(sent);
    const tokensOut = parsed.tokensIn || parsed.tokensOut ? parsed.tokensOut : estimateTokens(parsed.text);
    return {
      text: parsed.text,
      backend: this.name,
      model,
      tokensIn,
      tokensOut,
      // the CLI's own figure when it reports one; else our price table (0 when the model is unknown: subscription)
      costUsd: parsed.costUsd ?? (price ? costUsd(price, tokensIn, tokensOut) : 0),
      latencyMs: Date.now() - started,
      cached: false,
      toolsCalled: parsed.toolsCalled,
    };
  }
}
