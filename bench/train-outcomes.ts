/**
 * The outcome arm (issue 41): the outcome world (outcome-world.ts) written onto disk as Claude Code
 * transcripts plus one real git repository per project (outcome-transcripts.ts), then the real
 * pipeline in process — `runHarvest` → `runMining` → `runNight` (sim backend for every role) — and
 * the skills the night staged scored on hidden instances no transcript or commit holds, per
 * preference kind (stated, instance, silent, procedural, changed-mind), by strict verifiers with the
 * instance's own values. A procedural verifier reads the commands the target ran
 * (`LlmReply.commandsRun`); a target that reports none fails it.
 *
 * Arms, per seed, with one scorer:
 * - empty skill; the corrections pasted verbatim (a note-taker); the scoped notepad (the document
 *   each of the night's trainings started from: the start draft, built from what the user said,
 *   no optimizer); the oracle;
 * - the night (staged skills);
 * - the night without outcome evidence (the same world and pipeline, with `mining.outcomeEvidence`
 *   false when the config has it, and every task's `kept` / `procedures` stripped before the night);
 * - gate off: each of the night's trainings run again on the same tasks, from the same start, with
 *   the gate off, shipping its final skill (gate on − gate off is night − this).
 * Tokens per night come from the night's report (`used.tokens`, the ledger's sum).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb } from '../src/store/db.js';
import { resolvePaths } from '../src/core/paths.js';
import { defaultConfig, type Config } from '../src/core/config.js';
import { runHarvest } from '../src/harvest/ingest.js';
import { runMining } from '../src/mine/index.js';
import { runNight } from '../src/night/night.js';
import { listProposals } from '../src/store/repos/proposals.js';
import { getTask, listTasks, upsertTask } from '../src/store/repos/tasks.js';
import { createSimBackend } from '../src/llm/sim/index.js';
import { DEFAULT_COMPLIANCE, type ComplianceKnobs } from '../src/llm/sim/target.js';
import { createRoleBackends } from '../src/llm/registry.js';
import { trainSkill } from '../src/trainer/index.js';
import { buildPerformRequest } from '../src/replay/rollout.js';
import { evaluateCheck } from '../src/core/checks.js';
import type { Check, Task } from '../src/core/records.js';
import type { Backend } from '../src/core/protocol.js';
import { ci, f3, mean, pairedBootstrap, type PairedCI } from './stats.js';
import { sandboxEnv, skillBody, withProcessEnv, E2E_AMPLE_BUDGET } from './train-e2e.js';
import { OUTCOME_DEFAULTS, OUTCOME_JOBS, OUTCOME_PROJECTS, OUTCOME_QUICK, PREF_KINDS, outcomeHidden, outcomeOracleSkill, outcomeSessions, outcomeVerbatimSkill, staleContent, type OutcomeHidden, type OutcomeKnobs, type PrefKind, type Verifier } from './outcome-world.js';
import { buildOutcomeRepos, outcomeProjectDir, writeOutcomeTranscripts, type OutcomeHomes } from './outcome-transcripts.js';
import type { BenchResult } from './types.js';

export type OutcomeArm = 'empty skill' | 'corrections verbatim' | 'scoped notepad (night start)' | 'oracle' | 'night' | 'night, no outcome evidence' | 'night, gate off';
export const OUTCOME_ARMS: OutcomeArm[] = ['empty skill', 'corrections verbatim', 'scoped notepad (night start)', 'oracle', 'night', 'night, no outcome evidence', 'night, gate off'];

/** Per arm: the overall hidden-test score (mean over instances of the share of verifiers passed) and per kind. */
export interface ArmScore {
  overall: number;
  perKind: Record<PrefKind, number>;
  /** per preference id: the share of hidden instances that passed its verifier (for diagnosis) */
  perPref: Record<string, number>;
}

