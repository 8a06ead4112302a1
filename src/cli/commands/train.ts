/**
 * `skillopt-sleep train`: train one skill on the mined (or given) tasks with the gated optimizer,
 * print one line per step, and stage the result as a proposal. Never writes the live skill.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { projectOfCwd, resolveProjectOption } from '../project.js';
import { action } from '../run.js';
import type { CliContext } from '../context.js';
import { SleepError, UsageError } from '../../core/errors.js';
import type { SkillTarget, Task } from '../../core/records.js';
import { readIfExists } from '../../core/fsutil.js';
import { parseTaskFile } from '../../mine/task-file.js';
import { BackendName, withBackendForEveryRole } from '../../core/config.js';
import { newId } from '../../core/ids.js';
import { listTasks } from '../../store/repos/tasks.js';
import { budgetFromConfig } from '../../llm/budget.js';
import { createRoleBackends } from '../../llm/registry.js';
import { isSkillPathSpec, managedSkillTarget, resolveSkillTarget, scaffoldSkill } from '../../../adapters/skills-registry.js';
import { resolveTrainOptions, stepsPerEpoch, trainOptionsFromConfig, trainSkill, type TrainOptions, type TrainResult } from '../../trainer/index.js';
import { lrSeries, MINIBATCH_SIZE, SLOW_UPDATE_SAMPLES, type LrSchedule } from '../../trainer/index.js';
import { stageTrainResult, trainingImproved } from '../../proposals/stage-train.js';
import { assertDerivedTarget } from '../../proposals/targets.js';

interface TrainFlags {
  skill?: string;
  project?: string;
  tasks?: string;
  epochs?: string;
  batchSize?: string;
  lr?: string;
  lrSchedule?: string;
  gateMetric?: string;
  regression?: boolean; // commander: --no-regression → regression === false
  rescue?: boolean; // --no-rescue → false (likewise --no-prune, --no-simplify); undefined/true = config
  prune?: boolean;
  simplify?: boolean;
  seed?: string;
  backend?: string;
  dryRun?: boolean;
  resume?: string;
}

function int(value: string | undefined, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} must be an integer ≥ ${min} (got "${value}")`);
  return n;
}

function oneOf<T extends string>(value: string | undefined, flag: string, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')} (got "${value}")`);
  return value as T;
}

/**
 * `--tasks FILE`: the same reader and the same rules as `tasks import` (a v1 envelope, a JSON array
 * or JSON Lines; every problem named at once), so one file works for both.
 */
export function readTasksFile(file: string, seed?: number): Task[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new SleepError('NOT_FOUND', `cannot read tasks file ${file}: ${(err as Error).message}`, { hint: 'pass a task file (`skillopt-sleep tasks export` writes one)' });
  }
  // the file's splits are used as given for this one run (nothing is stored), synthetic held-out tasks included
  return parseTaskFile(text, file, { seed, syntheticHeldOut: true }).tasks;
}

/** Picks the tasks: the file, else the store (project filter; tasks hinted for this skill when any). */
function chooseTasks(ctx: CliContext, flags: TrainFlags, project: string | null, target: SkillTarget): { tasks: Task[]; source: string } {
  if (flags.tasks) return { tasks: readTasksFile(path.resolve(flags.tasks), ctx.config.training.seed).filter((t) => t.status === 'active'), source: flags.tasks };
  const all = listTasks(ctx.db, { ...(project ? { project } : {}), status: 'active' });
  const hinted = all.filter((t) => t.skillHint === target.name);
  if (hinted.length) return { tasks: hinted, source: `store: tasks hinted for ${target.name}` };
  return { tasks: all, source: project ? `store: project ${project}` : 'store: all projects' };
}

