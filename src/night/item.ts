/**
 * One target of a night: train it under the night's budget, stage it if (and only if) it passed
 * the gate, and auto-apply it when the user opted in and the held-out test score did not drop.
 */
import path from 'node:path';
import type { Db } from '../store/db.js';
import type { SleepPaths } from '../core/paths.js';
import type { Config } from '../core/config.js';
import { Role, type RoleBackends } from '../core/protocol.js';
import type { Task } from '../core/records.js';
import type { Progress } from '../core/progress.js';
import { errorMessage, isSleepError } from '../core/errors.js';
import { readIfExists } from '../core/fsutil.js';
import type { BudgetTracker } from '../llm/budget.js';
import { scaffoldSkill } from '../../adapters/skills-registry.js';
import { cliBackendNames } from '../../adapters/index.js';
import { skillDescription } from '../mine/skill-description.js';
import { trainSkill, trainOptionsFromConfig } from '../trainer/index.js';
import type { TrainResult } from '../trainer/index.js';
import { auditSlice, auditSlot } from '../mine/splits.js';
import { auditJudge, auditSample, scoreSkill } from '../replay/index.js';
import { JUDGE_AUDIT_SAMPLE } from '../replay/judge-audit.js';
import { countTasks, type PlanItem } from './plan.js';
import type { NightItemReport, NightReport } from './report.js';
import { assertDerivedTarget } from '../proposals/targets.js';
import { fromStart, stageTrainResult, trainingImproved } from '../proposals/stage-train.js';
import { applyProposal } from '../proposals/apply.js';

/** Backend names that drive an agent CLI (from the agent registry). */
export const CLI_BACKENDS: readonly string[] = cliBackendNames();

export function describeBackends(b: RoleBackends): Record<string, { backend: string; model: string; destination: string }> {
  const out: Record<string, { backend: string; model: string; destination: string }> = {};
  for (const role of Role.options) {
    const x = b[role];
    if (x) out[role] = { backend: x.name, model: x.model, destination: x.destination };
  }
  return out;
}


function managedDescription(project: string | null, tasks: Task[]): string {
  // one job per family (its tasks are occurrences of the same request), most frequent families first
  const families = new Map<string, Task[]>();
  for (const t of tasks) families.set(t.family ?? t.id, [...(families.get(t.family ?? t.id) ?? []), t]);
  const ordered = [...families.values()].sort(
    (a, b) => b.length - a.length || b.reduce((n, t) => n + t.occurrences, 0) - a.reduce((n, t) => n + t.occurrences, 0),
  );
  return skillDescription(project, ordered.map((f) => ({ intents: f.map((t) => t.intent) })));
}

function startDocument(item: PlanItem, base: string | null): string {
  if (base !== null && base.trim() !== '') return base;
  if (item.target.kind === 'managed' || path.basename(item.target.path) === 'SKILL.md') {
    return scaffoldSkill(item.target.name, managedDescription(item.project, [...item.tasks.train, ...item.tasks.val]));
  }
  return base ?? '';
}

export interface TrainItemArgs {
  db: Db;
  paths: SleepPaths;
  config: Config;
  env: NodeJS.ProcessEnv;
  budget: BudgetTracker;
  backends: RoleBackends;
  item: PlanItem;
  ir: NightItemReport;
  report: NightReport;
  nightId: string;
  signal?: AbortSignal;
  progress: Progress;
  /** the `--skill <path>` the user typed: honoured for that file only */
  userSkillPath?: string;
  /** why the night's model calls so far are too broken to trust a gate result (infra-guard.ts), or null */
  callHealth?: () => string | null;
}