export interface OutcomeSeed {
  seed: number;
  scores: Record<OutcomeArm, ArmScore>;
  /** tokens the night used (its report's ledger sum), and its calls */
  night: { tokens: number; calls: number; status: string; staged: number; items: string[] };
  noEvidenceNight: { tokens: number; calls: number; staged: number };
  /** what the mined tasks carried: kept outcomes and procedures (0 on a pipeline that mines none) */
  mined: { tasks: number; kept: number; procedures: number; sessions: number; commits: number };
  /** superseded values / one-off literals in the shipped skills of the night and of the notepads */
  stale: Record<'night' | 'scoped notepad (night start)' | 'corrections verbatim', { superseded: string[]; oneOff: boolean }>;
  stagedSkills: Record<string, string>;
  cpuMs: number;
}

const MODES = { full: { evidence: true }, 'no-evidence': { evidence: false } } as const;
type Mode = keyof typeof MODES;

/**
 * A night under a token budget with each call charged an agent CLI's overhead (bench/tokens.ts:
 * what a `budget.maxTokens` costs this world in learning): absent, the ample budget and the sim's
 * own token counts.
 */
export interface OutcomeTokenBudget {
  maxTokens: number;
  cliOverhead: { replay: number; call: number };
}

function outcomeConfig(seed: number, evidence: boolean, tokenBudget?: OutcomeTokenBudget): Config {
  const c = defaultConfig();
  for (const role of Object.keys(c.roles) as Array<keyof Config['roles']>) c.roles[role].backend = 'sim';
  c.backends.sim.seed = seed;
  c.training.seed = seed;
  Object.assign(c.budget, E2E_AMPLE_BUDGET);
  // the kept helper's switch (issue 41): when the config has it, the miner itself leaves outcome evidence out
  const mining = c.mining as Config['mining'] & { outcomeEvidence?: boolean };
  if (!evidence && 'outcomeEvidence' in mining) mining.outcomeEvidence = false;
  if (tokenBudget) {
    // the product's default budget (400 calls, 60 tasks) with this maxTokens, as the e2e arm of bench tokens
    c.budget = { ...defaultConfig().budget, maxTokens: tokenBudget.maxTokens };
    Object.assign(c.backends.sim, { replayOverheadTokens: tokenBudget.cliOverhead.replay, callOverheadTokens: tokenBudget.cliOverhead.call });
  }
  return c;
}

/**
 * How reliably the scoring target follows a rule, by its wording (src/llm/sim/target.ts): the sim's
 * own defaults, every value an ASSUMPTION stated there (a precise imperative with its literal 0.95,
 * the issue's reported real-target figure; a plain statement 0.9; a pasted complaint 0.6; each
 * extra copy of a rule −0.1; a contradiction followed by neither side 10% of the time). The night's
 * sim target uses the same defaults (the config has no knob for them), so train and test agree.
 */
export const OUTCOME_COMPLIANCE: ComplianceKnobs = { ...DEFAULT_COMPLIANCE };

/** Passed verifiers of one reply: text checks on the reply, `ran` on the commands it ran. */
export function verify(v: Verifier, text: string, toolsCalled: string[], commandsRun: string[]): boolean {
  if (v.kind === 'ran') return commandsRun.some((c) => c.includes(v.command));
  const check = { id: 'hidden', weight: 1, sealed: true, ...v.check } as Check;
  return evaluateCheck(check, text, toolsCalled).passed;
}

/** Scores one skill per project on that project's hidden instances. */
export async function scoreOutcomeArm(hidden: OutcomeHidden[], skillFor: (project: string) => string, tester: Backend): Promise<ArmScore> {
  const perInstance: number[] = [];
  const byKind = new Map<PrefKind, number[]>(PREF_KINDS.map((k) => [k, []]));
  const byPref = new Map<string, number[]>();
  for (const h of hidden) {
    const reply = await tester.complete(buildPerformRequest(h.task, { name: 'learned', content: skillFor(h.project) }, 0));
    const passed = h.verifiers.map((v) => verify(v.verifier, reply.text, reply.toolsCalled ?? [], reply.commandsRun ?? []));
    perInstance.push(mean(passed.map((p) => (p ? 1 : 0))));
    h.verifiers.forEach((v, i) => {
      byKind.get(v.kind)!.push(passed[i] ? 1 : 0);
      byPref.set(v.pref, [...(byPref.get(v.pref) ?? []), passed[i] ? 1 : 0]);
    });
  }
  return {
    overall: mean(perInstance),
    perKind: Object.fromEntries(PREF_KINDS.map((k) => [k, mean(byKind.get(k)!)])) as Record<PrefKind, number>,
    perPref: Object.fromEntries([...byPref].map(([id, xs]) => [id, mean(xs)])),
  };
}

