/**
 * The end-to-end learning arm, the product's headline figure: generated Claude Code transcripts
 * (e2e-world.ts: five jobs in two projects, paraphrased asks, natural corrections, follow-ups,
 * one-offs) are written into a temporary agent home, then the real pipeline runs on them in
 * process — `runHarvest` into a real SQLite store, `runMining`, `runNight` with the sim backend
 * for every role — and the skills the night STAGED are scored on hidden instances that appear in
 * no transcript, by the sim target (which reads only the skill text) against strict verifiers.
 * Beside it, with the same scorer: the empty skill, the user's corrections pasted verbatim (what
 * a note-taking memory tool writes), and the oracle.
 *
 * An instance of a job in project P is answered with what the agent would load there: the
 * personal learned skill plus P's project skill (for the baselines: P's notes, or the oracle).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb, type Db } from '../src/store/db.js';
import { resolvePaths } from '../src/core/paths.js';
import { defaultConfig, type Config } from '../src/core/config.js';
import { runHarvest } from '../src/harvest/ingest.js';
import { runMining } from '../src/mine/index.js';
import { runNight } from '../src/night/night.js';
import type { NightItemReport } from '../src/night/report.js';
import { DRAFT_EDIT_ID } from '../src/trainer/index.js';
import { listProposals } from '../src/store/repos/proposals.js';
import type { Proposal } from '../src/core/records.js';
import { listTasks } from '../src/store/repos/tasks.js';
import { createSimBackend } from '../src/llm/sim/index.js';
import { scoreSkill } from '../src/replay/index.js';
import { readIfExists } from '../src/core/fsutil.js';
import { ci, f3, mean, pairedBootstrap } from './stats.js';
import { E2E_JOBS, E2E_PROJECTS, e2eCorrectionsVerbatimSkill, e2eHiddenInstances, e2eOracleSkill, e2eSessions, type HiddenInstance, type JobKey } from './e2e-world.js';
import { projectDir, writeE2eTranscripts } from './e2e-transcripts.js';
import type { BenchResult } from './types.js';

export interface E2eSizes {
  /** sessions per job and project it recurs in */
  perProject: number;
  /** hidden test instances per job */
  hiddenPerJob: number;
  /**
   * the night's budget: 'ample' (the headline: every skill of the world can train) or 'default'
   * (the product's defaults: 400 calls, 2M tokens, 60 tasks per night, shared first come)
   */
  budget?: 'ample' | 'default';
  /** budget.maxCalls for the night, over the chosen budget (the budget-fit arm: bench/budget.ts) */
  maxCalls?: number;
  /** the sim judge's share of wrong (schema-valid, score turned around) grades: the judge-fault arm (bench/judge-fault.ts) */
  judgeWrongRate?: number;
  /** training.maxJudgeDisagreement for the night (1 = the judge audit never refuses: the gate alone) */
  maxJudgeDisagreement?: number;
  /** only these jobs of the world (default: all five); the tokens arm's user has three (bench/tokens.ts) */
  jobs?: JobKey[];
  /** budget.maxTokens for the night, over the chosen budget (the tokens arm: bench/tokens.ts) */
  maxTokens?: number;
  /**
   * prompt tokens the sim reports per call beyond what it was sent, as the `claude` CLI adds them
   * (measured from the binary by bench/tokens.ts): the night's budget then counts a night as it
   * would through that CLI (backends.sim.replayOverheadTokens / callOverheadTokens)
   */
  cliOverhead?: { replay: number; call: number };
}

/** Budgets no night of this world reaches (the sim's calls cost nothing). */
export const E2E_AMPLE_BUDGET = { maxCalls: 5000, maxTokens: 20_000_000, maxTasks: 300 };

export const E2E_FULL: E2eSizes = { perProject: 10, hiddenPerJob: 10 };
export const E2E_QUICK: E2eSizes = { perProject: 8, hiddenPerJob: 6 };

