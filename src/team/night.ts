/**
 * The team night (issue 42): one night per repository at a time, across every member. It
 *  1. takes the repository's night lease on the team server (another holder's live lease: 'busy',
 *     nothing done) and renews it while it works; a lost lease stops training, nothing is staged;
 *  2. pulls the pooled tasks, groups them into team jobs across members (jobs.ts) and leaves out
 *     the jobs of a single member (one person's habit stays in their personal skill);
 *  3. splits them across members too (splits.ts: val holds other people's sessions);
 *  4. trains each of the repository's COMMITTED skills (a `.claude/skills/<name>/SKILL.md`,
 *     AGENTS.md, `.github/copilot-instructions.md`… tracked at HEAD, as the agents' registry
 *     finds them) from its committed text, with the personal night's trainer, options and gate
 *     (a task invoking a skill trains that skill; the rest train the repository's shared
 *     instructions file);
 *  5. checkpoints after every training step on the server (the trainer's own resumable state,
 *     state.json): a night killed mid-training resumes at the next one from the last step;
 *  6. stages what passed the gate as a proposal (review shows it) AND as one commit on a new local
 *     branch (branch.ts), with a pull-request body (pull-request.ts); pushes only with `push`;
 *  7. records the summary and releases the lease.
 * Provenance is counts of members and sessions, never who, unless the team config allows names.
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import type { Config } from '../core/config.js';
import type { RoleBackends } from '../core/protocol.js';
import type { SkillTarget, Split, Task } from '../core/records.js';
import { silentProgress, type Progress } from '../core/progress.js';
import { SleepError, errorMessage, isSleepError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { ensurePrivateDir, writeFileAtomic } from '../core/fsutil.js';
import { createRun, getRun, updateRun } from '../store/repos/runs.js';
import { budgetFromConfig } from '../llm/budget.js';
import { createRoleBackends } from '../llm/registry.js';
import { discoverSkills } from '../../adapters/skills-registry.js';
import { trainSkill, trainOptionsFromConfig, type TrainResult } from '../trainer/index.js';
import { auditSlice, auditSlot } from '../mine/splits.js';
import { auditJudge, scoreSkill } from '../replay/index.js';
import { capTasks, checkItem, countTasks, type TaskSets } from '../night/plan.js';
import { InfraGuard } from '../night/infra-guard.js';
import { fromStart, stageTrainResult, trainingImproved } from '../proposals/stage-train.js';
import { writeTeamProposal } from '../proposals/team-proposal.js';
import type { NightLease, PooledTask, RepoKey, TeamNightSummary, TeamServer } from './contract.js';
import { teamJobs, type TeamJob } from './jobs.js';
import { assignTeamSplits, sessionUnit, splitProvenance } from './splits.js';
import { commitOnNewBranch, pushBranch, readAtHead, teamBranchName, trackedAtHead } from './branch.js';
import { renderPullRequest, type RuleProvenance } from './pull-request.js';

export const TEAM_NIGHT_LEASE_TTL_MS = 10 * 60_000;
/** a job must come from this many members to reach the team skill (below: a personal habit) */
export const DEFAULT_MIN_MEMBERS_PER_JOB = 2;

export interface TeamNightOptions {
  db: Db;
  paths: SleepPaths;
  env?: NodeJS.ProcessEnv;
  /** this machine's opaque member id (the lease holder is it plus the process) */
  memberId: string;
  leaseTtlMs?: number;
  minMembersPerJob?: number;
  /** the team config allows names: provenance lists member ids beside the counts */
  showMembers?: boolean;
  /** push each proposal branch to this remote (`--push`); never otherwise */
  pushRemote?: string;
  /** role backends to use instead of the config's (tests, benches) */
  backends?: RoleBackends;
  clock?: { now(): number };
  signal?: AbortSignal;
  progress?: Progress;
}

export type TeamSkillStatus = 'staged' | 'not_improved' | 'skipped' | 'failed' | 'stopped';

export interface TeamSkillReport {
  skill: string;
  /** repository-relative path of the committed file */
  file: string;
  status: TeamSkillStatus;
  reason?: string;
  tasks: { train: number; val: number; test: number };
  members: number;
  sessions: number;
  val?: { before: number; after: number };
  test?: { before: number | null; after: number | null };
  audit?: { tasks: number; before: number | null; after: number | null };
  proposalId?: string;
  branch?: string;
  commit?: string;
  pushed?: string | null;
  /** training resumed from the server's checkpoint at this completed step */
  resumedAtStep?: number;
  rules?: RuleProvenance[];
}

