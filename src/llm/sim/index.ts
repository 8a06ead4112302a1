/**
 * `sim`: a deterministic, seeded simulated model for every role — target, optimizer, judge and
 * miner — for the demo, tests and benchmarks. It reads the typed `payload` of a request (never the
 * prose prompt), and each payload carries no more than the rendered prompt: the target sees the
 * skill, the ask and its context, never the task's checks. It makes no network connection and
 * behaves like a plausible model: the target follows only what the skill states (its literals,
 * its scope), with habits of its own and real sampling noise; the optimizer's proposals go wrong
 * in the ways real ones do (HarmRates in reflect.ts); structured replies are sometimes malformed
 * JSON. Latency is a real timer that honours abort.
 */
import type { Backend, LlmReply, LlmRequest, Operation, PayloadFor, Role } from '../../core/protocol.js';
import { SleepError } from '../../core/errors.js';
import { Rng, hashHex, hashUnit, stableStringify } from './rng.js';
import { perform, type ComplianceKnobs } from './target.js';
import { labelFailures, reflect, type HarmRates } from './reflect.js';
import { merge, rank, lrBudget, slowUpdate, metaSkill } from './optimizer.js';
import { judgeRubric, mineTask } from './judge-miner.js';
import { reviewClusters } from './cluster-review.js';

/**
 * The structured operations whose reply depends on their payload alone (reflect and slow_update
 * also draw from the request's rng). A table rather than a switch: an operation added to the
 * protocol does not compile until it is given here or above.
 */
const PAYLOAD_ONLY: { [O in Exclude<Operation, 'perform' | 'reflect' | 'slow_update'>]: (payload: PayloadFor[O]) => unknown } = {
  merge,
  rank,
  lr_budget: lrBudget,
  meta_skill: metaSkill,
  judge_rubric: judgeRubric,
  mine_task: mineTask,
  review_clusters: reviewClusters,
};

export interface SimBackendOptions {
  seed: number;
  latencyMs?: number;
  harmfulEditRate?: number;
  irrelevantEditRate?: number;
  malformedJsonRate?: number;
  /**
   * Judge: share of rubric grades that are schema-valid but wrong (the score turned around, 1 − s),
   * drawn afresh on every call by seed and call count, like a noisy model: exercises the judge audit
   */
  judgeWrongRate?: number;
  role?: Role;
  model?: string;
  /**
   * Target: the same random draws for one instance whatever the skill (common random numbers).
   * Off by default: a real model samples afresh on every evaluation, and the gate must meet that noise.
   */
  pairedDraws?: boolean;
  /** optimizer: how its proposals go wrong (see reflect.ts); each a rate in [0, 1] */
  harm?: Partial<HarmRates>;
  /** target: how reliably rules are followed by wording (target.ts DEFAULT_COMPLIANCE; the bench sets them) */
  compliance?: Partial<ComplianceKnobs>;
}

