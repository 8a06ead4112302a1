/**
 * The training experiment shared by `npm run bench -- train` and the integration test: the sim
 * backend on the sim persona world (eight jobs; visible, correction-only and instance-dependent
 * preferences; test scored by strict verifiers), with a real SQLite store in a temporary
 * directory. One run either trains from a starting skill or only scores a fixed skill (the
 * baselines: empty, checks pasted verbatim, corrections pasted verbatim, the oracle), and reports
 * the shipped skill's test score, per preference kind, with the calls and tokens it took.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb } from '../src/store/db.js';
import { resolvePaths } from '../src/core/paths.js';
import { createSimBackend } from '../src/llm/sim/index.js';
import type { HarmRates } from '../src/llm/sim/reflect.js';
import { personaWorld, simPersonaTasks, PREFERENCE_KIND, type PreferenceKind } from './persona.js';
import { trainSkill, type TrainOptions, type TrainResult } from '../src/trainer/index.js';
import type { Task } from '../src/core/records.js';
import type { Backend, LlmReply, LlmRequest, Operation } from '../src/core/protocol.js';
import { scoreSkill } from '../src/replay/index.js';

export interface WorldSizes {
  train: number;
  val: number;
  test: number;
}

export const DEFAULT_WORLD: WorldSizes = { train: 32, val: 24, test: 48 };

export interface ExperimentConfig {
  seed: number;
  /** persona world sizes (default DEFAULT_WORLD); `tasks` instead cycles simPersonaTasks (integration test) */
  world?: WorldSizes;
  tasks?: number;
  /** the skill training starts from (or, with train false, the skill scored) */
  skill?: string;
  /** … or built from the tasks the loop sees (train + val): a notepad of this world's check descriptions */
  skillFrom?: (seen: Task[]) => string;
  /** how instance-dependent preferences reach train/val (persona.ts; default 'valued', the product's view) */
  instanceChecks?: 'generic' | 'valued';
  /** false: score `skill` on test only (a baseline), no optimizer call */
  train?: boolean;
  harm?: Partial<HarmRates>;
  harmfulEditRate?: number;
  irrelevantEditRate?: number;
  malformedJsonRate: number;
  /** target draws shared across skills (common random numbers); default off, like a real model */
  pairedDraws?: boolean;
  /** audit every accepted step with the noise-free referee (costs test scorings; the bench's full system) */
  auditAcceptances?: boolean;
  options: Partial<TrainOptions>;
}

export interface ExperimentOutcome {
  result: TrainResult | null;
  /** every gated step whose candidate was accepted although it lowered validation (must be empty with the gate on) */
  acceptedDrops: number[];
  optimizerCalls: number;
  targetCalls: number;
  /** tokens in + out over every role */
  tokens: number;
  /** the skill the arm ships: best-on-val with the gate, the final skill without it */
  shipped: string;
  shippedTest: number;
  /** test soft score per preference kind (fraction of that kind's strict checks passed) */
  perKind: Record<PreferenceKind, number>;
  /** … and per preference (check id) */
  perPref: Record<string, number>;
  acceptedEdits: number;
  /**
   * edits the optimizer proposed over the run, and those applied by accepted steps (force-accepted
   * ones included): with the gate off the final skill ships, so this, not `acceptedEdits` (edits in
   * the best-on-val lineage), is what the gate-off skill took in
   */
  proposedEdits: number;
  appliedEdits: number;
  /** the shipped skill still holds a rule meant for one job but stated for every reply (or a catastrophic format rule) */
  keepsGlobalRule: boolean;
  /** … and the noise-free referee scores it more than TRUE_DROP higher with those rules cut out: the global rule does harm */
  keepsGlobalHarm: boolean;
  /** test score of the final *current* skill (what an ungated run ships) */
  finalTest: number | null;
  /** accepted steps, and those whose candidate is truly worse on test than the skill it replaced (noise-free referee) */
  acceptedSteps: number;
  acceptedTrulyWorse: number;
  /** the start draft training began from (start-gate.ts), scored on test like the shipped skill; null when not taken */
  start: { mean: number; perKind: Record<PreferenceKind, number>; perPref: Record<string, number> } | null;
}

export function personaSplits(seed: number, n: number, instanceChecks?: 'generic' | 'valued'): { train: Task[]; val: Task[]; test: Task[] } {
  const all = simPersonaTasks(seed, n, { instanceChecks });
  return { train: all.filter((t) => t.split === 'train'), val: all.filter((t) => t.split === 'val'), test: all.filter((t) => t.split === 'test') };
}

