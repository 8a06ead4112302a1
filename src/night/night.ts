/**
 * One night: incremental harvest → mine → plan (which skills, which tasks) → budget forecast →
 * train each target under the night's budgets → stage what passed the gate → report.
 *
 * Guarantees: one night at a time (the `night` lease; a second one says who holds it); nothing is
 * staged from a thin or unsafe night (too few validation tasks, leaked splits, no backend) and the
 * report says why and what is needed; a night that runs out of budget or time stops cleanly and
 * stages only what passed the gate; every night leaves a report (a `runs` row of kind 'night' and
 * `runs/<id>/night-report.{md,json}`), including one that crashed (marked aborted next time).
 * Live skill files are never written here, except by the opt-in `autoApply` through `apply`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import { withBackendForEveryRole, type Config } from '../core/config.js';
import type { RoleBackends } from '../core/protocol.js';
import type { SkillTarget, Task } from '../core/records.js';
import { systemClock, type Clock } from '../core/clock.js';
import { silentProgress, type Progress } from '../core/progress.js';
import { errorMessage, isSleepError } from '../core/errors.js';
import { ensurePrivateDir, readIfExists, writeFileAtomic } from '../core/fsutil.js';
import { newId } from '../core/ids.js';
import { acquireLease, releaseLease, renewLease } from '../store/repos/leases.js';
import { kvGet, kvSet } from '../store/repos/kv.js';
import { createRun, listRuns, updateRun } from '../store/repos/runs.js';
import { listTasks } from '../store/repos/tasks.js';
import { budgetFromConfig, type BudgetTracker, type Spend } from '../llm/budget.js';
import { CHARS_PER_TOKEN, estimateCall, FALLBACK_PRICE, FREE, priceFor } from '../llm/pricing.js';
import { measuredCallOverhead, type CallOverhead } from '../llm/ledger.js';
import { createRoleBackends } from '../llm/registry.js';
import { drainWorkspacePools } from '../llm/workspace-pool.js';
import { followMovedRepos } from './follow-moved-repos.js';
import { runHarvest } from '../harvest/ingest.js';
import { agentNotices } from '../harvest/agent-moves.js';
import { runMining } from '../mine/index.js';
import { discoverSkills, managedSkillTarget, personalManagedSkillTarget } from '../../adapters/skills-registry.js';
import { forecastCalls, planNight, type ForecastCall, type PlanItem, type TaskSets } from './plan.js';
import { fitPlanToBudget } from './fit.js';
import { renderNightReport, summarizeNight, type NightItemReport, type NightReport } from './report.js';
import { recoverInterrupted } from '../proposals/recover.js';
import { describeBackends, trainItem, CLI_BACKENDS } from './item.js';
import { InfraGuard, MAX_FAILED_CALL_SHARE } from './infra-guard.js';
import { describeOrphan, setAsideOrphans } from './orphans.js';

export const NIGHT_LEASE = 'night';
const LEASE_TTL_MS = 10 * 60_000;

export interface NightOptions {
  dryRun?: boolean;
  /** only this project (absolute path) */
  project?: string;
  /** only this skill (resolved target) */
  skill?: SkillTarget;
  /** the `--skill <path>` the user typed (an allowed write target for that file only) */
  userSkillPath?: string;
  /** override every role's backend (`--backend`) */
  backend?: Config['roles']['target']['backend'];
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  signal?: AbortSignal;
  progress?: Progress;
  /** skip harvest/mine (tests, or the daemon when it just did both) */
  skipHarvest?: boolean;
}

const usesSim = (c: Config) => Object.values(c.roles).some((r) => r.backend === 'sim');

function closeInterruptedNights(db: Db, paths: SleepPaths, ourId: string): string[] {
  const out: string[] = [];
  for (const r of listRuns(db, { kind: 'night', limit: 20 })) {
    if (r.status !== 'running' || r.id === ourId) continue;
    const record = { ...r.record, status: 'aborted', summary: 'interrupted: the process ended before the night finished; nothing from it was staged after that point' };
    updateRun(db, r.id, { status: 'aborted', endedAt: Date.now(), record });
    const dir = r.dir ?? path.join(paths.runsDir, r.id);
    try {
      const prev = JSON.parse(fs.readFileSync(path.join(dir, 'night-report.json'), 'utf8')) as NightReport;
      const rep: NightReport = { ...prev, status: 'aborted', summary: String(record.summary), endedAt: prev.endedAt ?? new Date().toISOString() };
      writeFileAtomic(path.join(dir, 'night-report.json'), JSON.stringify(rep, null, 2) + '\n');
      writeFileAtomic(path.join(dir, 'night-report.md'), renderNightReport(rep));
    } catch {
      /* no report was written yet */
    }
    out.push(`night ${r.id} had been interrupted; marked aborted`);
  }
  return out;
}