/** Trains one target and stages it if (and only if) it passed the gate. */
export async function trainItem(a: TrainItemArgs): Promise<void> {
  const { item, ir } = a;
  // a target no proposal could ever be staged for (a transcript's cwd of /etc, a folder that is
  // not a git work tree, a symlink leading out) costs no model call and stops no other skill
  try {
    assertDerivedTarget(a.db, item.target, { env: a.env, userSkillPath: a.userSkillPath === item.target.path ? a.userSkillPath : undefined });
  } catch (err) {
    if (!isSleepError(err) || err.code !== 'PATH_ESCAPE') throw err;
    ir.status = 'skipped';
    ir.reason = `not trained: ${errorMessage(err)}`;
    if (err.hint) ir.needed = err.hint;
    return;
  }
  const base = readIfExists(item.target.path) ?? null;
  const start = startDocument(item, base);
  // tonight's sealed audit slice sits out of training, the gate, the proposal and autoApply
  const slot = auditSlot(Date.parse(a.report.startedAt) || Date.now());
  const { audit, open } = auditSlice(item.tasks.test, slot, a.config.training.seed);
  const tasks = { ...item.tasks, test: open };
  ir.audit = { slot, ids: audit.map((t) => t.id), before: null, after: null };
  a.progress.log(`training ${item.target.name} (${countTasks(item.tasks)} tasks: ${item.tasks.train.length} train, ${item.tasks.val.length} val, ${open.length} test, ${audit.length} sealed for the audit)`);
  if (!(await judgeIsSane(a, judgeAuditTasks(tasks, a.config.training.seed), start))) return;
  let result: TrainResult;
  try {
    result = await trainSkill({
      db: a.db,
      paths: a.paths,
      skill: { name: item.target.name, content: start, path: item.target.path, handWritten: item.target.kind !== 'managed' },
      tasks,
      backends: a.backends,
      // the start draft holds the user's corrections only: a mined task's checks are the miner's
      // restatement of those same corrections, and pasting both dilutes the section (e2e, 10 seeds:
      // night 0.893 with them vs 0.948 without; commit 0.738 vs 0.860 verbatim)
      options: { ...trainOptionsFromConfig(a.config.training), startDraftChecks: false },
      budget: a.budget,
      signal: a.signal,
      progress: a.progress,
      onStep: (s) => a.progress.log(`  ${s.line}`),
      onNote: (n) => a.progress.log(`  ${n}`),
    });
  } catch (err) {
    const code = isSleepError(err) ? err.code : 'INTERNAL';
    ir.status = code === 'BUDGET_EXCEEDED' || code === 'ABORTED' ? 'stopped' : 'failed';
    ir.reason = `${code === 'BUDGET_EXCEEDED' ? 'the budget ran out before a candidate could be scored' : code === 'ABORTED' ? 'stopped' : 'training failed'}: ${errorMessage(err)}`;
    if (isSleepError(err) && err.hint) ir.needed = err.hint;
    if (code === 'ABORTED') throw err;
    return;
  }
  ir.trainRunId = result.runId;
  ir.stoppedBy = result.stoppedBy;
  if (result.usage.replays?.withWorkspace) ir.replays = result.usage.replays;
  // the figures before the night are the starting skill's, also when training started from the draft
  const fromNight = fromStart(result);
  const before = fromNight.baseline;
  ir.val = { before: before.val, after: result.best.val };
  ir.test = { before: before.test, after: result.best.test };
  ir.edits = {
    accepted: fromNight.edits.filter((e) => e.status === 'accepted').length,
    rejected: result.edits.filter((e) => e.status === 'rejected').length,
    unmatched: result.edits.filter((e) => e.status === 'unmatched').length,
  };
  // from the draft, the draft itself already beat the starting skill on val (it may stand alone)
  const passed = trainingImproved(result);
  if (result.stoppedBy === 'aborted') {
    ir.status = 'stopped';
    ir.reason = 'the night was stopped during training; nothing staged for this skill';
    return;
  }
  if (!passed) {
    const early = result.stoppedBy === 'budget' || result.stoppedBy === 'deadline';
    ir.status = early ? 'stopped' : 'not_improved';
    ir.reason = `no candidate beat the current skill on validation (${before.val.toFixed(2)})${early ? `; the night's ${result.stoppedBy === 'deadline' ? 'deadline passed' : 'budget (this skill\'s fair share of what remained) ran out'} during training` : ''}`;
    ir.needed = early
      ? 'raise budget.maxCalls / budget.maxTokens / budget.maxUsd or move budget.deadline (`skillopt-sleep night --dry-run` shows the forecast)'
      : 'nothing to do: the skill stays as it is; more or different recurring tasks may help';
    return;
  }
  // the gate compared scores that failed calls made (a failed rollout scores 0): not a proposal
  const broken = a.callHealth?.() ?? null;
  if (broken) {
    ir.status = 'failed';
    ir.reason = `not staged: ${broken}`;
    ir.needed = 'check the backends (`skillopt-sleep doctor --live`) and the ledger (`skillopt-sleep ledger`), then run the night again';
    return;
  }
  if ((readIfExists(item.target.path) ?? null) !== base) a.report.notes.push(`${item.target.path} changed during the night; its proposal will be refused as stale until retrained`);
  // a refused target (proposals/targets.ts) costs this skill its proposal, never the night
  let proposal: ReturnType<typeof stageTrainResult>;
  try {
    proposal = stageTrainResult(a.db, a.paths, {
      target: item.target,
      userSkillPath: a.userSkillPath === item.target.path ? a.userSkillPath : undefined,
      // the night's own environment: a personal skill is derived from its HOME, not the process's
      env: a.env,
      baseContent: base,
      result,
      editScope: item.target.kind === 'managed' || a.config.training.fullDocument ? 'document' : 'learned',
      nightId: a.nightId,
      backends: a.backends,
      tokenBudget: a.config.training.skillTokenBudget,
      plan: { routedBy: item.routedBy, tasks: { ...ir.tasks.ids, test: open.map((t) => t.id) }, corrections: [...item.tasks.train, ...item.tasks.val].flatMap((t) => t.corrections.map((c) => ({ taskId: t.id, correction: c }))) },
    });
  } catch (err) {
    if (isSleepError(err) && err.code === 'ABORTED') throw err;
    ir.status = 'failed';
    ir.reason = `trained, but the proposal could not be staged: ${errorMessage(err)}`;
    if (isSleepError(err) && err.hint) ir.needed = err.hint;
    return;
  }
  if (!proposal) throw new Error(`${item.target.name}: training improved on validation but nothing was staged`);
  ir.status = 'staged';
  ir.proposalId = proposal.id;
  if (result.stoppedBy === 'budget' || result.stoppedBy === 'deadline') {
    ir.reason = `staged what passed the gate before training stopped: the night's ${result.stoppedBy === 'deadline' ? 'deadline passed' : "budget (this skill's fair share of what remained) ran out"}`;
  }
  a.report.proposals.push(proposal.id);
  maybeAutoApply(a, proposal.id, { before: before.test, after: result.best.test });
  await scoreAudit(a, audit, start, result.bestSkill);
}