/** Counts tokens of every reply a backend gives (the sim reports prompt-sized token counts). */
function metered(b: Backend, count: { tokens: number }): Backend {
  return {
    name: b.name,
    model: b.model,
    destination: b.destination,
    async complete<O extends Operation>(req: LlmRequest<O>, signal?: AbortSignal): Promise<LlmReply> {
      const r = await b.complete(req, signal);
      count.tokens += r.tokensIn + r.tokensOut;
      return r;
    },
  };
}

// case-insensitive: a slow update or a paraphrase rewords "Reply only with JSON" ("It is fine to reply only with JSON")
const GLOBAL_HARM = /In every reply:|reply only with JSON/i;

/**
 * The skill without its global rules: each scope-dropped rule ("In every reply: …", up to the next
 * rule that names its job, or the end of its bullet) and each catastrophic format line cut out;
 * the other rules bundled in the same bullet stay.
 */
export function withoutGlobalRules(content: string): string {
  return content
    .split('\n')
    .filter((l) => !/reply only with JSON/i.test(l))
    .map((l) => l.replace(/\s*In every reply:.*?(?=\s+For [^:.]{3,40}:|$)/gi, ''))
    .filter((l) => l.trim() !== '-' && l.trim() !== '')
    .join('\n');
}

/** Below this, a test difference under the noise-free referee is a tie. */
const TRUE_DROP = 0.02;

/**
 * The noise-free referee: common random numbers across skills and several samples per test task,
 * so the difference between two skills is their effect, not the draw. Used only to audit the
 * gate's acceptances (never seen by training).
 */
export async function trueTest(test: Task[], content: string, seed: number, samples = 4): Promise<number> {
  const referee = createSimBackend({ seed: seed + 20_000, role: 'target', pairedDraws: true });
  const scored = await scoreSkill({ tasks: test, skill: { name: 'team-conventions', content }, target: referee, judge: referee, metric: 'soft', samples });
  return scored.mean;
}

/** How many accepted steps replaced a skill by one the referee scores lower (by more than TRUE_DROP). */
async function auditAcceptances(result: TrainResult, test: Task[], seed: number): Promise<{ accepted: number; worse: number }> {
  const dir = path.join(result.runDir, 'skills');
  const files = fs.readdirSync(dir).sort();
  const at = (step: number) => files.find((f) => f.includes(String(step).padStart(4, '0')));
  let accepted = 0;
  let worse = 0;
  for (const s of result.steps) {
    if (s.action !== 'accept' && s.action !== 'accept_new_best') continue;
    const after = at(s.globalStep);
    const idx = after ? files.indexOf(after) : -1;
    if (idx <= 0) continue;
    accepted++;
    const [a, b] = await Promise.all([trueTest(test, fs.readFileSync(path.join(dir, files[idx - 1]), 'utf8'), seed), trueTest(test, fs.readFileSync(path.join(dir, after as string), 'utf8'), seed)]);
    if (b < a - TRUE_DROP) worse++;
  }
  return { accepted, worse };
}

/** The test score of one skill, overall and per preference kind. */
export async function scoreOnTest(test: Task[], content: string, target: Backend, judge: Backend): Promise<{ mean: number; perKind: Record<PreferenceKind, number>; perPref: Record<string, number> }> {
  const scored = await scoreSkill({ tasks: test, skill: { name: 'team-conventions', content }, target, judge, metric: 'soft' });
  const sums: Record<PreferenceKind, [number, number]> = { visible: [0, 0], correction: [0, 0], instance: [0, 0] };
  const byPref = new Map<string, [number, number]>();
  for (const r of scored.rollouts) {
    for (const c of r.checks) {
      const kind = PREFERENCE_KIND[c.checkId];
      if (!kind) continue;
      sums[kind][0] += c.passed ? 1 : 0;
      sums[kind][1] += 1;
      const p = byPref.get(c.checkId) ?? [0, 0];
      byPref.set(c.checkId, [p[0] + (c.passed ? 1 : 0), p[1] + 1]);
    }
  }
  const frac = ([a, b]: [number, number]): number => (b ? a / b : 0);
  const perPref = Object.fromEntries([...byPref].map(([id, v]) => [id, frac(v)]));
  return { mean: scored.mean, perKind: { visible: frac(sums.visible), correction: frac(sums.correction), instance: frac(sums.instance) }, perPref };
}

