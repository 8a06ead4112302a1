/**
 * Builds the four role backends for a run from config: detection (detect.ts), construction of
 * each backend, and the ManagedBackend wrapper (redaction, cache, budget, limiter, retry,
 * timeout, ledger). Backends of the same kind share one concurrency limiter.
 */
import type { Config } from '../core/config.js';
import type { Backend, Role, RoleBackends } from '../core/protocol.js';
import { SleepError } from '../core/errors.js';
import { resolvePaths } from '../core/paths.js';
import type { Db } from '../store/db.js';
import { execAdapterFor, isCliBackend } from '../../adapters/index.js';
import { AnthropicBackend } from './anthropic.js';
import type { BudgetTracker } from './budget.js';
import { CliBackend, cliBillsApiKey, cliReplayOptions } from './cli.js';
import { detectBackends, type ConcreteBackend, type Detection } from './detect.js';
import { Limiter } from './limiter.js';
import { ManagedBackend, type ManagedOptions } from './managed.js';
import { OpenAiBackend } from './openai.js';
import { FALLBACK_PRICE, FREE, priceFor, type ModelPrice } from './pricing.js';
import { measuredCallOverhead } from './ledger.js';
import { findOnPath } from './spawn.js';
import { createSimBackend } from './sim/index.js';

export interface RoleBackendOptions {
  db?: Db;
  runId?: string;
  budget?: BudgetTracker;
  env?: NodeJS.ProcessEnv;
  /** allow `auto` to fall back to sim when nothing real is found (demo, benchmarks) */
  simAllowed?: boolean;
  /** where agent CLIs get their temporary workspaces; defaults to resolvePaths(env).workspacesDir */
  workspacesDir?: string;
  /** tests: faster backoff, hooks */
  retry?: ManagedOptions['retry'];
  onWorkspace?: (dir: string) => void;
}

export interface ResolvedRoleBackends extends RoleBackends {
  detection: Detection;
  /** every wrapped backend by role, to read counters (outboundCalls, cacheHits) */
  managed: Partial<Record<Role, ManagedBackend>>;
}

function keyFor(env: NodeJS.ProcessEnv, name: string, backend: string): string {
  const key = env[name];
  if (!key) {
    throw new SleepError('BACKEND_AUTH', `${backend}: ${name} is not set`, { hint: `export ${name}=... or pick another backend (config roles.<role>.backend)` });
  }
  return key;
}

/** The sim, reporting `tokens` more prompt tokens per call than it was sent (benchmarks only: backends.sim.*OverheadTokens). */
function withReportedOverhead(inner: Backend, tokens: number): Backend {
  return {
    name: inner.name,
    model: inner.model,
    destination: inner.destination,
    complete: async (req, signal) => {
      const r = await inner.complete(req, signal);
      return { ...r, tokensIn: r.tokensIn + tokens };
    },
  };
}