/**
 * The tasks the judge's audit replays: validation tasks first, then test tasks, then train tasks.
 * The trainer measures the starting skill on validation (its first measure) and on the test split
 * (the "before" figure), the audit's replies are that skill's, and a rollout is cached by skill,
 * task and sample: each audited val or test task is a rollout (and a grade) the night then need not
 * pay for again. A train task is replayed under the starting skill only here (the train batches run
 * the incumbent, the start draft when the gate took it). Test tasks stay held out: the audit checks
 * the judge's agreement with itself and the rules, and no skill is chosen on what it sees. The same
 * number of judged tasks as a draw over every task; each split fills what the one before lacks.
 */
export function judgeAuditTasks(tasks: { train: Task[]; val: Task[]; test?: Task[] }, seed: number): Task[] {
  const picked: Task[] = [];
  for (const split of [tasks.val, tasks.test ?? [], tasks.train]) picked.push(...auditSample(split, seed, JUDGE_AUDIT_SAMPLE - picked.length));
  return picked;
}

/**
 * The judge's sanity audit (replay/judge-audit.ts) before its scores reach the gate: a judge that
 * contradicts itself or its own rule checks past the threshold makes the skill `failed`, nothing
 * trained or staged, and says why. False when the skill must stop here.
 */
async function judgeIsSane(a: TrainItemArgs, tasks: Task[], start: string): Promise<boolean> {
  const { ir } = a;
  try {
    const audit = await auditJudge({ db: a.db, tasks, skill: { name: a.item.target.name, content: start }, target: a.backends.target, judge: a.backends.judge, seed: a.config.training.seed, maxDisagreement: a.config.training.maxJudgeDisagreement, signal: a.signal });
    ir.judgeAudit = { verdict: audit.verdict, sampled: audit.sampled, repeat: { pairs: audit.repeat.pairs, disagreements: audit.repeat.disagreements }, rules: { pairs: audit.rules.pairs, disagreements: audit.rules.disagreements }, maxDisagreement: audit.maxDisagreement };
    if (audit.verdict === 'skipped') return true;
    a.progress.log(`  judge audit: ${audit.reason}`);
    if (audit.verdict === 'passed') return true;
    ir.status = 'failed';
    ir.reason = `not trained, nothing staged: ${audit.reason}`;
    ir.needed = 'use a stronger or steadier judge model (config roles.judge.model), or give these tasks rule checks instead of a rubric';
    return false;
  } catch (err) {
    const code = isSleepError(err) ? err.code : 'INTERNAL';
    if (code === 'ABORTED') throw err;
    ir.status = code === 'BUDGET_EXCEEDED' ? 'stopped' : 'failed';
    ir.reason = code === 'BUDGET_EXCEEDED' ? `the budget ran out before the judge could be audited (its scores reach the gate only after that): ${errorMessage(err)}` : `the judge could not be audited, so its scores were not used: ${errorMessage(err)}`;
    if (code === 'BUDGET_EXCEEDED') ir.needed = "raise budget.maxCalls / budget.maxTokens / budget.maxUsd (`skillopt-sleep night --dry-run` shows the forecast)";
    if (isSleepError(err) && err.hint && code !== 'BUDGET_EXCEEDED') ir.needed = err.hint;
    return false;
  }
}