function itemSkeleton(item: PlanItem): NightItemReport {
  const ids = (ts: Task[]) => ts.map((t) => t.id);
  return {
    target: { name: item.target.name, path: item.target.path, kind: item.target.kind, readBy: item.target.readBy },
    project: item.project,
    routedBy: item.routedBy,
    tasks: {
      train: item.tasks.train.length,
      val: item.tasks.val.length,
      test: item.tasks.test.length,
      ids: { train: ids(item.tasks.train), val: ids(item.tasks.val), test: ids(item.tasks.test) },
    },
    status: item.skip ? 'skipped' : 'not_improved',
    ...(item.skip ? { reason: item.skip.reason, needed: item.skip.needed } : {}),
  };
}

/**
 * A reply's tokens as the forecast counts them: a typical reply with room to spare, not the
 * maximum a call may return (counted at the maximum, 1,200 and 2,000, the three-job user's forecast
 * was 1.6× the tokens its night spent). A replay answers in a few hundred tokens, a grade in a
 * short JSON; the optimizer may return a whole rewritten skill. What a night really spends is
 * held by the runtime budget, call by call.
 */
const FORECAST_REPLY_TOKENS = { rollout: 600, judge: 300, optimizer: 2000 } as const;

/**
 * The night's forecaster: the calls one target's training would make with given tasks and epochs,
 * priced for the role's backend. Agent CLIs wrap each prompt in their own system prompt, tools and
 * file reads: count what they added per call as measured in the ledger (else the built-in figure),
 * and on an API key what a call cost them; a subscription spends no API dollars.
 */
function nightForecaster(db: Db, config: Config, backends: RoleBackends | null) {
  const price = (role: 'target' | 'optimizer') => {
    const b = backends?.[role];
    if (!b || b.name === 'sim' || CLI_BACKENDS.includes(b.name)) return FREE;
    return priceFor(b.model) ?? FALLBACK_PRICE;
  };
  const overheads: Partial<Record<'target' | 'optimizer', CallOverhead>> = {};
  for (const role of ['target', 'optimizer'] as const) {
    if (backends && CLI_BACKENDS.includes(backends[role].name)) overheads[role] = measuredCallOverhead(db, backends[role].name, role);
    // a benchmark's sim that reports an agent CLI's overhead (backends.sim.*OverheadTokens) is forecast like that CLI
    const simOverhead = role === 'target' ? config.backends.sim.replayOverheadTokens : config.backends.sim.callOverheadTokens;
    if (backends?.[role].name === 'sim' && simOverhead) overheads[role] = { tokens: simOverhead, usdPerCall: 0, calls: 0, source: 'default' };
  }
  const callsFor = (item: PlanItem, tasks: TaskSets, epochs: number): ForecastCall[] =>
    forecastCalls(tasks, {
      epochs,
      batchSize: config.training.batchSize,
      lr: config.training.lr,
      attributionMaxEdits: config.training.attributionMaxEdits,
      skillChars: (readIfExists(item.target.path) ?? '').length + 400,
      estimate: (kind, chars) => {
        const role = kind === 'rollout' ? 'target' : 'optimizer'; // the judge is priced like the optimizer
        const o = overheads[role];
        const e = estimateCall(price(role), chars + (o ? o.tokens * CHARS_PER_TOKEN : 0), FORECAST_REPLY_TOKENS[kind]);
        return o ? { tokens: e.tokens, usd: e.usd + o.usdPerCall } : e;
      },
    });
  const cost = (item: PlanItem, tasks: TaskSets, epochs: number): Spend =>
    callsFor(item, tasks, epochs).reduce<Spend>((s, c) => ({ usd: s.usd + c.usd, tokens: s.tokens + c.tokens, calls: s.calls + 1 }), { usd: 0, tokens: 0, calls: 0 });
  /** what must still run once training ends: the final skill's test measure (the sealed audit slice among it) */
  const afterTraining = (item: PlanItem): Spend =>
    callsFor(item, item.tasks, item.epochs ?? config.training.epochs)
      .filter((c) => c.phase === 'final test')
      .reduce<Spend>((s, c) => ({ usd: s.usd + c.usd, tokens: s.tokens + c.tokens, calls: s.calls + 1 }), { usd: 0, tokens: 0, calls: 0 });
  const forecast = (items: PlanItem[], budget: BudgetTracker) => ({
    ...budget.forecast(items.filter((i) => !i.skip).flatMap((i) => callsFor(i, i.tasks, i.epochs ?? config.training.epochs))),
    overheads,
  });
  return { cost, forecast, afterTraining };
}