/** Constructs one raw backend (not wrapped). */
export function createBackend(
  config: Config,
  backend: ConcreteBackend,
  model: string | undefined,
  opts: { env: NodeJS.ProcessEnv; role?: Role; workspacesDir: string; onWorkspace?: (dir: string) => void },
): { backend: Backend; price: ModelPrice; billable: boolean; local: boolean; overheadTokens?: number } {
  const b = config.backends;
  switch (backend) {
    case 'anthropic': {
      const a = new AnthropicBackend({
        model: model ?? b.anthropic.model,
        apiKey: keyFor(opts.env, b.anthropic.apiKeyEnv, 'anthropic'),
        apiKeyEnv: b.anthropic.apiKeyEnv,
        baseURL: b.anthropic.baseURL,
        timeoutMs: b.timeoutMs,
      });
      return { backend: a, price: a.price, billable: true, local: false };
    }
    case 'openai': {
      const key = opts.env[b.openai.apiKeyEnv] ?? (b.openai.baseURL ? 'no-key' : keyFor(opts.env, b.openai.apiKeyEnv, 'openai'));
      const o = new OpenAiBackend({
        model: model ?? b.openai.model,
        apiKey: key,
        apiKeyEnv: b.openai.apiKeyEnv,
        baseURL: b.openai.baseURL,
        azureEndpoint: b.openai.azureEndpoint,
        azureApiVersion: b.openai.azureApiVersion,
        timeoutMs: b.timeoutMs,
      });
      return { backend: o, price: o.price, billable: true, local: false };
    }
    default: {
      const adapter = execAdapterFor(backend);
      if (!adapter) throw new SleepError('BACKEND_UNAVAILABLE', `unknown backend "${backend}"`, { hint: 'see `skillopt-sleep doctor` for the backends this build knows' });
      const binaryPath = findOnPath(adapter.binary, opts.env);
      if (!binaryPath) {
        throw new SleepError('BACKEND_UNAVAILABLE', `the ${adapter.binary} CLI is not on PATH`, { hint: `install it or pick another backend; \`skillopt-sleep doctor\` lists what is available` });
      }
      const cli = new CliBackend({ adapter, binaryPath, model, workspacesDir: opts.workspacesDir, env: opts.env, onWorkspace: opts.onWorkspace, replay: cliReplayOptions(config.replay) });
      // on an API key the CLI's reported cost is real money: it spends budget.maxUsd (a subscription spends tokens and calls only)
      const billable = cliBillsApiKey(adapter, opts.env);
      return { backend: cli, price: (model ? priceFor(model) : undefined) ?? (adapter.defaultPriceModel ? (priceFor(adapter.defaultPriceModel) ?? FALLBACK_PRICE) : FALLBACK_PRICE), billable, local: false };
    }
    case 'sim': {
      const s = b.sim;
      const sim = createSimBackend({
        seed: s.seed,
        latencyMs: s.latencyMs,
        harmfulEditRate: s.harmfulEditRate,
        irrelevantEditRate: s.irrelevantEditRate,
        malformedJsonRate: s.malformedJsonRate,
        judgeWrongRate: s.judgeWrongRate,
        role: opts.role,
        model,
      });
      // a benchmark may make the sim report what an agent CLI would add to each call (its system
      // prompt, tools): the night's budget then counts it as it would a real CLI's (bench/tokens.ts)
      const overheadTokens = (opts.role === 'target' ? s.replayOverheadTokens : s.callOverheadTokens) ?? 0;
      return { backend: overheadTokens > 0 ? withReportedOverhead(sim, overheadTokens) : sim, price: FREE, billable: false, local: true, overheadTokens };
    }
  }
}

export function createRoleBackends(config: Config, opts: RoleBackendOptions = {}): ResolvedRoleBackends {
  const env = opts.env ?? process.env;
  const detection = detectBackends(config, env, { simAllowed: opts.simAllowed });
  const workspacesDir = opts.workspacesDir ?? resolvePaths({ env }).workspacesDir;
  const limiters = new Map<string, Limiter>();
  const managed: Partial<Record<Role, ManagedBackend>> = {};
  const build = (role: Role): ManagedBackend => {
    const choice = detection.roles[role];
    if (!choice.backend) {
      throw new SleepError('BACKEND_UNAVAILABLE', `no backend for the ${role} role: ${choice.reason}`, { hint: 'see `skillopt-sleep doctor`' });
    }
    const made = createBackend(config, choice.backend, choice.model, { env, role, workspacesDir, onWorkspace: opts.onWorkspace });
    let limiter = limiters.get(choice.backend);
    if (!limiter) {
      limiter = new Limiter(config.backends.concurrency);
      limiters.set(choice.backend, limiter);
    }
    const isCli = isCliBackend(choice.backend);
    const m = new ManagedBackend({
      inner: made.backend,
      role,
      limiter,
      timeoutMs: config.backends.timeoutMs,
      maxRetries: config.backends.maxRetries,
      price: made.price,
      billable: made.billable,
      local: made.local,
      // what this CLI really added per call on this machine (the ledger), else the built-in figure
      overheadTokens: isCli ? measuredCallOverhead(opts.db, choice.backend, role).tokens : (made.overheadTokens ?? 0),
      db: opts.db,
      runId: opts.runId,
      budget: opts.budget,
      retry: opts.retry,
    });
    managed[role] = m;
    return m;
  };
  const target = build('target');
  const optimizer = build('optimizer');
  const judge = build('judge');
  // the miner is optional (mining works without it): an unusable miner backend leaves it unset
  let miner: ManagedBackend | undefined;
  if (detection.roles.miner.backend) {
    try {
      miner = build('miner');
    } catch {
      miner = undefined;
    }
  }
  return { target, optimizer, judge, miner, detection, managed };
}