function renderSummary(ctx: CliContext, r: TrainResult, proposalId: string | null): void {
  const f = (x: number | null) => (x === null ? '—' : x.toFixed(3));
  const accepted = r.edits.filter((e) => e.status === 'accepted');
  ctx.print('');
  ctx.print(`run ${r.runId} (${r.runDir})`);
  ctx.print(`stopped: ${r.stoppedBy} after ${r.steps.length} step(s); best from step ${r.bestStep}`);
  // a run that started from the start draft is reported from the skill it was given
  const before = r.startDraft ? { val: r.startDraft.startVal, test: r.startDraft.startTest } : r.baseline;
  if (r.startDraft) ctx.print(r.startDraft.note);
  ctx.print(`validation: ${f(before.val)} → ${f(r.best.val)}`);
  ctx.print(`test:       ${f(before.test)} → ${f(r.best.test)}`);
  ctx.print(`edits: ${accepted.length} accepted, ${r.edits.filter((e) => e.status === 'rejected').length} rejected, ${r.edits.filter((e) => e.status === 'unmatched').length} unmatched`);
  for (const e of accepted) {
    const effect = e.effect === null || e.effect === undefined ? '' : ` (effect ${e.effect >= 0 ? '+' : ''}${e.effect.toFixed(3)})`;
    ctx.print(`  + ${e.op}: ${e.content.replace(/\s+/g, ' ').slice(0, 100)}${effect}`);
  }
  const u = r.usage.total;
  ctx.print(`model calls: ${u.calls} (${u.tokensIn + u.tokensOut} tokens, $${u.costUsd.toFixed(4)})`);
  if (proposalId) ctx.print(`staged proposal ${proposalId}: review with \`skillopt-sleep review\` or \`skillopt-sleep proposals show ${proposalId}\``);
  else ctx.print('no proposal staged: nothing beat the starting skill on validation');
  if (r.stoppedBy === 'aborted') ctx.print(`resume with: skillopt-sleep train --resume ${r.runId} (same flags)`);
}