export interface TeamNightResult {
  repoKey: RepoKey;
  status: 'busy' | TeamNightSummary['status'];
  reason?: string;
  holder: string;
  skills: TeamSkillReport[];
  jobs: { team: number; personalLeftOut: number };
  pool: { members: number; sessions: number; tasks: number };
  notes: string[];
  summary?: TeamNightSummary;
}

/** What the server keeps between steps (schema `version` 1); valid for one pool only. */
interface TeamCheckpoint {
  version: 1;
  /** hash of the pooled tasks' content hashes: a changed pool starts over */
  poolHash: string;
  /** skills finished by an earlier (interrupted) night of this pool, by file */
  done: Record<string, TeamSkillReport>;
  /** the skill in training and its trainer state (runs/<id>/state.json and config.json) */
  current: { file: string; runId: string; state: unknown; config: unknown } | null;
}

function asCheckpoint(x: unknown, poolHash: string): TeamCheckpoint | null {
  if (!x || typeof x !== 'object') return null;
  const c = x as Partial<TeamCheckpoint>;
  if (c.version !== 1 || c.poolHash !== poolHash || typeof c.done !== 'object' || c.done === null) return null;
  return { version: 1, poolHash, done: c.done, current: c.current ?? null };
}

const hashOf = (xs: string[]) => crypto.createHash('sha256').update([...xs].sort().join('\n')).digest('hex');

/** A pooled task as the trainer sees it: a team-unique id, the repository as its project, the team split. */
function teamTask(p: PooledTask, split: Split, repoPath: string): Task {
  return { ...p.task, id: `team_${p.contentHash.slice(0, 24)}`, project: repoPath, split };
}

/** The repository's committed skills: what the agents' registry finds in the work tree, tracked at HEAD. */
export function committedSkills(repoPath: string, env: NodeJS.ProcessEnv): Array<SkillTarget & { rel: string }> {
  const tracked = trackedAtHead(repoPath);
  return discoverSkills({ project: repoPath, env })
    .filter((s) => s.project === repoPath)
    .map((s) => ({ ...s, rel: path.relative(repoPath, s.path).split(path.sep).join('/') }))
    .filter((s) => !s.rel.startsWith('..') && tracked.has(s.rel));
}

/** The file tasks that invoked no skill train: the shared instructions every agent reads first. */
const SHARED_FIRST: SkillTarget['kind'][] = ['agents-md', 'copilot-instructions', 'claude-md', 'gemini-md', 'instructions'];

function routeTasks(tasks: Task[], skills: Array<SkillTarget & { rel: string }>): Map<string, Task[]> {
  const shared = [...skills].sort((a, b) => rank(a) - rank(b) || a.rel.localeCompare(b.rel))[0];
  const out = new Map<string, Task[]>();
  for (const t of tasks) {
    const hint = t.skillHint?.trim().toLowerCase();
    const target = (hint && skills.find((s) => s.kind === 'skill' && s.name.toLowerCase() === hint)) || shared;
    if (target) out.set(target.rel, [...(out.get(target.rel) ?? []), t]);
  }
  return out;
}

function rank(s: SkillTarget): number {
  const i = SHARED_FIRST.indexOf(s.kind);
  return i >= 0 ? i : SHARED_FIRST.length;
}

function splitSets(tasks: Task[]): TaskSets {
  const s: TaskSets = { train: [], val: [], test: [] };
  for (const t of [...tasks].sort((a, b) => a.id.localeCompare(b.id))) s[t.split].push(t);
  return s;
}