/**
 * No latency is recorded per call yet, so the deadline is fitted with an assumed pace: an agent
 * CLI replay takes tens of seconds, an API call a few, and `concurrency` of them run at once.
 * The deadline is also enforced during training (the trainer stops and the gate still decides).
 */
function assumedMsPerCall(config: Config, backends: RoleBackends | null): number | undefined {
  const b = backends?.target;
  if (!b || b.name === 'sim') return undefined;
  return (CLI_BACKENDS.includes(b.name) ? 30_000 : 8_000) / Math.max(1, config.backends.concurrency ?? 1);
}

/** When each target and each train task was last trained by a night (the budget fit puts the longest-waiting first). */
const TRAINED_KEY = 'night.trained';
interface TrainedRecord {
  targets: Record<string, number>;
  tasks: Record<string, number>;
}
function readTrained(db: Db): TrainedRecord {
  const r = kvGet<TrainedRecord>(db, TRAINED_KEY);
  return { targets: r?.targets ?? {}, tasks: r?.tasks ?? {} };
}
function markTrained(db: Db, item: PlanItem, at: number): void {
  const r = readTrained(db);
  r.targets[item.target.path] = at;
  for (const t of item.tasks.train) r.tasks[t.id] = at;
  kvSet(db, TRAINED_KEY, r, at);
}

/**
 * Too many of the night's model calls failed (every one, or more than MAX_FAILED_CALL_SHARE): the
 * night is `failed`. Skills that ended "not improved" were compared on scores the failures made.
 */
function failOnFailedCalls(report: NightReport, reason: string): void {
  report.status = 'failed';
  if (!report.notes.includes(`failed: ${reason}`)) report.notes.push(`failed: ${reason}`);
  for (const it of report.items) {
    if (it.status === 'not_improved') it.reason = `not judged fairly: ${reason}`;
  }
}

/** A role's backend failed for infrastructure reasons: the night is `failed`, whatever scored 0. */
function failOnInfrastructure(report: NightReport, reason: string): void {
  report.status = 'failed';
  if (!report.notes.includes(`failed: ${reason}`)) report.notes.push(`failed: ${reason}`);
  for (const it of report.items) {
    if (it.status === 'not_improved' || it.status === 'stopped') {
      it.status = 'stopped';
      it.reason = `not trained: ${reason}`;
    }
  }
}