async function train(ctx: CliContext, flags: TrainFlags): Promise<number> {
  const config = withBackendForEveryRole(ctx.config, oneOf(flags.backend, '--backend', BackendName.options));
  const options: Partial<TrainOptions> = {
    ...trainOptionsFromConfig(config.training),
    ...Object.fromEntries(
      Object.entries({
        epochs: int(flags.epochs, '--epochs', 1),
        batchSize: int(flags.batchSize, '--batch-size', 1),
        lr: int(flags.lr, '--lr', 1),
        lrSchedule: oneOf<LrSchedule>(flags.lrSchedule, '--lr-schedule', ['cosine', 'linear', 'constant', 'autonomous']),
        gateMetric: oneOf(flags.gateMetric, '--gate-metric', ['hard', 'soft', 'mixed'] as const),
        noRegression: flags.regression === false ? true : undefined,
        rescue: flags.rescue === false ? false : undefined,
        prune: flags.prune === false ? false : undefined,
        simplify: flags.simplify === false ? false : undefined,
        seed: int(flags.seed, '--seed', 0),
      }).filter(([, v]) => v !== undefined),
    ),
  };
  const resolved = resolveTrainOptions(options);
  // no --project: the current directory's project, refused when it is not a harvested one (e.g. the tool's own clone)
  const project = flags.project ? resolveProjectOption(ctx.db, flags.project, { mustExist: !flags.tasks }) : flags.tasks ? null : projectOfCwd(ctx.db);
  const locCtx = { project: project ?? process.cwd(), env: ctx.env };
  const target = flags.skill ? resolveSkillTarget(flags.skill, locCtx) : managedSkillTarget({ ...locCtx, project: locCtx.project });
  const baseContent = readIfExists(target.path) ?? null;
  const handWritten = baseContent !== null && target.kind !== 'managed';
  const startContent = baseContent ?? (path.basename(target.path) === 'SKILL.md' ? scaffoldSkill(target.name, `Conventions learned from your recurring ${target.name} tasks.`) : '');
  const { tasks, source } = chooseTasks(ctx, flags, project, target);
  const split = { train: tasks.filter((t) => t.split === 'train'), val: tasks.filter((t) => t.split === 'val'), test: tasks.filter((t) => t.split === 'test') };
  const spe = stepsPerEpoch(split.train.length, resolved.batchSize);
  const total = resolved.epochs * spe;
  const plan = {
    skill: { name: target.name, path: target.path, kind: target.kind, exists: baseContent !== null, editScope: handWritten && !resolved.fullDocument ? 'learned' : 'document' },
    tasks: { source, train: split.train.length, val: split.val.length, test: split.test.length },
    steps: { epochs: resolved.epochs, perEpoch: spe, total },
    lr: lrSeries(resolved.lrSchedule === 'autonomous' ? 'constant' : resolved.lrSchedule, total, resolved.lr, resolved.minLr),
    options: resolved,
    // a forecast, not a promise: cache hits make it cheaper, rescues of rejected candidates dearer
    forecast: {
      rollouts: split.val.length * (1 + total) + split.train.length * resolved.epochs + 2 * Math.min(SLOW_UPDATE_SAMPLES, split.train.length) * resolved.epochs + split.test.length * 2,
      optimizerCalls: total * (2 * Math.ceil(resolved.batchSize / MINIBATCH_SIZE) + 2) + resolved.epochs * 2,
    },
  };
  if (flags.dryRun) {
    ctx.emit('train-plan', { dryRun: true, ...plan }, () => {
      ctx.print(`skill:  ${target.name} (${target.path}${baseContent === null ? ', new' : ''}; edits in ${plan.skill.editScope === 'learned' ? 'the learned region only' : 'the whole document'})`);
      ctx.print(`tasks:  ${split.train.length} train / ${split.val.length} val / ${split.test.length} test  (${source})`);
      ctx.print(`steps:  ${resolved.epochs} epoch(s) × ${spe} = ${total}; lr ${resolved.lrSchedule} ${plan.lr.join(',')}`);
      ctx.print(`gate:   ${resolved.gateMetric}${resolved.noRegression ? ', no per-task regression' : ''}${resolved.margin ? `, margin ${resolved.margin}` : ''}`);
      const onOff = (b: boolean) => (b ? 'on' : 'off');
      ctx.print(`finish: rescue ${onOff(resolved.rescue)}, prune ${onOff(resolved.prune)}, simplify ${onOff(resolved.simplify)}; attribution of up to ${resolved.attributionMaxEdits} edit(s)`);
      ctx.print(`forecast: ~${plan.forecast.rollouts} rollouts, ~${plan.forecast.optimizerCalls} optimizer calls (before cache hits)`);
      ctx.print('dry run: no model was called, nothing was written');
    });
    return 0;
  }
  if (!split.train.length || !split.val.length) {
    throw new SleepError('INVALID_INPUT', `not enough tasks to train: ${split.train.length} train, ${split.val.length} val (${source})`, {
      hint: 'mine more sessions (`skillopt-sleep harvest` then `mine`), or pass --tasks FILE with train and val tasks',
    });
  }
  // a target no proposal could be staged for (not a git work tree of yours, a system folder, a link
  // leading out) is refused before any model call, not after the run
  assertDerivedTarget(ctx.db, target, { env: ctx.env, userSkillPath: flags.skill && isSkillPathSpec(flags.skill) ? target.path : undefined });
  const runId = flags.resume ?? newId('run');
  const budget = budgetFromConfig(config.budget);
  const backends = createRoleBackends(config, { db: ctx.db, runId, budget, env: ctx.env, simAllowed: flags.backend === 'sim' });
  if (!ctx.json) {
    const d = (r: { name: string; model: string }) => `${r.name}/${r.model}`;
    ctx.note(`backends: target ${d(backends.target)} · optimizer ${d(backends.optimizer)} · judge ${d(backends.judge)}`);
    ctx.print(`training ${target.name}: ${split.train.length} train / ${split.val.length} val / ${split.test.length} test tasks, ${resolved.epochs} epoch(s) × ${spe} step(s)`);
  }
  const abort = new AbortController();
  const onSigint = () => abort.abort(new SleepError('ABORTED', 'interrupted'));
  process.once('SIGINT', onSigint);
  let result: TrainResult;
  try {
    result = await trainSkill({
      db: ctx.db,
      paths: ctx.paths,
      skill: { name: target.name, content: startContent, path: target.path, handWritten },
      tasks: split,
      backends,
      options: resolved,
      budget,
      signal: abort.signal,
      onStep: (s) => ctx.print(s.line),
      onNote: (line) => ctx.print(line),
      runId,
      resume: !!flags.resume,
    });
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
  const proposal =
    result.stoppedBy === 'aborted' || !trainingImproved(result)
      ? null
      : stageTrainResult(ctx.db, ctx.paths, {
          target,
          baseContent,
          result,
          editScope: plan.skill.editScope as 'learned' | 'document',
          backends,
          tokenBudget: ctx.config.training.skillTokenBudget,
          // a path the user typed is the one write target allowed outside a harvested project
          userSkillPath: flags.skill && isSkillPathSpec(flags.skill) ? target.path : undefined,
        });
  ctx.emit(
    'train',
    {
      runId: result.runId,
      runDir: result.runDir,
      stoppedBy: result.stoppedBy,
      // the skill the user passed in, also when training started from the start draft
      baseline: result.startDraft ? { val: result.startDraft.startVal, test: result.startDraft.startTest } : result.baseline,
      startDraft: result.startDraft ? { val: result.startDraft.draftVal, rules: result.startDraft.rules, jobs: result.startDraft.jobs } : null,
      best: result.best,
      bestStep: result.bestStep,
      steps: result.steps,
      edits: result.edits,
      perTask: result.perTask,
      usage: result.usage,
      proposal: proposal ? { id: proposal.id, dir: proposal.dir } : null,
    },
    () => renderSummary(ctx, result, proposal?.id ?? null),
  );
  return 0;
}

export function register(program: Command): void {
  program
    .command('train')
    .description('train a skill on your recurring tasks with the gated optimizer and stage the result as a proposal (never writes the live file)')
    .option('--skill <path|name>', 'the skill to train (SKILL.md path or name); default: the project\'s managed learned skill')
    .option('--project <path>', 'project whose tasks and skills to use (default: skills of the current directory, tasks of every project; tasks hinted for the skill win)')
    .option('--tasks <file>', 'train on tasks from a JSON / JSON Lines file instead of the store')
    .option('--epochs <n>', 'epochs (config training.epochs)')
    .option('--batch-size <n>', 'train tasks per step (config training.batchSize)')
    .option('--lr <n>', 'learning rate: max edits per step (config training.lr)')
    .option('--lr-schedule <schedule>', 'cosine | linear | constant | autonomous (config training.lrSchedule)')
    .option('--gate-metric <metric>', 'hard | soft | mixed (config training.gateMetric)')
    .option('--no-regression', 'also reject candidates that lower any validation task')
    .option('--no-rescue', 'do not rescue the helpful edits of a rejected multi-edit candidate (config training.rescue)')
    .option('--no-prune', 'do not drop accepted edits that lower validation at the end (config training.prune)')
    .option('--no-simplify', 'do not drop accepted edits with no measurable effect at the end (config training.simplify)')
    .option('--seed <n>', 'seed for batch order and sampling (config training.seed)')
    .option('--backend <backend>', `use this backend for every role (${BackendName.options.filter((b) => b !== 'auto').join(', ')})`)
    .option('--resume <run-id>', 'resume an interrupted run from its last completed step')
    .option('--dry-run', 'print the plan and a call forecast; call no model')
    .action(action((ctx, flags: TrainFlags) => train(ctx, flags)));
}