interface PipelineOutcome {
  nightSkill: (project: string) => string;
  startSkill: (project: string) => string;
  gateOffSkill: ((project: string) => string) | null;
  staged: Record<string, string>;
  night: OutcomeSeed['night'];
  mined: OutcomeSeed['mined'];
  verbatim: (project: string) => string;
}

/** One pipeline run of one seed in its own sandbox: world on disk → harvest → mine → night. */
async function runPipeline(seed: number, knobs: OutcomeKnobs, mode: Mode, withGateOff: boolean, tokenBudget?: OutcomeTokenBudget): Promise<PipelineOutcome> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-outcome-'));
  let restoreEnv = () => {};
  try {
    const env = sandboxEnv(root);
    restoreEnv = withProcessEnv(env);
    const homes: OutcomeHomes = { claudeConfigDir: env.CLAUDE_CONFIG_DIR!, projectsRoot: path.join(env.HOME!, 'src') };
    const now = Date.UTC(2026, 10, 20, 12);
    const sessions = outcomeSessions(seed, knobs, now, (p) => outcomeProjectDir(homes, p));
    const repos = buildOutcomeRepos(sessions, homes, OUTCOME_PROJECTS);
    writeOutcomeTranscripts(sessions, seed, homes);
    const paths = resolvePaths({ env });
    fs.mkdirSync(paths.stateDir, { recursive: true });
    const db = openDb(paths.database);
    try {
      const config = outcomeConfig(seed, MODES[mode].evidence, tokenBudget);
      const harvest = await runHarvest(db, config, { env, agents: ['claude-code'], workers: 0, stateDir: paths.stateDir });
      if (harvest.errors.length) throw new Error(`outcome harvest failed: ${harvest.errors.map((e) => `${e.file}: ${e.message}`).join('; ')}`);
      await runMining(db, config, { now });
      const tasks = listTasks(db, { status: 'active' });
      const mined = { tasks: tasks.length, kept: tasks.reduce((n, t) => n + (t.kept?.length ?? 0), 0), procedures: tasks.reduce((n, t) => n + (t.procedures?.length ?? 0), 0), sessions: harvest.sessions, commits: repos.reduce((n, r) => n + r.commits, 0) };
      if (!MODES[mode].evidence) for (const t of tasks) if (t.kept || t.procedures) upsertTask(db, { ...t, kept: undefined, procedures: undefined });
      const nightStart = now + 14 * 3_600_000;
      const realStart = Date.now();
      const night = await runNight(db, paths, config, { env, skipHarvest: true, clock: { now: () => nightStart + (Date.now() - realStart) } });
      const staged = listProposals(db, { nightId: night.id });
      const inProject = (file: string, project: string) => file.startsWith(outcomeProjectDir(homes, project) + path.sep);
      const forProject = (file: string, project: string) => inProject(file, project) || !OUTCOME_PROJECTS.some((p) => inProject(file, p));
      const stagedSkills: Record<string, string> = {};
      for (const p of staged) stagedSkills[p.skillTarget.path] = skillBody(p.candidate);
      const trained = night.items.filter((i) => i.trainRunId);
      const runFile = (runId: string, file: string) => {
        const f = path.join(paths.runsDir, runId, file);
        return fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : null;
      };
      const starts = trained.map((i) => ({ path: i.target.path, content: skillBody(runFile(i.trainRunId!, path.join('skills', 'skill_v0000.md')) ?? '') }));
      let gateOff: Array<{ path: string; content: string }> | null = null;
      if (withGateOff) {
        // the same trainings with the gate off: same tasks, same start, same options, the final skill ships
        const backends = createRoleBackends(config, { db, env, simAllowed: true });
        gateOff = [];
        for (const i of trained) {
          const cfg = JSON.parse(runFile(i.trainRunId!, 'config.json') ?? '{}') as { options?: Record<string, unknown>; skill?: { name: string; handWritten: boolean }; tasks?: { train: string[]; val: string[]; test: string[] } };
          const state = JSON.parse(runFile(i.trainRunId!, 'state.json') ?? '{}') as { startDraft?: { startSkill?: string } | null };
          const load = (ids: string[] = []) => ids.map((id) => getTask(db, id)).filter((t): t is Task => !!t);
          const startSkill = state.startDraft?.startSkill ?? runFile(i.trainRunId!, path.join('skills', 'skill_v0000.md')) ?? '';
          const result = await trainSkill({
            db,
            paths,
            skill: { name: cfg.skill?.name ?? i.target.name, content: startSkill, path: i.target.path, handWritten: cfg.skill?.handWritten ?? false },
            tasks: { train: load(cfg.tasks?.train), val: load(cfg.tasks?.val), test: load(cfg.tasks?.test) },
            backends,
            options: { ...(cfg.options ?? {}), gateEnabled: false },
          });
          const skillsDir = path.join(result.runDir, 'skills');
          const last = fs.readdirSync(skillsDir).sort().at(-1);
          gateOff.push({ path: i.target.path, content: skillBody(last ? fs.readFileSync(path.join(skillsDir, last), 'utf8') : result.bestSkill) });
        }
      }
      const join = (docs: Array<{ path: string; content: string }>) => (project: string) =>
        docs
          .filter((d) => forProject(d.path, project))
          .map((d) => d.content)
          .join('\n\n');
      return {
        nightSkill: join(staged.map((p) => ({ path: p.skillTarget.path, content: skillBody(p.candidate) }))),
        startSkill: join(starts),
        gateOffSkill: gateOff ? join(gateOff) : null,
        staged: stagedSkills,
        night: { tokens: night.used.tokens, calls: night.used.calls, status: night.status, staged: staged.length, items: night.items.map((i) => `${i.target.name}: ${i.status}${i.reason ? ` (${i.reason})` : ''}`) },
        mined,
        verbatim: (project) => outcomeVerbatimSkill(sessions, project),
      };
    } finally {
      db.close();
    }
  } finally {
    restoreEnv();
    if (process.env.SOS_OUTCOME_KEEP) process.stderr.write(`outcome sandbox kept: ${root}\n`);
    else fs.rmSync(root, { recursive: true, force: true });
  }
}