export async function runNight(db: Db, paths: SleepPaths, baseConfig: Config, opts: NightOptions = {}): Promise<NightReport> {
  const clock = opts.clock ?? systemClock;
  const env = opts.env ?? process.env;
  const progress = opts.progress ?? silentProgress;
  const config = withBackendForEveryRole(baseConfig, opts.backend);
  const id = newId('night');
  const holder = `night:${process.pid}:${id}`;
  acquireLease(db, NIGHT_LEASE, holder, LEASE_TTL_MS, { runId: id, dryRun: !!opts.dryRun }, clock.now());
  const heartbeat = setInterval(() => renewLease(db, NIGHT_LEASE, holder, LEASE_TTL_MS), 60_000);
  heartbeat.unref();

  const budget = budgetFromConfig(config.budget, clock);
  const guard = new InfraGuard(opts.signal);
  const dir = path.join(paths.runsDir, id);
  const report: NightReport = {
    schema: 'skillopt-sleep.night.v1',
    id,
    status: 'done',
    dryRun: !!opts.dryRun,
    startedAt: new Date(clock.now()).toISOString(),
    endedAt: null,
    project: opts.project ?? null,
    deadline: budget.limits.deadlineMs ? new Date(budget.limits.deadlineMs).toISOString() : null,
    backends: null,
    harvest: null,
    mining: null,
    forecast: null,
    limits: { ...config.budget },
    used: { usd: 0, tokens: 0, calls: 0 },
    modelCalls: null,
    items: [],
    proposals: [],
    summary: '',
    notes: [],
    recovered: [],
  };
  const persist = () => {
    report.used = budget.used();
    if (report.dryRun) return;
    ensurePrivateDir(dir);
    writeFileAtomic(path.join(dir, 'night-report.json'), JSON.stringify(report, null, 2) + '\n', { mode: 0o600 });
    writeFileAtomic(path.join(dir, 'night-report.md'), renderNightReport(report), { mode: 0o600 });
  };

  try {
    const rec = recoverInterrupted(db, paths, env);
    report.recovered.push(...rec.actions, ...rec.unresolved.map((u) => `unresolved: ${u}`));
    if (!report.dryRun) {
      report.recovered.push(...closeInterruptedNights(db, paths, id));
      createRun(db, { id, kind: 'night', dir, record: { status: 'running', project: report.project }, startedAt: clock.now() });
      persist();
    }

    if (!opts.skipHarvest) {
      try {
        report.harvest = { ...(await runHarvest(db, config, { env, project: opts.project, signal: opts.signal, progress })) };
      } catch (err) {
        if (isSleepError(err) && err.code === 'ABORTED') throw err;
        report.harvest = { error: errorMessage(err) };
        report.notes.push(`harvest failed (${errorMessage(err)}); using the tasks already in the store`);
      }
    }

    // an agent whose users were moved to another (Gemini CLI → Antigravity CLI), and stores that cannot be read
    try {
      for (const n of agentNotices(db, config, env, clock.now())) report.notes.push(n.detail);
    } catch (err) {
      report.notes.push(`could not check the agents' stores (${errorMessage(err)})`);
    }

    // a repository that moved takes its sessions and tasks along (same root commit, new path)
    try {
      const followed = await followMovedRepos(db, clock.now());
      for (const m of followed.moved) report.notes.push(`${m.from} moved to ${m.to} (same repository, first commit ${m.rootCommit.slice(0, 12)}): ${m.tasks} task(s) and ${m.sessions} session(s) follow it`);
      report.notes.push(...followed.notes);
    } catch (err) {
      report.notes.push(`could not check for moved repositories: ${errorMessage(err)}`);
    }

    let backends: RoleBackends | null = null;
    try {
      backends = guard.wrap(createRoleBackends(config, { db, runId: id, budget, env, simAllowed: usesSim(config) }));
      report.backends = describeBackends(backends);
    } catch (err) {
      report.notes.push(`backend unavailable: ${errorMessage(err)}${isSleepError(err) && err.hint ? ` (${err.hint})` : ''}`);
    }

    if (!opts.skipHarvest) {
      try {
        const mined = await runMining(db, config, { project: opts.project, backends: !report.dryRun && config.mining.useLlm && backends ? backends : undefined, signal: opts.signal, progress });
        report.mining = { ...(mined as object) };
      } catch (err) {
        if (isSleepError(err) && err.code === 'ABORTED') throw err;
        report.mining = { error: errorMessage(err) };
        report.notes.push(`mining failed (${errorMessage(err)}); using the tasks already in the store`);
      }
    }

    const stored = listTasks(db, { status: 'active', ...(opts.project ? { project: opts.project } : {}) }).filter((t) => t.origin !== 'dream');
    // a task whose project can never take a proposal is set aside before any call (orphans.ts)
    const { usable: tasks, orphaned } = setAsideOrphans(db, stored);
    report.orphaned = orphaned;
    report.notes.push(...orphaned.map(describeOrphan));
    const skillsByProject = new Map<string, SkillTarget[]>();
    for (const p of new Set(tasks.map((t) => t.project ?? ''))) skillsByProject.set(p, discoverSkills({ project: p || null, env }));
    const plan = planNight({
      tasks,
      skillsByProject,
      managed: (project, agentsUsed) => managedSkillTarget({ project, env }, { agentsUsed }),
      personal: (agentsUsed) => personalManagedSkillTarget({ env }, { agentsUsed }),
      // budget.maxTasks is shared out by the budget fit below, across every skill, not first come
      maxTasks: Number.MAX_SAFE_INTEGER,
      minValTasks: config.training.minValTasks,
      only: opts.skill,
    });
    report.notes.push(...plan.notes);
    // before the first call: the plan shrinks to what the budget and the deadline allow (fit.ts)
    const forecaster = nightForecaster(db, config, backends);
    const trainedAt = readTrained(db);
    const rem = budget.remaining();
    const msPerCall = assumedMsPerCall(config, backends);
    const fit = fitPlanToBudget({
      items: plan.items,
      shape: { epochs: config.training.epochs, batchSize: config.training.batchSize, minValTasks: config.training.minValTasks },
      cost: forecaster.cost,
      limits: { usd: rem.usd, tokens: rem.tokens, calls: rem.calls },
      maxTasks: config.budget.maxTasks,
      ...(rem.ms !== undefined && msPerCall ? { time: { msLeft: rem.ms, msPerCall } } : {}),
      lastTrained: new Map(Object.entries(trainedAt.targets)),
      taskLastTrained: new Map(Object.entries(trainedAt.tasks)),
    });
    const items = fit.items;
    report.items = items.map(itemSkeleton);
    report.budgetPlan = { wanted: fit.wanted, planned: fit.planned, limitedBy: fit.limitedBy, trained: fit.trained, deferred: fit.deferred, stopBeforeSpending: fit.stopBeforeSpending };
    if (fit.deferred.length) report.notes.push(`left for later nights (the budget fits ${fit.trained.length} of ${fit.trained.length + fit.deferred.length} skills tonight; they go first next night): ${fit.deferred.map((d) => `${d.target} (${d.tasks} tasks)`).join(', ')}`);
    const forecast = forecaster.forecast(items, budget);
    report.forecast = {
      calls: forecast.calls,
      tokens: forecast.tokens,
      usd: forecast.usd,
      fits: forecast.fits,
      limitedBy: forecast.limitedBy,
      callsThatFit: forecast.callsThatFit,
      ...(Object.keys(forecast.overheads).length ? { cliOverhead: forecast.overheads } : {}),
    };
    persist();

    if (report.dryRun) {
      for (const it of report.items) if (it.status !== 'skipped') it.status = 'planned';
      report.status = 'dry_run';
      return report;
    }
    if (!backends) {
      for (const it of report.items.filter((i) => i.status !== 'skipped')) {
        it.status = 'skipped';
        it.reason = 'no backend available';
        it.needed = 'install the claude, codex or copilot CLI, or set ANTHROPIC_API_KEY / OPENAI_API_KEY (see `skillopt-sleep doctor`)';
      }
      report.status = 'failed';
      return report;
    }

    if (fit.stopBeforeSpending) {
      report.status = 'nothing_staged';
      report.notes.push(`stopped before spending: ${fit.stopBeforeSpending}`);
      return report;
    }
    const plannedCalls = new Map(fit.trained.map((t) => [t.path, t.forecast]));
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      const ir = report.items[i];
      if (item.skip) continue;
      if (guard.signal.aborted) {
        ir.status = 'stopped';
        ir.reason = guard.failure ? `not trained: ${guard.failure.reason}` : 'the night was stopped before this skill';
        continue;
      }
      const rem = budget.remaining();
      if (rem.calls <= 0 || rem.tokens <= 0 || (rem.ms !== undefined && rem.ms <= 0)) {
        ir.status = 'stopped';
        ir.reason = `the night's budget ran out before this skill (${rem.ms !== undefined && rem.ms <= 0 ? 'deadline passed' : 'calls/tokens used up'})`;
        ir.needed = 'raise budget.maxCalls / budget.maxTokens / budget.deadline, or train it by hand with `skillopt-sleep train --skill ' + item.target.name + '`';
        continue;
      }
      renewLease(db, NIGHT_LEASE, holder, LEASE_TTL_MS);
      // a fair share of what remains for each skill still to train (the last one gets the rest)
      // each skill's share of what remains is in proportion to its fitted forecast (a skill the fit
      // gave more epochs or tasks gets the calls for them); the last one gets the rest
      const ahead = items.slice(i).filter((it) => !it.skip);
      const weight = (it: PlanItem) => Math.max(1, plannedCalls.get(it.target.path)?.calls ?? 1);
      const share = weight(item) / ahead.reduce((n, it) => n + weight(it), 0);
      // or, when more, all that the skills after it do not need by their forecasts: the plan's
      // slack goes to the skill training now (a start gate that needs extra rounds, say) rather
      // than stopping it on a proportional share while the night has room
      const later = ahead.slice(1).reduce<Spend>((s, it) => {
        const f = plannedCalls.get(it.target.path);
        return f ? { usd: s.usd + f.usd, tokens: s.tokens + f.tokens, calls: s.calls + f.calls } : s;
      }, { usd: 0, tokens: 0, calls: 0 });
      const release = budget.capShare({
        usd: Math.max(rem.usd * share, rem.usd - later.usd),
        tokens: Math.max(Math.floor(rem.tokens * share), rem.tokens - later.tokens),
        calls: Math.max(Math.floor(rem.calls * share), rem.calls - later.calls),
      });
      const itemConfig = item.epochs !== undefined && item.epochs !== config.training.epochs ? { ...config, training: { ...config.training, epochs: item.epochs } } : config;
      // a training the budget stops must leave the calls that measure and stage what passed the gate
      budget.holdBack(forecaster.afterTraining(item));
      try {
        markTrained(db, item, clock.now());
        await trainItem({ db, paths, config: itemConfig, env, budget, backends, item, ir, report, nightId: id, signal: guard.signal, progress, userSkillPath: opts.userSkillPath, callHealth: () => guard.failedShareReason() });
      } catch (err) {
        if (!guard.failure) throw err;
      } finally {
        budget.releaseHeld();
        release();
      }
      persist();
    }
    const callFailure = guard.failedShareReason();
    if (guard.failure) failOnInfrastructure(report, guard.failure.reason);
    else if (opts.signal?.aborted) report.status = 'aborted';
    else if (callFailure) failOnFailedCalls(report, callFailure);
    else if (report.proposals.length === 0) report.status = 'nothing_staged';
    return report;
  } catch (err) {
    if (guard.failure) {
      failOnInfrastructure(report, guard.failure.reason);
      return report;
    }
    const callFailure = guard.failedShareReason();
    if (callFailure && !(isSleepError(err) && err.code === 'ABORTED')) {
      failOnFailedCalls(report, callFailure);
      report.notes.push(`failed: ${errorMessage(err)}`);
      return report;
    }
    report.status = isSleepError(err) && err.code === 'ABORTED' ? 'aborted' : 'failed';
    report.notes.push(`${report.status === 'aborted' ? 'stopped' : 'failed'}: ${errorMessage(err)}`);
    if (isSleepError(err) && err.code === 'LEASE_HELD') throw err;
    return report;
  } finally {
    clearInterval(heartbeat);
    report.endedAt = new Date(clock.now()).toISOString();
    const tally = guard.callTally;
    report.modelCalls = { calls: tally.calls, failed: tally.failed, byRole: tally.byRole, maxFailedShare: MAX_FAILED_CALL_SHARE };
    report.summary = summarizeNight(report);
    const callFailure = report.status === 'failed' ? guard.failedShareReason() : null;
    if (callFailure && !guard.failure) report.summary = `night failed: ${callFailure}${report.proposals.length ? ` (${report.proposals.length} staged before it)` : '; nothing staged'}`;
    else if (guard.failure) report.summary = `night failed: ${guard.failure.reason}${report.proposals.length ? ` (${report.proposals.length} staged before it)` : '; nothing staged'}`;
    else if (report.status === 'failed' && report.proposals.length === 0) report.summary = `night failed, nothing staged: ${report.notes[report.notes.length - 1] ?? 'see the notes'}`;
    persist();
    if (!report.dryRun) {
      updateRun(db, id, { status: report.status === 'failed' ? 'failed' : report.status === 'aborted' ? 'aborted' : 'done', endedAt: clock.now(), record: { ...report } as unknown as Record<string, unknown> });
      kvSet(db, 'night.last', { id, status: report.status, endedAt: report.endedAt, summary: report.summary, proposals: report.proposals });
    }
    releaseLease(db, NIGHT_LEASE, holder);
    // the seeded workspaces kept between the night's replays go with it
    drainWorkspacePools();
  }
}