/**
 * The audit figure of a staged skill: the sealed slice scored under the starting and the staged
 * skill, written to the night report only (after autoApply decided, so nothing reads it first).
 * A failure here costs the figure, never the proposal.
 */
async function scoreAudit(a: TrainItemArgs, audit: Task[], before: string, after: string): Promise<void> {
  if (!audit.length || !a.ir.audit) return;
  const score = async (content: string) =>
    (await scoreSkill({ db: a.db, tasks: audit, skill: { name: a.item.target.name, content }, target: a.backends.target, judge: a.backends.judge, metric: a.config.training.gateMetric, signal: a.signal, label: 'audit' })).mean;
  try {
    a.ir.audit.before = await score(before);
    a.ir.audit.after = await score(after);
  } catch (err) {
    if (isSleepError(err) && err.code === 'ABORTED') throw err;
    a.report.notes.push(`audit slice of ${a.item.target.name} not scored: ${errorMessage(err)}`);
  }
}

function maybeAutoApply(a: TrainItemArgs, proposalId: string, test: { before: number | null; after: number | null }): void {
  if (!a.config.autoApply) return;
  const { before, after } = test;
  if (before === null || after === null) {
    a.report.notes.push(`auto-apply skipped for ${proposalId}: no held-out test tasks to confirm it does not regress`);
    return;
  }
  // no gain on the held-out tasks (the same score counts): the user decides, never autoApply
  if (after <= before) {
    a.report.notes.push(`auto-apply skipped for ${proposalId}: no gain on the held-out test tasks (${before.toFixed(2)} → ${after.toFixed(2)})`);
    return;
  }
  try {
    applyProposal(a.db, a.paths, proposalId, { env: a.env });
    a.ir.status = 'applied';
    a.ir.autoApplied = true;
  } catch (err) {
    a.report.notes.push(`auto-apply of ${proposalId} failed: ${errorMessage(err)}`);
  }
}

