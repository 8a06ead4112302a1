/**
 * `skills [--project P]`: every skill and instruction file skillopt-sleep finds for your projects
 * (and your personal ones), which agents read each (the agent registry's skill locations), which
 * mined tasks a night would route to it (the night's own planner, so this is what a night would
 * do), and when it was last trained and last changed by an apply. A learned skill that does not
 * exist yet but would receive tasks is listed too, marked "not written yet".
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { action } from '../run.js';
import type { CliContext } from '../context.js';
import { iso } from '../json-shape.js';
import { resolveProjectOption } from '../project.js';
import { agentsLabel } from './proposals.js';
import type { AgentId, SkillTarget, Task } from '../../core/records.js';
import { planNight } from '../../night/plan.js';
import { listTasks } from '../../store/repos/tasks.js';
import { listKnownProjects } from '../../store/repos/sessions.js';
import { listProposals } from '../../store/repos/proposals.js';
import { listRuns } from '../../store/repos/runs.js';
import { discoverSkills, managedSkillTarget, personalManagedSkillTarget } from '../../../adapters/skills-registry.js';

export interface SkillRow {
  path: string;
  name: string;
  kind: SkillTarget['kind'];
  project: string | null;
  readBy: AgentId[];
  exists: boolean;
  routedBy: string | null;
  tasks: { train: number; val: number; test: number; ids: string[] };
  /** why a night would not train it now (too few validation tasks, …) */
  skip: string | null;
  lastTrainedAt: string | null;
  lastTrainRun: string | null;
  lastProposal: { id: string; status: string; createdAt: string | null } | null;
  lastAppliedAt: string | null;
}

export function listSkillRows(ctx: CliContext, project?: string): SkillRow[] {
  const env = ctx.env;
  const projects = project ? [project] : listKnownProjects(ctx.db);
  const tasks: Task[] = listTasks(ctx.db, { status: 'active', ...(project ? { project } : {}) }).filter((t) => t.origin !== 'dream');
  const skillsByProject = new Map<string, SkillTarget[]>();
  for (const p of new Set([...projects, ...tasks.map((t) => t.project ?? '')])) skillsByProject.set(p, discoverSkills({ project: p || null, env, config: ctx.config }));
  const plan = planNight({
    tasks,
    skillsByProject,
    managed: (p, agentsUsed) => managedSkillTarget({ project: p, env }, { agentsUsed }),
    personal: (agentsUsed) => personalManagedSkillTarget({ env }, { agentsUsed }),
    maxTasks: Number.MAX_SAFE_INTEGER, // (every routed task, not one night's share)
    minValTasks: ctx.config.training.minValTasks,
  });
  const rows = new Map<string, SkillRow>();
  const base = (t: SkillTarget): SkillRow => ({
    path: t.path,
    name: t.name,
    kind: t.kind,
    project: t.project ?? null,
    readBy: t.readBy,
    exists: fs.existsSync(t.path),
    routedBy: null,
    tasks: { train: 0, val: 0, test: 0, ids: [] },
    skip: null,
    lastTrainedAt: null,
    lastTrainRun: null,
    lastProposal: null,
    lastAppliedAt: null,
  });
  for (const list of skillsByProject.values()) for (const t of list) if (!rows.has(t.path)) rows.set(t.path, base(t));
  for (const item of plan.items) {
    const row = rows.get(item.target.path) ?? base(item.target);
    row.routedBy = item.routedBy;
    row.tasks = {
      train: item.tasks.train.length,
      val: item.tasks.val.length,
      test: item.tasks.test.length,
      ids: [...item.tasks.train, ...item.tasks.val, ...item.tasks.test].map((t) => t.id),
    };
    row.skip = item.skip ? `${item.skip.reason}; ${item.skip.needed}` : null;
    rows.set(row.path, row);
  }
  // last trained: the newest train run on the file; last proposal and apply: from the proposals
  for (const run of listRuns(ctx.db, { kind: 'train', limit: 10_000 })) {
    const row = typeof run.record.path === 'string' ? rows.get(run.record.path) : undefined;
    if (row && !row.lastTrainRun) {
      row.lastTrainRun = run.id;
      row.lastTrainedAt = iso(run.endedAt ?? run.startedAt);
    }
  }
  for (const p of listProposals(ctx.db)) {
    const row = rows.get(p.skillTarget.path);
    if (!row) continue;
    if (!row.lastProposal) row.lastProposal = { id: p.id, status: p.status, createdAt: iso(p.createdAt) };
    if (p.status === 'applied' && !row.lastAppliedAt) row.lastAppliedAt = iso(p.decidedAt ?? p.createdAt);
  }
  return [...rows.values()].sort((a, b) => (a.project ?? '\uffff').localeCompare(b.project ?? '\uffff') || a.path.localeCompare(b.path));
}

function renderRows(ctx: CliContext, rows: SkillRow[]): void {
  if (!rows.length) {
    ctx.print('no skill or instruction files found yet, and no mined task to learn from');
    ctx.print('use your agents, then `skillopt-sleep harvest` and `skillopt-sleep tasks list`');
    return;
  }
  let group: string | null | undefined;
  for (const r of rows) {
    if (r.project !== group) {
      group = r.project;
      ctx.print(group ? `${group}` : 'personal (every project)');
    }
    const n = r.tasks.train + r.tasks.val + r.tasks.test;
    ctx.print(`  ${r.name}  (${r.kind})${r.exists ? '' : '  not written yet'}`);
    ctx.print(`    file      ${r.path}`);
    ctx.print(`    read by   ${agentsLabel(r.readBy)}`);
    ctx.print(`    tasks     ${n ? `${n} (${r.tasks.train} train / ${r.tasks.val} val / ${r.tasks.test} test${r.routedBy === 'skill-hint' ? ', they invoked this skill' : ''})` : 'none route here'}${r.skip ? ` — not trained yet: ${r.skip}` : ''}`);
    const when = (t: string) => `${t.slice(0, 16).replace('T', ' ')} UTC`;
    const trained = r.lastTrainedAt ? `${when(r.lastTrainedAt)} (run ${r.lastTrainRun})` : 'never';
    const prop = r.lastProposal ? `; last proposal ${r.lastProposal.id} ${r.lastProposal.status}` : '';
    const applied = r.lastAppliedAt ? `; last applied ${when(r.lastAppliedAt)}` : '';
    ctx.print(`    trained   ${trained}${prop}${applied}`);
  }
}

export function register(program: Command): void {
  program
    .command('skills')
    .description('every skill and instruction file found, which agents read it, which tasks route to it, when it was last trained')
    .option('--project <p>', 'only this project (path or folder name)')
    .action(
      action((ctx, opts: { project?: string }) => {
        const project = opts.project ? resolveProjectOption(ctx.db, opts.project, { mustExist: true }) : undefined;
        const rows = listSkillRows(ctx, project);
        ctx.emit('skills', { project: project ?? null, skills: rows }, () => renderRows(ctx, rows));
      }),
    );
}