export async function runExperiment(cfg: ExperimentConfig): Promise<ExperimentOutcome> {
  const count = { tokens: 0 };
  const mk = (role: 'target' | 'optimizer' | 'judge') =>
    createSimBackend({
      seed: cfg.seed,
      role,
      harmfulEditRate: cfg.harmfulEditRate ?? cfg.harm?.harmfulEditRate ?? 0,
      irrelevantEditRate: cfg.irrelevantEditRate ?? cfg.harm?.irrelevantEditRate ?? 0,
      harm: cfg.harm,
      malformedJsonRate: cfg.malformedJsonRate,
      pairedDraws: cfg.pairedDraws,
    });
  const target = mk('target');
  const optimizer = mk('optimizer');
  const judge = mk('judge');
  const backends = { target: metered(target, count), optimizer: metered(optimizer, count), judge: metered(judge, count) };
  // (the cycling `tasks` world of the integration tests keeps the generic instance checks unless asked)
  const tasks = cfg.tasks !== undefined ? personaSplits(cfg.seed, cfg.tasks, cfg.instanceChecks) : personaWorld(cfg.seed, cfg.world ?? DEFAULT_WORLD, { instanceChecks: cfg.instanceChecks ?? 'valued' });
  // the test scorer is its own backend: scoring never shares draws or counts with training
  const tester = createSimBackend({ seed: cfg.seed + 10_000, role: 'target' });
  const start = cfg.skillFrom ? cfg.skillFrom([...tasks.train, ...tasks.val]) : (cfg.skill ?? '');

  if (cfg.train === false) {
    const t = await scoreOnTest(tasks.test, start, tester, tester);
    return { result: null, acceptedDrops: [], optimizerCalls: 0, targetCalls: 0, tokens: 0, shipped: start, shippedTest: t.mean, perKind: t.perKind, perPref: t.perPref, acceptedEdits: 0, proposedEdits: 0, appliedEdits: 0, keepsGlobalRule: GLOBAL_HARM.test(start), keepsGlobalHarm: false, finalTest: t.mean, acceptedSteps: 0, acceptedTrulyWorse: 0, start: null };
  }

  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-train-'));
  try {
    const paths = resolvePaths({ env: { SKILLOPT_SLEEP_HOME: home } });
    const db = openDb(paths.database);
    try {
      const result = await trainSkill({
        db,
        paths,
        skill: { name: 'team-conventions', content: start, handWritten: false },
        tasks,
        backends,
        options: { seed: cfg.seed, ...cfg.options },
      });
      const acceptedDrops = result.steps
        .filter((s) => (s.action === 'accept' || s.action === 'accept_new_best') && s.valAfter !== null && s.valAfter <= s.valBefore)
        .map((s) => s.globalStep);
      // the final current skill = last skill_vNNNN.md
      const skillsDir = path.join(result.runDir, 'skills');
      const last = fs.readdirSync(skillsDir).sort().at(-1);
      const finalContent = last ? fs.readFileSync(path.join(skillsDir, last), 'utf8') : result.bestSkill;
      const gated = cfg.options.gateEnabled !== false;
      const shipped = gated ? result.bestSkill : finalContent;
      const t = await scoreOnTest(tasks.test, shipped, tester, tester);
      const finalTest = finalContent === shipped ? t.mean : (await scoreOnTest(tasks.test, finalContent, tester, tester)).mean;
      const keepsGlobalRule = GLOBAL_HARM.test(shipped);
      // harmful = the noise-free referee scores the skill higher without its global rules (one definition, printed once)
      const keepsGlobalHarm = keepsGlobalRule && (await trueTest(tasks.test, withoutGlobalRules(shipped), cfg.seed)) > (await trueTest(tasks.test, shipped, cfg.seed)) + TRUE_DROP;
      const audit = cfg.auditAcceptances ? await auditAcceptances(result, tasks.test, cfg.seed) : { accepted: 0, worse: 0 };
      const draft = result.startDraft?.content;
      const startScore = draft === undefined ? null : draft === shipped ? t : await scoreOnTest(tasks.test, draft, tester, tester);
      return {
        result,
        acceptedDrops,
        optimizerCalls: optimizer.totalCalls(),
        targetCalls: target.totalCalls(),
        tokens: count.tokens,
        shipped,
        shippedTest: t.mean,
        perKind: t.perKind,
        perPref: t.perPref,
        acceptedEdits: result.edits.filter((e) => e.status === 'accepted').length,
        proposedEdits: result.steps.reduce((a, s) => a + s.proposed, 0),
        appliedEdits: result.steps.filter((s) => s.action === 'accept' || s.action === 'accept_new_best' || s.action === 'force_accept').reduce((a, s) => a + s.applied, 0),
        keepsGlobalRule,
        keepsGlobalHarm,
        finalTest,
        acceptedSteps: audit.accepted,
        acceptedTrulyWorse: audit.worse,
        start: startScore,
      };
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}