export async function runTeamNight(server: TeamServer, repo: { path: string; key: RepoKey }, config: Config, opts: TeamNightOptions): Promise<TeamNightResult> {
  const clock = opts.clock ?? { now: () => Date.now() };
  const env = opts.env ?? process.env;
  const progress = opts.progress ?? silentProgress;
  const ttl = opts.leaseTtlMs ?? TEAM_NIGHT_LEASE_TTL_MS;
  const holder = `${opts.memberId}:${process.pid}`;
  const result: TeamNightResult = { repoKey: repo.key, status: 'no_gain', holder, skills: [], jobs: { team: 0, personalLeftOut: 0 }, pool: { members: 0, sessions: 0, tasks: 0 }, notes: [] };

  const lease = await server.acquireNight(repo.key, holder, ttl);
  if (!lease) {
    result.status = 'busy';
    result.reason = 'another member\'s team night holds this repository\'s lease; exactly one runs at a time (it resumes from its checkpoint if it dies)';
    return result;
  }
  // the lease is renewed while the night works; losing it (expired and taken) stops the night
  const lost = new AbortController();
  let leaseLost = false;
  let renewedAt = clock.now();
  const renew = async () => {
    if (leaseLost) return;
    try {
      if (!(await server.renewNight(lease, ttl))) throw new Error('the lease expired or was taken by another holder');
      renewedAt = clock.now();
    } catch (err) {
      leaseLost = true;
      lost.abort(new SleepError('ABORTED', `team night lease lost: ${errorMessage(err)}`));
    }
  };
  const heartbeat = setInterval(() => void renew(), Math.max(250, Math.floor(ttl / 3)));
  heartbeat.unref();
  const signal = opts.signal ? AbortSignal.any([opts.signal, lost.signal]) : lost.signal;
  // before anything leaves the night (a branch, a proposal), the lease must still be ours
  const assertLease = async () => {
    await renew();
    if (leaseLost) throw new SleepError('ABORTED', `team night lease lost: ${errorMessage(lost.signal.reason)}`);
  };
  // after every training step too, when a third of its time-to-live has passed: a step's own work may
  // keep the event loop from the heartbeat's timer (a local backend that never waits for I/O)
  const keepLease = async () => {
    if (clock.now() - renewedAt >= ttl / 3) await assertLease();
  };

  const nightId = newId('teamnight');
  const dir = path.join(opts.paths.runsDir, nightId);
  createRun(opts.db, { id: nightId, kind: 'team-night', dir, record: { repo: repo.path, repoKey: repo.key, status: 'running' }, startedAt: clock.now() });
  try {
    await trainPool(server, lease, repo, config, { ...opts, env, progress, signal, clock, assertLease, keepLease }, nightId, result);
    result.status = result.skills.some((s) => s.status === 'staged') ? 'staged' : result.skills.some((s) => s.status === 'failed') ? 'failed' : 'no_gain';
  } catch (err) {
    result.status = 'failed';
    result.reason = errorMessage(err);
  } finally {
    clearInterval(heartbeat);
  }
  // a night that lost its lease records nothing: the holder that took it owns the repository's night now
  if (!leaseLost && !(await server.renewNight(lease, ttl).catch(() => false))) leaseLost = true;
  if (leaseLost) {
    result.status = 'failed';
    result.reason = `stopped: the lease was lost (${errorMessage(lost.signal.reason ?? 'expired and taken')}); nothing more is staged, nothing recorded (the holder that took it owns the night and resumes from the checkpoint)`;
  }
  const summary: TeamNightSummary = {
    repoKey: repo.key,
    status: result.status as TeamNightSummary['status'],
    ...(result.reason ? { reason: result.reason } : {}),
    ...(result.skills.find((s) => s.branch) ? { branch: result.skills.find((s) => s.branch)!.branch } : {}),
    members: result.pool.members,
    sessions: result.pool.sessions,
    tasks: result.pool.tasks,
    finishedAt: clock.now(),
  };
  result.summary = summary;
  updateRun(opts.db, nightId, { status: result.status === 'failed' ? 'failed' : 'done', endedAt: clock.now(), record: { repo: repo.path, ...result } });
  ensurePrivateDir(dir);
  writeFileAtomic(path.join(dir, 'team-night.json'), JSON.stringify(result, null, 2) + '\n', { mode: 0o600 });
  if (leaseLost) return result;
  try {
    await server.recordNight(lease, summary);
    await server.releaseNight(lease);
  } catch (err) {
    result.notes.push(`could not record the night on the server: ${errorMessage(err)} (the lease expires on its own)`);
  }
  return result;
}

type Ctx = Required<Pick<TeamNightOptions, 'env' | 'progress' | 'clock'>> & TeamNightOptions & { signal: AbortSignal; assertLease: () => Promise<void>; keepLease: () => Promise<void>; callHealth?: () => string | null };