/** One seed: the full pipeline (with the gate-off retraining), the no-evidence pipeline, every arm scored. */
export async function runOutcomeSeed(seed: number, knobs: OutcomeKnobs = OUTCOME_DEFAULTS): Promise<OutcomeSeed> {
  const cpu0 = process.cpuUsage();
  const full = await runPipeline(seed, knobs, 'full', true);
  const bare = await runPipeline(seed, knobs, 'no-evidence', false);
  const hidden = outcomeHidden(seed, knobs.hiddenPerJob);
  // the scorer is its own backend: it shares no draws or counts with the nights
  const tester = createSimBackend({ seed: seed + 10_000, role: 'target', compliance: OUTCOME_COMPLIANCE });
  const skills: Record<OutcomeArm, (project: string) => string> = {
    'empty skill': () => '',
    'corrections verbatim': full.verbatim,
    'scoped notepad (night start)': full.startSkill,
    oracle: () => outcomeOracleSkill(),
    night: full.nightSkill,
    'night, no outcome evidence': bare.nightSkill,
    'night, gate off': full.gateOffSkill ?? full.nightSkill,
  };
  const scores = {} as Record<OutcomeArm, ArmScore>;
  for (const arm of OUTCOME_ARMS) scores[arm] = await scoreOutcomeArm(hidden, skills[arm], tester);
  const allProjects = (f: (p: string) => string) => OUTCOME_PROJECTS.map(f).join('\n\n');
  const cpu = process.cpuUsage(cpu0);
  return {
    seed,
    scores,
    night: full.night,
    noEvidenceNight: { tokens: bare.night.tokens, calls: bare.night.calls, staged: bare.night.staged },
    mined: full.mined,
    stale: {
      night: staleContent(Object.values(full.staged).join('\n\n')),
      'scoped notepad (night start)': staleContent(allProjects(full.startSkill)),
      'corrections verbatim': staleContent(allProjects(full.verbatim)),
    },
    stagedSkills: full.staged,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

/**
 * One seed's night under a token budget (bench/tokens.ts): the full pipeline without the gate-off
 * retraining, its staged skills and its start scored on the seed's hidden instances, and what it spent.
 */
export async function runOutcomeBudgetSeed(seed: number, tokenBudget: OutcomeTokenBudget, knobs: OutcomeKnobs = OUTCOME_DEFAULTS): Promise<{ night: number; start: number; empty: number; tokens: number; calls: number; staged: number; status: string }> {
  const full = await runPipeline(seed, knobs, 'full', false, tokenBudget);
  const hidden = outcomeHidden(seed, knobs.hiddenPerJob);
  const tester = createSimBackend({ seed: seed + 10_000, role: 'target', compliance: OUTCOME_COMPLIANCE });
  const score = async (f: (project: string) => string) => (await scoreOutcomeArm(hidden, f, tester)).overall;
  return { night: await score(full.nightSkill), start: await score(full.startSkill), empty: await score(() => ''), tokens: full.night.tokens, calls: full.night.calls, staged: full.night.staged, status: full.night.status };
}

export interface OutcomeReport {
  seeds: number[];
  knobs: OutcomeKnobs;
  outcomes: OutcomeSeed[];
  mean: Record<OutcomeArm, ArmScore>;
  diffs: Record<'night − scoped notepad (= night − its start)' | 'night − corrections verbatim' | 'night − oracle' | 'night − empty' | 'night − night without outcome evidence' | 'gate on − gate off', PairedCI>;
  /** per kind: night − notepad */
  perKindVsNotepad: Record<PrefKind, PairedCI>;
}

export async function runOutcomes(seeds: number[], knobs: OutcomeKnobs, onSeed?: (seed: number) => void): Promise<OutcomeReport> {
  const outcomes: OutcomeSeed[] = [];
  for (const seed of seeds) {
    onSeed?.(seed);
    outcomes.push(await runOutcomeSeed(seed, knobs));
  }
  const col = (arm: OutcomeArm, kind?: PrefKind) => outcomes.map((o) => (kind ? o.scores[arm].perKind[kind] : o.scores[arm].overall));
  const prefIds = OUTCOME_JOBS.flatMap((j) => j.prefs.map((p) => p.id));
  const avg = (arm: OutcomeArm): ArmScore => ({
    overall: mean(col(arm)),
    perKind: Object.fromEntries(PREF_KINDS.map((k) => [k, mean(col(arm, k))])) as Record<PrefKind, number>,
    perPref: Object.fromEntries(prefIds.map((id) => [id, mean(outcomes.map((o) => o.scores[arm].perPref[id] ?? 0))])),
  });
  return {
    seeds,
    knobs,
    outcomes,
    mean: Object.fromEntries(OUTCOME_ARMS.map((a) => [a, avg(a)])) as Record<OutcomeArm, ArmScore>,
    diffs: {
      'night − scoped notepad (= night − its start)': pairedBootstrap(col('night'), col('scoped notepad (night start)')),
      'night − corrections verbatim': pairedBootstrap(col('night'), col('corrections verbatim')),
      'night − oracle': pairedBootstrap(col('night'), col('oracle')),
      'night − empty': pairedBootstrap(col('night'), col('empty skill')),
      'night − night without outcome evidence': pairedBootstrap(col('night'), col('night, no outcome evidence')),
      'gate on − gate off': pairedBootstrap(col('night'), col('night, gate off')),
    },
    perKindVsNotepad: Object.fromEntries(PREF_KINDS.map((k) => [k, pairedBootstrap(col('night', k), col('scoped notepad (night start)', k))])) as Record<PrefKind, PairedCI>,
  };
}

/** Hidden-test points (score × 100) the night adds over `base`, per 100k tokens the night used. */
export function pointsPer100k(r: OutcomeReport, base: OutcomeArm): number {
  const tokens = mean(r.outcomes.map((o) => o.night.tokens));
  return tokens > 0 ? ((r.mean.night.overall - r.mean[base].overall) * 100) / (tokens / 100_000) : NaN;
}

export function printOutcomes(r: OutcomeReport, out: NodeJS.WritableStream = process.stderr): void {
  const o0 = r.outcomes[0];
  const k = r.knobs;
  out.write(
    `\nOUTCOME WORLD (issue 41): transcripts + real git repositories → harvest → mine → night (sim, every role) → staged skills on hidden instances no transcript or commit holds\n` +
      `  world: ${OUTCOME_JOBS.length} jobs in ${OUTCOME_PROJECTS.length} projects, ${o0?.mined.sessions ?? 0} sessions and ${o0?.mined.commits ?? 0} commits per seed; knobs ${JSON.stringify(k)}; sim compliance by wording ${JSON.stringify(OUTCOME_COMPLIANCE)}; seeds ${r.seeds[0]}..${r.seeds.at(-1)} (${r.seeds.length})\n`,
  );
  const w = 32;
  out.write(`  ${'arm'.padEnd(w)} ${'test'.padStart(6)}  ${PREF_KINDS.map((x) => x.padStart(12)).join(' ')}\n`);
  for (const arm of OUTCOME_ARMS) out.write(`  ${arm.padEnd(w)} ${f3(r.mean[arm].overall).padStart(6)}  ${PREF_KINDS.map((x) => f3(r.mean[arm].perKind[x]).padStart(12)).join(' ')}\n`);
  for (const [name, c] of Object.entries(r.diffs)) out.write(`  ${name.padEnd(46)} ${ci(c)}\n`);
  out.write(`  night − notepad per kind: ${PREF_KINDS.map((x) => `${x} ${ci(r.perKindVsNotepad[x])}`).join('; ')}\n`);
  const shown: OutcomeArm[] = ['empty skill', 'scoped notepad (night start)', 'night', 'night, gate off', 'oracle'];
  out.write(`  per preference (${shown.join(' | ')}):\n`);
  for (const job of OUTCOME_JOBS) for (const p of job.prefs) out.write(`    ${`${p.id} (${p.kind})`.padEnd(44)} ${shown.map((a) => f3(r.mean[a].perPref[p.id] ?? 0)).join(' | ')}\n`);
  const n = r.outcomes.length;
  const count = (arm: keyof OutcomeSeed['stale'], what: 'superseded' | 'oneOff') => r.outcomes.filter((o) => (what === 'oneOff' ? o.stale[arm].oneOff : o.stale[arm].superseded.length > 0)).length;
  out.write(`  superseded values in shipped skills: night ${count('night', 'superseded')} of ${n}, notepad ${count('scoped notepad (night start)', 'superseded')} of ${n}, verbatim ${count('corrections verbatim', 'superseded')} of ${n}\n`);
  out.write(`  one-off asks in shipped skills:      night ${count('night', 'oneOff')} of ${n}, notepad ${count('scoped notepad (night start)', 'oneOff')} of ${n}, verbatim ${count('corrections verbatim', 'oneOff')} of ${n}\n`);
  const tokens = mean(r.outcomes.map((o) => o.night.tokens));
  out.write(`  tokens per night ${tokens.toFixed(0)} (calls ${mean(r.outcomes.map((o) => o.night.calls)).toFixed(0)}); points per 100k tokens: over empty ${pointsPer100k(r, 'empty skill').toFixed(2)}, over the notepad ${pointsPer100k(r, 'scoped notepad (night start)').toFixed(2)}\n`);
  out.write(`  mined per seed: ${mean(r.outcomes.map((o) => o.mined.tasks)).toFixed(1)} tasks, ${mean(r.outcomes.map((o) => o.mined.kept)).toFixed(1)} kept outcomes, ${mean(r.outcomes.map((o) => o.mined.procedures)).toFixed(1)} procedures; staged ${mean(r.outcomes.map((o) => o.night.staged)).toFixed(1)} skills; CPU ${(mean(r.outcomes.map((o) => o.cpuMs)) / 1000).toFixed(1)} s per seed; load ${os.loadavg()[0]!.toFixed(1)}\n`);
}

export function outcomeRows(r: OutcomeReport): BenchResult[] {
  const rows: BenchResult[] = [];
  for (const arm of OUTCOME_ARMS) {
    rows.push({ name: `outcomes: ${arm}`, value: r.mean[arm].overall, unit: 'score' });
    for (const kind of PREF_KINDS) rows.push({ name: `outcomes: ${arm}, ${kind}`, value: r.mean[arm].perKind[kind], unit: 'score' });
  }
  const d = r.diffs;
  const row = (name: string, c: PairedCI, target?: string, pass?: boolean): BenchResult => ({ name: `outcomes: ${name}`, value: c.diff, unit: 'Δ', ci: [c.lo, c.hi], ...(target ? { target, pass } : {}) });
  const notepad = d['night − scoped notepad (= night − its start)'];
  rows.push(row('night − scoped notepad (= night − its start)', notepad, '≥ +0.10, CI low > +0.05', notepad.diff >= 0.1 && notepad.lo > 0.05));
  rows.push(row('night − oracle', d['night − oracle'], '≥ −0.03', d['night − oracle'].diff >= -0.03));
  rows.push(row('night − corrections verbatim', d['night − corrections verbatim']));
  rows.push(row('night − empty', d['night − empty']));
  rows.push(row('night − night without outcome evidence', d['night − night without outcome evidence']));
  rows.push(row('gate on − gate off', d['gate on − gate off'], 'CI low > 0', d['gate on − gate off'].lo > 0));
  for (const kind of ['silent', 'procedural'] as const) rows.push({ name: `outcomes: night, ${kind}`, value: r.mean.night.perKind[kind], unit: 'score', target: '≥ 0.70', pass: r.mean.night.perKind[kind] >= 0.7 });
  const n = r.outcomes.length;
  const superseded = r.outcomes.filter((o) => o.stale.night.superseded.length > 0).length;
  const oneOff = r.outcomes.filter((o) => o.stale.night.oneOff).length;
  rows.push({ name: `outcomes: shipped skills with a superseded value (of ${n})`, value: superseded, unit: 'seeds', target: '0', pass: superseded === 0 });
  rows.push({ name: `outcomes: shipped skills with a one-off ask (of ${n})`, value: oneOff, unit: 'seeds', target: '0', pass: oneOff === 0 });
  rows.push({ name: 'outcomes: tokens per night', value: mean(r.outcomes.map((o) => o.night.tokens)), unit: 'tokens' });
  rows.push({ name: 'outcomes: points over empty per 100k tokens', value: pointsPer100k(r, 'empty skill'), unit: 'points' });
  rows.push({ name: 'outcomes: points over the notepad per 100k tokens', value: pointsPer100k(r, 'scoped notepad (night start)'), unit: 'points' });
  rows.push({ name: 'outcomes: CPU per seed', value: mean(r.outcomes.map((o) => o.cpuMs)) / 1000, unit: 's' });
  return rows;
}

/** `npm run bench -- outcomes [--quick] [--seeds N]`. */
export async function outcomesResults(seeds: number[], quick: boolean): Promise<{ rows: BenchResult[]; report: OutcomeReport }> {
  const knobs = quick ? OUTCOME_QUICK : OUTCOME_DEFAULTS;
  const tty = process.stderr.isTTY;
  const report = await runOutcomes(seeds, knobs, (seed) => {
    if (tty) process.stderr.write(`\r  outcomes, seed ${seed}…`.padEnd(60));
    else process.stderr.write(`  outcomes, seed ${seed}\n`);
  });
  if (tty) process.stderr.write('\r'.padEnd(62) + '\r');
  printOutcomes(report);
  return { rows: outcomeRows(report), report };
}