export type E2eArmName = 'empty skill' | 'corrections pasted verbatim' | 'night: its start, no optimizer' | 'night (staged skills)' | 'oracle';
/**
 * 'night: its start, no optimizer' is the document each staged skill's training started from (the
 * corrections draft when the gate took it, else the scaffold): night − start is what the
 * optimizer's edits added on top of the notepad.
 */
export const E2E_ARMS: E2eArmName[] = ['empty skill', 'corrections pasted verbatim', 'night: its start, no optimizer', 'night (staged skills)', 'oracle'];
/** the extra row: the same night under the product's default budget */
export const DEFAULT_BUDGET_ROW = 'night, default budget';

export interface E2eSeedOutcome {
  seed: number;
  /** hidden-test score per arm (mean over instances, soft score) */
  scores: Record<E2eArmName, number>;
  /** per job, per arm */
  perJob: Record<JobKey, Record<E2eArmName, number>>;
  /** what the pipeline did */
  pipeline: {
    sessions: number;
    harvestedSessions: number;
    prompts: number;
    tasks: number;
    families: number;
    /** corrections the user typed vs those the mined tasks of their job carry */
    correctionsTyped: number;
    correctionsReachingJudges: number;
    /** correction prompts that became a task of their own */
    correctionsMinedAsAsks: number;
    nightStatus: string;
    /** the night's calls against its budget, and what its budget fit planned, cut and deferred (night/fit.ts) */
    budget: { used: number; maxCalls: number; wantedCalls: number | null; plannedCalls: number | null; plannedTokens: number | null; usedTokens: number; maxTokens: number; limitedBy: string | null; deferred: string[]; cut: string[]; stopBeforeSpending: string | null };
    staged: Array<{ name: string; kind: string; path: string; chars: number }>;
    items: Array<{ name: string; status: string; reason?: string; tasks: string; audit?: { ids: string[]; before: number | null; after: number | null }; judgeAudit?: NightItemReport['judgeAudit'] }>;
    /** tasks of a night's sealed audit slice that a staged proposal shows anyway (must be 0) */
    auditLeaks: number;
    /** staged proposals whose training started from the corrections draft (the gate took it) */
    draftsTaken: number;
  };
  /** the staged skill documents, by target path */
  stagedSkills: Record<string, string>;
  /** the night's model calls per role (its report's tally, cached replies included) and what its budget counted spent */
  calls: { byRole: Record<string, number>; used: { calls: number; tokens: number } };
  /**
   * The night's target replays per phase: the judge audit's (its sample; fresh on a first night),
   * the trainer's fresh replays per stage (its run state's usage), the audit slice's (before and
   * after). Where a night's tokens go with an agent CLI as target (bench tokens).
   */
  targetReplays: Record<string, number>;
  cpuMs: number;
}

/** The target replays per phase of a night's items (see E2eSeedOutcome.targetReplays). */
function targetReplaysOf(items: NightItemReport[], runsDir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (phase: string, n: number) => {
    if (n > 0) out[phase] = (out[phase] ?? 0) + n;
  };
  for (const i of items) {
    add('judge audit', i.judgeAudit?.sampled ?? 0);
    const state = i.trainRunId ? readIfExists(path.join(runsDir, i.trainRunId, 'state.json')) : null;
    const stages = state ? ((JSON.parse(state) as { usage?: Record<string, { replays?: number }> }).usage ?? {}) : {};
    for (const [stage, u] of Object.entries(stages)) add(stage, u.replays ?? 0);
    // the slice under the starting and the staged skill (one replay each a task; the same skill twice is one)
    if (i.audit && i.audit.after !== null) add('audit slice', i.audit.ids.length * 2);
  }
  return out;
}

/** The body of a skill file (what follows its frontmatter). */
export function skillBody(doc: string): string {
  const m = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/.exec(doc);
  return m ? doc.slice(m[0].length) : doc;
}