export interface SimBackend extends Backend {
  /** calls served so far, per operation (tests and benches count model calls with it) */
  readonly calls: Record<string, number>;
  totalCalls(): number;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new SleepError('ABORTED', 'sim call aborted', { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const tokens = (text: string): number => Math.ceil(text.length / 4);

/**
 * Keys that never change what the simulated model does, left out of the payload hash so the same
 * work draws the same numbers wherever and whenever it runs: where the project lives (the demo's
 * sandbox, a test's temp dir) and when a task was first and last seen (the demo writes its
 * transcripts relative to now). Without this, two demo runs told different stories.
 */
const NOT_SEMANTIC = new Set(['project', 'firstSeen', 'lastSeen']);

// A replay sends the same task and skill objects many times: serialise each once. The result is
// byte-identical to semanticJson(payload), so the hash (and every draw) is the same as without
// the memo. The sim treats payload objects as immutable values.
const JSON_OF = new WeakMap<object, string>();

function semanticJson(value: unknown): string {
  return stableStringify(value, NOT_SEMANTIC);
}

function memoJson(value: object): string {
  let json = JSON_OF.get(value);
  if (json === undefined) {
    json = semanticJson(value);
    JSON_OF.set(value, json);
  }
  return json;
}

function hashPayload(operation: Operation, payload: PayloadFor[Operation]): string {
  if (operation !== 'perform') return hashHex(semanticJson(payload));
  const p = payload as PayloadFor['perform'];
  return hashHex(`${semanticJson(p.sample)}\u0000${memoJson(p.skill)}\u0000${p.intent}\u0000${p.context}`);
}

/** A structured reply gone wrong, the way real models get it wrong. */
function malformed(json: string, rng: Rng): string {
  const kind = rng.int(0, 2);
  if (kind === 0) return json.slice(0, Math.max(1, Math.floor(json.length / 2))); // cut off mid-object
  if (kind === 1) return json.replace(/\}\s*$/, ',}'); // trailing comma
  return 'Sure! Here is what I would change: tighten the rules and add examples where the replies failed.';
}

function checkOptions(opts: SimBackendOptions): void {
  const bad = (what: string): never => {
    throw new SleepError('INVALID_INPUT', `sim backend: ${what}`, { hint: 'see backends.sim.* in `skillopt-sleep config`' });
  };
  if (!Number.isInteger(opts.seed)) bad(`seed must be an integer, got ${String(opts.seed)}`);
  if (opts.latencyMs !== undefined && !(opts.latencyMs >= 0)) bad(`latencyMs must be >= 0, got ${String(opts.latencyMs)}`);
  for (const key of ['harmfulEditRate', 'irrelevantEditRate', 'malformedJsonRate', 'judgeWrongRate'] as const) {
    const v = opts[key];
    if (v !== undefined && !(v >= 0 && v <= 1)) bad(`${key} must be between 0 and 1, got ${String(v)}`);
  }
}

export function createSimBackend(opts: SimBackendOptions): SimBackend {
  checkOptions(opts);
  const seed = opts.seed;
  const rates = {
    harmfulEditRate: opts.harmfulEditRate ?? 0,
    irrelevantEditRate: opts.irrelevantEditRate ?? 0,
    ...opts.harm,
  };
  const malformedRate = opts.malformedJsonRate ?? 0;
  const judgeWrongRate = opts.judgeWrongRate ?? 0;
  /** judge_rubric calls per request, so that asking again draws again */
  const judgeAsked = new Map<string, number>();
  const latencyMs = opts.latencyMs ?? 0;
  const model = opts.model ?? (opts.role ? `sim-${opts.role}` : 'sim-1');
  const calls: Record<string, number> = {};

  const structured = (op: Exclude<Operation, 'perform'>, payload: PayloadFor[Operation], rng: Rng): unknown => {
    if (op === 'reflect') return { edits: reflect(payload as PayloadFor['reflect'], rates, rng), failures: labelFailures(payload as PayloadFor['reflect'], rng) };
    if (op === 'slow_update') return slowUpdate(payload as PayloadFor['slow_update'], rng);
    return (PAYLOAD_ONLY[op] as (p: PayloadFor[Operation]) => unknown)(payload);
  };

  return {
    name: 'sim',
    model,
    destination: 'local',
    calls,
    totalCalls: () => Object.values(calls).reduce((a, b) => a + b, 0),
    async complete<O extends Operation>(req: LlmRequest<O>, signal?: AbortSignal): Promise<LlmReply> {
      if (signal?.aborted) throw new SleepError('ABORTED', 'sim call aborted', { cause: signal.reason });
      if (req.payload === undefined || req.payload === null) {
        throw new SleepError('INVALID_INPUT', `sim: request for ${req.operation} has no payload`, { hint: 'the sim backend reads typed payloads; pass one' });
      }
      calls[req.operation] = (calls[req.operation] ?? 0) + 1;
      const started = Date.now();
      const payloadHash = hashPayload(req.operation, req.payload);
      let text: string;
      let toolsCalled: string[] | undefined;
      let commandsRun: string[] | undefined;
      if (req.operation === 'perform') {
        const p = req.payload as PayloadFor['perform'];
        const result = perform(p, seed, { pairedDraws: opts.pairedDraws === true, ...(opts.compliance ? { compliance: opts.compliance } : {}) });
        text = result.text;
        toolsCalled = result.toolsCalled;
        commandsRun = result.commandsRun;
      } else {
        const sample = typeof (req.payload as { sample?: unknown }).sample === 'number' ? (req.payload as { sample: number }).sample : 0;
        const rng = new Rng(seed, req.operation, payloadHash, sample);
        const reply = structured(req.operation as Exclude<Operation, 'perform'>, req.payload, rng);
        if (judgeWrongRate > 0 && req.operation === 'judge_rubric') {
          const key = `${payloadHash}\u0000${hashHex(req.prompt ?? '')}`;
          const n = (judgeAsked.get(key) ?? 0) + 1;
          judgeAsked.set(key, n);
          const grade = reply as { score: number; feedback: string };
          if (hashUnit(seed, 'judge-wrong', key, String(n)) < judgeWrongRate) grade.score = Math.round((1 - grade.score) * 1000) / 1000;
        }
        text = JSON.stringify(reply);
        // a repair request (different prompt, same payload) gets a fresh draw, like a real retry
        if (malformedRate > 0 && hashUnit(seed, 'malformed', req.operation, payloadHash, hashHex(req.prompt ?? '')) < malformedRate) {
          text = malformed(text, new Rng(seed, 'malformed-kind', payloadHash));
        }
      }
      await sleep(latencyMs, signal);
      return {
        text,
        backend: 'sim',
        model,
        tokensIn: tokens(`${req.system ?? ''}${req.prompt ?? ''}`),
        tokensOut: tokens(text),
        costUsd: 0,
        latencyMs: Date.now() - started,
        cached: false,
        ...(toolsCalled ? { toolsCalled } : {}),
        ...(commandsRun?.length ? { commandsRun } : {}),
      };
    },
  };
}