async function trainPool(server: TeamServer, lease: NightLease, repo: { path: string; key: RepoKey }, config: Config, ctx: Ctx, nightId: string, result: TeamNightResult): Promise<void> {
  const pooled = (await server.pooledTasks(repo.key)).filter((p) => p.task.status === 'active' && p.repoKey === repo.key);
  const minMembers = ctx.minMembersPerJob ?? DEFAULT_MIN_MEMBERS_PER_JOB;
  const jobs = teamJobs(pooled, config.mining.threshold);
  const teamJobList = jobs.filter((j) => j.members.size >= minMembers);
  result.jobs = { team: teamJobList.length, personalLeftOut: jobs.length - teamJobList.length };
  if (result.jobs.personalLeftOut) result.notes.push(`${result.jobs.personalLeftOut} job(s) seen from fewer than ${minMembers} members left out: a member's own habit stays in their personal skill`);
  const inTeamJobs = new Set(teamJobList.flatMap((j) => j.tasks));
  const pool = pooled.filter((p) => inTeamJobs.has(p.contentHash));
  result.pool = { members: new Set(pool.map((p) => p.memberId)).size, sessions: new Set(pool.map(sessionUnit)).size, tasks: pool.length };
  const splits = assignTeamSplits(pool, teamJobList, config.training.seed);
  const byTaskId = new Map<string, PooledTask>();
  const tasks = pool.map((p) => {
    const t = teamTask(p, splits.get(p.contentHash) ?? 'train', repo.path);
    byTaskId.set(t.id, p);
    return t;
  });
  const skills = committedSkills(repo.path, ctx.env);
  if (!skills.length) {
    result.notes.push(`no committed skill or instruction file in ${repo.path} (e.g. AGENTS.md, .claude/skills/<name>/SKILL.md): nothing to train`);
    return;
  }
  const routed = routeTasks(tasks, skills);
  const poolHash = hashOf(pool.map((p) => `${p.contentHash}:${splits.get(p.contentHash)}`));
  const checkpoint: TeamCheckpoint = asCheckpoint(await server.loadCheckpoint(repo.key), poolHash) ?? { version: 1, poolHash, done: {}, current: null };
  // the personal night's guard: a night whose calls mostly fail stops, and its gate results are not staged
  const guard = new InfraGuard(ctx.signal);
  const backends = guard.wrap(ctx.backends ?? createRoleBackends(config, { db: ctx.db, runId: nightId, budget: budgetFromConfig(config.budget, ctx.clock), env: ctx.env, simAllowed: Object.values(config.roles).some((r) => r.backend === 'sim') }));
  const guarded: Ctx = { ...ctx, signal: guard.signal, callHealth: () => guard.failedShareReason() };
  for (const skill of skills) {
    const earlier = checkpoint.done[skill.rel];
    if (earlier) {
      result.skills.push(earlier);
      result.notes.push(`${skill.rel}: finished by an earlier night of the same pool (${earlier.status}); not trained again`);
      continue;
    }
    const sets = capTasks(splitSets(routed.get(skill.rel) ?? []), config.budget.maxTasks, config.training.minValTasks);
    let report: TeamSkillReport;
    try {
      report = await trainCommittedSkill(server, lease, repo, config, guarded, { skill, sets, byTaskId, backends, checkpoint, nightId, splits, pool, jobs: teamJobList, personalLeftOut: result.jobs.personalLeftOut });
    } catch (err) {
      // the guard stopped the night: say what failed, not "aborted"
      if (guard.failure) throw new SleepError('BACKEND_UNAVAILABLE', `the team night stopped: ${guard.failure.reason}`);
      throw err;
    }
    result.skills.push(report);
    checkpoint.done[skill.rel] = report;
    checkpoint.current = null;
    await server.saveCheckpoint(lease, checkpoint);
  }
}

interface SkillArgs {
  skill: SkillTarget & { rel: string };
  sets: TaskSets;
  byTaskId: Map<string, PooledTask>;
  backends: RoleBackends;
  checkpoint: TeamCheckpoint;
  nightId: string;
  splits: Map<string, Split>;
  pool: PooledTask[];
  jobs: TeamJob[];
  personalLeftOut: number;
}

function countsOf(tasks: Task[], byTaskId: Map<string, PooledTask>): { members: number; sessions: number; who: string[] } {
  const ps = tasks.map((t) => byTaskId.get(t.id)).filter((p): p is PooledTask => p !== undefined);
  const who = [...new Set(ps.map((p) => p.memberId))].sort();
  return { members: who.length, sessions: new Set(ps.map(sessionUnit)).size, who };
}