/** A sandboxed environment under `root`: every home the product or an agent reads lives there. */
export function sandboxEnv(root: string): NodeJS.ProcessEnv {
  const home = path.join(root, 'home');
  return {
    HOME: home,
    USERPROFILE: home,
    SKILLOPT_SLEEP_HOME: path.join(root, 'skillopt-sleep'),
    // where Claude Code keeps its files by default (the personal skill lives under it)
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    CODEX_HOME: path.join(root, 'agents', 'codex'),
    COPILOT_HOME: path.join(root, 'agents', 'copilot'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    APPDATA: path.join(home, 'AppData', 'Roaming'),
    PATH: path.dirname(process.execPath),
  };
}

/** Sets these variables in process.env; returns the function that puts the old values back. */
export function withProcessEnv(vars: NodeJS.ProcessEnv): () => void {
  const old = new Map<string, string | undefined>();
  for (const [k, v] of Object.entries(vars)) {
    if (k === 'PATH') continue;
    old.set(k, process.env[k]);
    process.env[k] = v;
  }
  return () => {
    for (const [k, v] of old) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

function e2eConfig(seed: number, budget: 'ample' | 'default', judge: Pick<E2eSizes, 'judgeWrongRate' | 'maxJudgeDisagreement' | 'maxCalls' | 'maxTokens' | 'cliOverhead'> = {}): Config {
  const c = defaultConfig();
  if (judge.judgeWrongRate) c.backends.sim.judgeWrongRate = judge.judgeWrongRate;
  if (judge.maxJudgeDisagreement !== undefined) c.training.maxJudgeDisagreement = judge.maxJudgeDisagreement;
  for (const role of Object.keys(c.roles) as Array<keyof Config['roles']>) c.roles[role].backend = 'sim';
  c.backends.sim.seed = seed;
  c.training.seed = seed;
  // the sim's calls cost nothing, but the night counts them: under the default budget the first
  // skill spends most of it and the last ones are starved (printed beside the headline as its own row)
  if (budget === 'ample') Object.assign(c.budget, E2E_AMPLE_BUDGET);
  if (judge.maxCalls !== undefined) c.budget.maxCalls = judge.maxCalls;
  if (judge.maxTokens !== undefined) c.budget.maxTokens = judge.maxTokens;
  if (judge.cliOverhead) Object.assign(c.backends.sim, { replayOverheadTokens: judge.cliOverhead.replay, callOverheadTokens: judge.cliOverhead.call });
  return c;
}

/** Scores one skill per project on that project's hidden instances; per-instance soft scores. */
async function scoreArm(hidden: HiddenInstance[], skillFor: (project: string) => string, seed: number): Promise<Map<string, number>> {
  // the scorer is its own backend: it shares no draws or counts with the night
  const tester = createSimBackend({ seed: seed + 10_000, role: 'target' });
  const out = new Map<string, number>();
  for (const project of E2E_PROJECTS) {
    const tasks = hidden.filter((h) => h.project === project).map((h) => h.task);
    if (!tasks.length) continue;
    const scored = await scoreSkill({ tasks, skill: { name: 'learned', content: skillFor(project) }, target: tester, judge: tester, metric: 'soft' });
    for (const t of scored.perTask) out.set(t.taskId, t.score);
  }
  return out;
}


function pipelineCounts(db: Db, sessions: ReturnType<typeof e2eSessions>): Pick<E2eSeedOutcome['pipeline'], 'tasks' | 'families' | 'correctionsTyped' | 'correctionsReachingJudges' | 'correctionsMinedAsAsks'> {
  const tasks = listTasks(db, { status: 'active' });
  const typed = new Set<string>();
  for (const s of sessions) for (const t of s.turns) if (t.label.kind === 'correction') typed.add(t.prompt);
  const carried = new Set(tasks.flatMap((t) => t.corrections));
  const asAsks = new Set(tasks.map((t) => t.intent.trim()).filter((i) => typed.has(i)));
  return {
    tasks: tasks.length,
    families: new Set(tasks.map((t) => t.family ?? t.id)).size,
    correctionsTyped: typed.size,
    correctionsReachingJudges: [...typed].filter((c) => carried.has(c)).length,
    correctionsMinedAsAsks: asAsks.size,
  };
}

/** Audit-slice tasks a proposal shows (its per-task scores or its evidence): what the review reads. */
function auditLeaks(auditIds: string[], staged: Proposal[]): number {
  const read = (dir: string, file: string) => (fs.existsSync(path.join(dir, file)) ? fs.readFileSync(path.join(dir, file), 'utf8') : '');
  const shown = staged.map((p) => JSON.stringify(p.perTask) + read(p.dir, 'evidence.jsonl') + read(p.dir, 'report.json') + read(p.dir, 'report.md'));
  return auditIds.filter((id) => shown.some((text) => text.includes(id))).length;
}

/** One seed: transcripts → harvest → mine → night → staged skills scored on hidden instances. */
export async function runE2eSeed(seed: number, sizes: E2eSizes = E2E_FULL): Promise<E2eSeedOutcome> {
  const cpu0 = process.cpuUsage();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sos-e2e-'));
  let restoreEnv = () => {};
  try {
    const env = sandboxEnv(root);
    // the night derives every target from its own env; process.env is set too so that nothing the
    // bench calls outside the night (a default env anywhere) can reach the real user's homes
    restoreEnv = withProcessEnv(env);
    const homes = { claudeConfigDir: env.CLAUDE_CONFIG_DIR!, projectsRoot: path.join(env.HOME!, 'src') };
    const jobs = sizes.jobs ? E2E_JOBS.filter((j) => sizes.jobs!.includes(j.key)) : E2E_JOBS;
    const sessions = e2eSessions(seed, sizes.perProject, jobs);
    const now = Date.UTC(2026, 10, 20, 12);
    writeE2eTranscripts(sessions, seed, homes, now);
    const paths = resolvePaths({ env });
    fs.mkdirSync(paths.stateDir, { recursive: true });
    const db = openDb(paths.database);
    try {
      const config = e2eConfig(seed, sizes.budget ?? 'ample', sizes);
      const harvest = await runHarvest(db, config, { env, agents: ['claude-code'], workers: 0, stateDir: paths.stateDir });
      if (harvest.errors.length) throw new Error(`e2e harvest failed: ${harvest.errors.map((e) => `${e.file}: ${e.message}`).join('; ')}`);
      const mined = await runMining(db, config, { now });
      // the night's clock is pinned to the world's day (time still passes): the sealed audit slice
      // rotates by UTC day, and an unpinned clock made the headline figure change from one day to the next
      const nightStart = now + 14 * 3_600_000;
      const realStart = Date.now();
      const clock = { now: () => nightStart + (Date.now() - realStart) };
      const night = await runNight(db, paths, config, { env, skipHarvest: true, clock });
      const staged = listProposals(db, { nightId: night.id });
      const stagedSkills: Record<string, string> = {};
      for (const p of staged) stagedSkills[p.skillTarget.path] = skillBody(p.candidate);
      // a target inside a project's checkout is that project's skill; any other is the personal one
      const inProject = (file: string, project: string) => file.startsWith(projectDir(homes, project) + path.sep);
      const personal = staged.filter((p) => !E2E_PROJECTS.some((pr) => inProject(p.skillTarget.path, pr))).map((p) => skillBody(p.candidate));
      const projectSkill = (project: string) => staged.filter((p) => inProject(p.skillTarget.path, project)).map((p) => skillBody(p.candidate));
      const nightSkill = (project: string) => [...personal, ...projectSkill(project)].join('\n\n');
      // the first skill of each staged proposal's training run: what the optimizer started from
      const startOf = (p: Proposal) => skillBody(p.runId ? (readIfExists(path.join(paths.runsDir, p.runId, 'skills', 'skill_v0000.md')) ?? '') : '');
      const trainingStart = (project: string) =>
        staged
          .filter((p) => inProject(p.skillTarget.path, project) || !E2E_PROJECTS.some((pr) => inProject(p.skillTarget.path, pr)))
          .map(startOf)
          .join('\n\n');

      const hidden = e2eHiddenInstances(seed, sizes.hiddenPerJob, jobs);
      const skills: Record<E2eArmName, (project: string) => string> = {
        'empty skill': () => '',
        'corrections pasted verbatim': (project) => e2eCorrectionsVerbatimSkill(sessions, project),
        'night: its start, no optimizer': trainingStart,
        'night (staged skills)': nightSkill,
        oracle: () => e2eOracleSkill(),
      };
      const scores = {} as Record<E2eArmName, number>;
      const perJob = Object.fromEntries(E2E_JOBS.map((j) => [j.key, {}])) as Record<JobKey, Record<E2eArmName, number>>;
      for (const arm of E2E_ARMS) {
        const per = await scoreArm(hidden, skills[arm], seed);
        scores[arm] = mean(hidden.map((h) => per.get(h.task.id) ?? 0));
        for (const j of E2E_JOBS) perJob[j.key][arm] = mean(hidden.filter((h) => h.job === j.key).map((h) => per.get(h.task.id) ?? 0));
      }
      const cpu = process.cpuUsage(cpu0);
      return {
        seed,
        scores,
        perJob,
        pipeline: {
          sessions: sessions.length,
          harvestedSessions: harvest.sessions,
          prompts: mined.prompts,
          ...pipelineCounts(db, sessions),
          nightStatus: night.status,
          budget: {
            used: night.used.calls,
            maxCalls: config.budget.maxCalls,
            wantedCalls: night.budgetPlan?.wanted.calls ?? null,
            plannedCalls: night.budgetPlan?.planned.calls ?? null,
            plannedTokens: night.budgetPlan?.planned.tokens ?? null,
            usedTokens: night.used.tokens,
            maxTokens: config.budget.maxTokens,
            limitedBy: night.budgetPlan?.limitedBy ?? null,
            deferred: night.budgetPlan?.deferred.map((d) => `${d.target} (${d.tasks} tasks)`) ?? [],
            // train/val/test×epochs each trained skill wanted → got (the tasks left out wait for later nights)
            cut: (night.budgetPlan?.trained ?? []).map((t) => `${t.wanted.train}/${t.wanted.val}/${t.wanted.test}×${t.wanted.epochs}→${t.planned.train}/${t.planned.val}/${t.planned.test}×${t.planned.epochs}`),
            stopBeforeSpending: night.budgetPlan?.stopBeforeSpending ?? null,
          },
          staged: staged.map((p) => ({ name: p.skillTarget.name, kind: p.skillTarget.kind, path: p.skillTarget.path, chars: p.candidate.length })),
          items: night.items.map((i) => ({ name: i.target.name, status: i.status, reason: i.reason, tasks: `${i.tasks.train}/${i.tasks.val}/${i.tasks.test}`, ...(i.audit ? { audit: { ids: i.audit.ids, before: i.audit.before, after: i.audit.after } } : {}), ...(i.judgeAudit ? { judgeAudit: i.judgeAudit } : {}) })),
          auditLeaks: auditLeaks(night.items.flatMap((i) => i.audit?.ids ?? []), staged),
          draftsTaken: staged.filter((p) => p.edits.some((e) => e.id.startsWith(DRAFT_EDIT_ID))).length,
        },
        stagedSkills,
        calls: { byRole: Object.fromEntries(Object.entries(night.modelCalls?.byRole ?? {}).map(([role, t]) => [role, t.calls])), used: { calls: night.used.calls, tokens: night.used.tokens } },
        targetReplays: targetReplaysOf(night.items, paths.runsDir),
        cpuMs: (cpu.user + cpu.system) / 1000,
      };
    } finally {
      db.close();
    }
  } finally {
    restoreEnv();
    if (process.env.SOS_E2E_KEEP) process.stderr.write(`e2e sandbox kept: ${root}\n`);
    else fs.rmSync(root, { recursive: true, force: true });
  }
}


export interface E2eReport {
  seeds: number[];
  outcomes: E2eSeedOutcome[];
  /** the same seeds' nights under the product's default budget (absent when not run) */
  defaultBudget?: E2eSeedOutcome[];
  mean: Record<E2eArmName, number>;
  nightVsVerbatim: { diff: number; lo: number; hi: number };
  nightVsOracle: { diff: number; lo: number; hi: number };
  nightVsEmpty: { diff: number; lo: number; hi: number };
  /** what the optimizer's edits added to the document training started from */
  nightVsStart: { diff: number; lo: number; hi: number };
}

export async function runE2e(seeds: number[], sizes: E2eSizes, onSeed?: (seed: number) => void, withDefaultBudget = true): Promise<E2eReport> {
  const outcomes: E2eSeedOutcome[] = [];
  const defaults: E2eSeedOutcome[] = [];
  for (const seed of seeds) {
    onSeed?.(seed);
    outcomes.push(await runE2eSeed(seed, { ...sizes, budget: 'ample' }));
    if (withDefaultBudget) defaults.push(await runE2eSeed(seed, { ...sizes, budget: 'default' }));
  }
  const col = (arm: E2eArmName) => outcomes.map((o) => o.scores[arm]);
  return {
    seeds,
    outcomes,
    ...(withDefaultBudget ? { defaultBudget: defaults } : {}),
    mean: Object.fromEntries(E2E_ARMS.map((a) => [a, mean(col(a))])) as Record<E2eArmName, number>,
    nightVsVerbatim: pairedBootstrap(col('night (staged skills)'), col('corrections pasted verbatim')),
    nightVsOracle: pairedBootstrap(col('night (staged skills)'), col('oracle')),
    nightVsEmpty: pairedBootstrap(col('night (staged skills)'), col('empty skill')),
    nightVsStart: pairedBootstrap(col('night (staged skills)'), col('night: its start, no optimizer')),
  };
}


/** The report the train bench prints first. */
export function printE2e(r: E2eReport, sizes: E2eSizes, out: NodeJS.WritableStream = process.stderr): void {
  const o0 = r.outcomes[0];
  out.write(
    `\nEND TO END (the headline): generated Claude Code transcripts → harvest → mine → night (sim, every role) → the STAGED skills, scored on hidden instances no transcript holds\n` +
      `  world: ${E2E_JOBS.length} jobs in ${E2E_PROJECTS.length} projects, ${o0?.pipeline.sessions ?? 0} sessions per seed (${sizes.perProject} per job and project, follow-ups, praise, one-offs), ${sizes.hiddenPerJob} hidden instances per job; seeds ${r.seeds[0]}..${r.seeds.at(-1)}; strict verifiers, soft score\n`,
  );
  const w = 30;
  out.write(`  ${'arm'.padEnd(w)} ${'test'.padStart(6)}  ${E2E_JOBS.map((j) => j.key.padStart(9)).join(' ')}\n`);
  for (const arm of E2E_ARMS) {
    const perJob = E2E_JOBS.map((j) => f3(mean(r.outcomes.map((o) => o.perJob[j.key][arm]))).padStart(9)).join(' ');
    out.write(`  ${arm.padEnd(w)} ${f3(r.mean[arm]).padStart(6)}  ${perJob}\n`);
  }
  if (r.defaultBudget) {
    const d = r.defaultBudget;
    const perJob = E2E_JOBS.map((j) => f3(mean(d.map((o) => o.perJob[j.key]['night (staged skills)']))).padStart(9)).join(' ');
    out.write(`  ${DEFAULT_BUDGET_ROW.padEnd(w)} ${f3(mean(d.map((o) => o.scores['night (staged skills)']))).padStart(6)}  ${perJob}   (budget.maxCalls 400, maxTokens 2M, maxTasks 60; the rows above: ${E2E_AMPLE_BUDGET.maxCalls} calls, ${E2E_AMPLE_BUDGET.maxTokens / 1e6}M tokens, ${E2E_AMPLE_BUDGET.maxTasks} tasks)\n`);
    const starved = d.flatMap((o) => o.pipeline.items).filter((i) => i.status === 'stopped').length;
    out.write(`    under the default budget ${starved} of ${d.flatMap((o) => o.pipeline.items).length} skills were stopped (each skill trains on a fair share of what remains of the night's budget)\n`);
  }
  out.write(`  night − corrections verbatim: ${ci(r.nightVsVerbatim)}   (target ≥ +0.05, CI lower bound above it)\n`);
  out.write(`  night − oracle:               ${ci(r.nightVsOracle)}   (target within 0.05)\n`);
  out.write(`  night − empty:                ${ci(r.nightVsEmpty)}\n`);
  out.write(`  night − its start:            ${ci(r.nightVsStart)}   (what the optimizer's edits added on top of the corrections draft)\n`);
  out.write(`  per seed (night | verbatim): ${r.outcomes.map((o) => `${f3(o.scores['night (staged skills)'])}|${f3(o.scores['corrections pasted verbatim'])}`).join(' ')}\n`);
  const p = (k: keyof E2eSeedOutcome['pipeline']) => mean(r.outcomes.map((o) => Number(o.pipeline[k])));
  out.write(
    `  pipeline (mean per seed): ${p('harvestedSessions').toFixed(0)} sessions harvested, ${p('tasks').toFixed(0)} tasks in ${p('families').toFixed(1)} families; ` +
      `corrections typed ${p('correctionsTyped').toFixed(1)}, reaching a judge ${p('correctionsReachingJudges').toFixed(1)}, mined as asks ${p('correctionsMinedAsAsks').toFixed(1)}; ` +
      `staged skills ${mean(r.outcomes.map((o) => o.pipeline.staged.length)).toFixed(1)} (${r.outcomes.reduce((n, o) => n + o.pipeline.draftsTaken, 0)} of ${r.outcomes.reduce((n, o) => n + o.pipeline.staged.length, 0)} trained from the corrections draft); CPU ${(mean(r.outcomes.map((o) => o.cpuMs)) / 1000).toFixed(1)} s per seed\n`,
  );
  const unstaged = r.outcomes.filter((o) => o.pipeline.staged.length === 0);
  if (unstaged.length) out.write(`  seeds whose night staged nothing: ${unstaged.map((o) => `${o.seed} (${o.pipeline.nightStatus}: ${o.pipeline.items.map((i) => `${i.name} ${i.status}${i.reason ? ` — ${i.reason}` : ''}`).join('; ')})`).join(', ')}\n`);
}

/**
 * The train bench's hook: runs the arm (E2E_QUICK sizes with `--quick`), prints it, and returns
 * its figures with the issue's targets (night ≥ verbatim + 0.05 with the CI lower bound above it;
 * within 0.05 of the oracle).
 */
export async function e2eResults(seeds: number[], quick: boolean): Promise<BenchResult[]> {
  const sizes = quick ? E2E_QUICK : E2E_FULL;
  const tty = process.stderr.isTTY;
  const t0 = Date.now();
  const r = await runE2e(seeds, sizes, (seed) => {
    if (tty) process.stderr.write(`\r  end to end, seed ${seed}…`.padEnd(70));
  });
  if (tty) process.stderr.write('\r'.padEnd(72) + '\r');
  printE2e(r, sizes);
  return [
    { name: 'e2e: hidden test, empty skill', value: r.mean['empty skill'], unit: 'score' },
    { name: 'e2e: hidden test, corrections verbatim', value: r.mean['corrections pasted verbatim'], unit: 'score' },
    { name: 'e2e: hidden test, night (staged)', value: r.mean['night (staged skills)'], unit: 'score' },
    { name: 'e2e: hidden test, oracle', value: r.mean.oracle, unit: 'score' },
    { name: 'e2e: night − verbatim, CI low', value: r.nightVsVerbatim.lo, unit: 'score', target: '> +0.05', pass: r.nightVsVerbatim.lo > 0.05 },
    { name: 'e2e: oracle − night', value: -r.nightVsOracle.diff, unit: 'score', target: '≤ 0.05', pass: -r.nightVsOracle.diff <= 0.05 },
    ...(r.defaultBudget ? [{ name: 'e2e: hidden test, night at the default budget', value: mean(r.defaultBudget.map((o) => o.scores['night (staged skills)'])), unit: 'score' }] : []),
    { name: 'e2e: wall time', value: (Date.now() - t0) / 1000, unit: 's' },
  ];
}