/** Puts the server's trainer state back into the local run folder, so `trainSkill({ resume })` picks it up. */
function restoreRun(db: Db, paths: SleepPaths, cur: NonNullable<TeamCheckpoint['current']>, skillName: string): number {
  const runDir = path.join(paths.runsDir, cur.runId);
  ensurePrivateDir(runDir);
  writeFileAtomic(path.join(runDir, 'state.json'), JSON.stringify(cur.state) + '\n', { mode: 0o600 });
  if (cur.config) writeFileAtomic(path.join(runDir, 'config.json'), JSON.stringify(cur.config, null, 2) + '\n', { mode: 0o600 });
  if (!getRun(db, cur.runId)) createRun(db, { id: cur.runId, kind: 'train', dir: runDir, record: { skill: skillName, resumedFromTeamCheckpoint: true } });
  const step = (cur.state as { lastCompletedStep?: unknown }).lastCompletedStep;
  return typeof step === 'number' ? step : 0;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  } catch {
    return null;
  }
}

async function trainCommittedSkill(server: TeamServer, lease: NightLease, repo: { path: string; key: RepoKey }, config: Config, ctx: Ctx, a: SkillArgs): Promise<TeamSkillReport> {
  const { skill, sets } = a;
  const all = [...sets.train, ...sets.val, ...sets.test];
  const counts = countsOf(all, a.byTaskId);
  const report: TeamSkillReport = { skill: skill.name, file: skill.rel, status: 'skipped', tasks: { train: sets.train.length, val: sets.val.length, test: sets.test.length }, members: counts.members, sessions: counts.sessions };
  const skip = checkItem(sets, config.training.minValTasks);
  if (skip) {
    report.reason = `${skip.reason} (${skip.needed})`;
    return report;
  }
  const base = readAtHead(repo.path, skill.rel) ?? '';
  // tonight's sealed audit slice sits out of training, the gate and the proposal, as in the personal night
  const slot = auditSlot(ctx.clock.now());
  const { audit, open } = auditSlice(sets.test, slot, config.training.seed);
  const tasks = { ...sets, test: open };
  ctx.progress.log(`team: training ${skill.rel} (${countTasks(sets)} tasks from ${counts.members} members, ${counts.sessions} sessions: ${tasks.train.length} train, ${tasks.val.length} val, ${open.length} test, ${audit.length} sealed)`);
  try {
    const judge = await auditJudge({ db: ctx.db, tasks: [...tasks.train, ...tasks.val], skill: { name: skill.name, content: base }, target: a.backends.target, judge: a.backends.judge, seed: config.training.seed, maxDisagreement: config.training.maxJudgeDisagreement, signal: ctx.signal });
    if (judge.verdict === 'failed') {
      report.status = 'failed';
      report.reason = `not trained, nothing staged: ${judge.reason}`;
      return report;
    }
  } catch (err) {
    if (isSleepError(err) && err.code === 'ABORTED') throw err;
    report.status = 'failed';
    report.reason = `the judge could not be audited, so its scores were not used: ${errorMessage(err)}`;
    return report;
  }

  const resumable = a.checkpoint.current && a.checkpoint.current.file === skill.rel ? a.checkpoint.current : null;
  const runId = resumable?.runId ?? newId('run');
  if (resumable) {
    report.resumedAtStep = restoreRun(ctx.db, ctx.paths, resumable, skill.name);
    ctx.progress.log(`  resuming ${skill.rel} from the team checkpoint after step ${report.resumedAtStep}`);
  }
  const runDir = path.join(ctx.paths.runsDir, runId);
  // the server keeps the trainer's resumable state after every step (a checkpoint the next night resumes from)
  let saving: Promise<void> = Promise.resolve();
  const checkpointStep = () => {
    const state = readJson(path.join(runDir, 'state.json'));
    if (!state) return;
    a.checkpoint.current = { file: skill.rel, runId, state, config: readJson(path.join(runDir, 'config.json')) };
    const snapshot = JSON.parse(JSON.stringify(a.checkpoint)) as TeamCheckpoint;
    saving = saving.then(async () => {
      await ctx.keepLease();
      await server.saveCheckpoint(lease, snapshot);
    });
  };
  let result: TrainResult;
  try {
    result = await trainSkill({
      db: ctx.db,
      paths: ctx.paths,
      skill: { name: skill.name, content: base, path: skill.path, handWritten: skill.kind !== 'managed' },
      tasks,
      backends: a.backends,
      options: { ...trainOptionsFromConfig(config.training), startDraftChecks: false },
      signal: ctx.signal,
      progress: ctx.progress,
      runId,
      resume: !!resumable,
      onStep: (s) => {
        ctx.progress.log(`  ${s.line}`);
        checkpointStep();
      },
    });
    await saving;
  } catch (err) {
    await saving.catch(() => {});
    if (isSleepError(err) && err.code === 'ABORTED') throw err;
    await ctx.assertLease();
    report.status = isSleepError(err) && err.code === 'BUDGET_EXCEEDED' ? 'stopped' : 'failed';
    report.reason = `training failed: ${errorMessage(err)}`;
    return report;
  }
  if (result.stoppedBy === 'aborted') throw new SleepError('ABORTED', 'the team night was stopped during training', { cause: ctx.signal.reason });
  const start = fromStart(result);
  report.val = { before: start.baseline.val, after: result.best.val };
  report.test = { before: start.baseline.test, after: result.best.test };
  if (!trainingImproved(result)) {
    report.status = 'not_improved';
    report.reason = `no candidate beat the committed skill on validation (${start.baseline.val.toFixed(2)})`;
    return report;
  }
  // the gate compared scores that failed calls made (a failed rollout scores 0): not a proposal
  const broken = ctx.callHealth?.() ?? null;
  if (broken) {
    report.status = 'failed';
    report.reason = `not staged: ${broken}`;
    return report;
  }
  // a lease lost meanwhile: the proposal belongs to no night (the holder that took it trains again)
  await ctx.assertLease();
  report.audit = { tasks: audit.length, before: null, after: null };
  if (audit.length) {
    // a failure here costs the audit figure, never the proposal (as in the personal night)
    const score = async (content: string) => (await scoreSkill({ db: ctx.db, tasks: audit, skill: { name: skill.name, content }, target: a.backends.target, judge: a.backends.judge, metric: config.training.gateMetric, signal: ctx.signal, label: 'audit' })).mean;
    try {
      report.audit.before = await score(base);
      report.audit.after = await score(result.bestSkill);
    } catch (err) {
      if (isSleepError(err) && err.code === 'ABORTED') throw err;
      report.reason = `audit slice not scored: ${errorMessage(err)}`;
    }
  }
  return stageAsBranch(repo, ctx, a, result, base, report, counts);
}

const norm = (t: string) => t.replace(/^\s*(?:[-*+]|\d+\.)\s+/, '').replace(/[\s.!;:]+$/, '').replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * Provenance of each added rule (a list item of the candidate that the committed text lacks): the
 * members and sessions behind it — the tasks whose corrections or judge checks say it (a correction
 * counts the session it was said in, when the miner recorded it, else the task's session) — else
 * the tasks the accepted edits that wrote it cite, else the skill's whole pool. Headings and
 * markers are structure, not rules.
 */
function ruleProvenance(base: string, candidate: string, result: TrainResult, a: SkillArgs, whole: { members: number; sessions: number; who: string[] }, showMembers: boolean): RuleProvenance[] {
  const before = new Set(base.split('\n').map((l) => l.trim()));
  const added = [...new Set(candidate.split('\n').map((l) => l.trim()).filter((l) => /^(?:[-*+]|\d+\.)\s+\S/.test(l) && !before.has(l)))];
  const accepted = fromStart(result).edits.filter((e) => e.status === 'accepted');
  const pool = [...a.sets.train, ...a.sets.val, ...a.sets.test];
  const says = (x: string, rule: string) => x.length >= 8 && (x === rule || (rule.length >= 12 && (x.includes(rule) || rule.includes(x))));
  return added.map((line) => {
    const rule = norm(line);
    const members = new Set<string>();
    const sessions = new Set<string>();
    for (const t of pool) {
      const p = a.byTaskId.get(t.id);
      if (!p) continue;
      const saidIn = t.corrections.flatMap((c, i) => (says(norm(c), rule) ? [t.correctionSources?.[i]?.session ?? null] : []));
      if (!saidIn.length && !t.judge.checks.some((c) => says(norm(c.description ?? ''), rule))) continue;
      members.add(p.memberId);
      for (const s of saidIn.length ? saidIn : [null]) sessions.add(s ? `${p.memberId}\u0000${s}` : sessionUnit(p));
    }
    if (!members.size) {
      for (const id of accepted.filter((e) => e.content.includes(line)).flatMap((e) => e.evidence)) {
        const p = a.byTaskId.get(id);
        if (!p) continue;
        members.add(p.memberId);
        sessions.add(sessionUnit(p));
      }
    }
    const c = members.size ? { members: members.size, sessions: sessions.size, who: [...members].sort() } : whole;
    return { line: line.slice(0, 200), members: c.members, sessions: c.sessions, ...(showMembers ? { who: c.who } : {}) };
  });
}

function stageAsBranch(repo: { path: string; key: RepoKey }, ctx: Ctx, a: SkillArgs, result: TrainResult, base: string, report: TeamSkillReport, counts: { members: number; sessions: number; who: string[] }): TeamSkillReport {
  const { skill } = a;
  let proposal: ReturnType<typeof stageTrainResult>;
  try {
    proposal = stageTrainResult(ctx.db, ctx.paths, {
      target: skill,
      env: ctx.env,
      baseContent: base,
      result,
      editScope: skill.kind === 'managed' ? 'document' : 'learned',
      nightId: a.nightId,
      backends: a.backends,
      notes: [`team night: ${counts.members} members, ${counts.sessions} sessions`],
      plan: { routedBy: 'team', members: counts.members, sessions: counts.sessions, tasks: { train: report.tasks.train, val: report.tasks.val, test: report.tasks.test } },
    });
  } catch (err) {
    report.status = 'failed';
    report.reason = `trained, but the proposal could not be staged: ${errorMessage(err)}`;
    return report;
  }
  if (!proposal) throw new Error(`${skill.rel}: training improved on validation but nothing was staged`);
  const rules = ruleProvenance(base, proposal.candidate, result, a, counts, !!ctx.showMembers);
  const message = `skillopt-sleep: team night for ${skill.rel}\n\nLearned from ${counts.members} members and ${counts.sessions} sessions of the team's pooled tasks;\nvalidation ${report.val!.before.toFixed(2)} -> ${report.val!.after.toFixed(2)} against the committed skill.\n`;
  const made = commitOnNewBranch(repo.path, { wanted: teamBranchName(skill.name, ctx.clock.now()), files: [{ rel: skill.rel, content: proposal.candidate }], message });
  let pushed: string | null = null;
  if (ctx.pushRemote) {
    try {
      pushed = pushBranch(repo.path, made.branch, ctx.pushRemote);
    } catch (err) {
      report.reason = `branch made, but the push failed: ${errorMessage(err)}`;
    }
  }
  const teamSplits = splitProvenance(
    a.pool.filter((p) => [...a.sets.train, ...a.sets.val, ...a.sets.test].some((t) => a.byTaskId.get(t.id) === p)),
    a.splits,
  );
  const body = renderPullRequest({
    skill: skill.name,
    file: skill.rel,
    branch: made.branch,
    parent: made.parent,
    scores: { val: report.val!, test: report.test!, audit: { before: report.audit?.before ?? null, after: report.audit?.after ?? null, tasks: report.audit?.tasks ?? 0 } },
    pool: { members: counts.members, sessions: counts.sessions, tasks: report.tasks.train + report.tasks.val + report.tasks.test, splits: teamSplits },
    personalJobsLeftOut: a.personalLeftOut,
    rules,
    steps: result.steps.map((s) => ({ step: s.globalStep, action: s.action, valBefore: s.valBefore, valAfter: s.valAfter, reason: s.reason })),
    diff: proposal.diff,
    ...(ctx.showMembers ? { who: counts.who } : {}),
  });
  writeTeamProposal(proposal.dir, { kind: 'team', repo: repo.path, repoKey: repo.key, branch: made.branch, commit: made.commit, parent: made.parent, file: skill.rel, pushed, members: counts.members, sessions: counts.sessions, tasks: report.tasks.train + report.tasks.val + report.tasks.test }, body);
  return { ...report, status: 'staged', proposalId: proposal.id, branch: made.branch, commit: made.commit, pushed, rules };
}
