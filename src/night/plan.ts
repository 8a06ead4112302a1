/**
 * What a night trains, decided without side effects: tasks are routed to a skill — the user's
 * existing skill when the transcripts show it was invoked for that task (`skillHint`); else, by
 * family (the tasks that are occurrences of one recurring ask, routed together so the family's
 * train and validation instances meet in one training run): a family seen in one project goes to
 * that project's managed learned skill, a family seen in several projects (or in none) to the
 * personal managed learned skill, since it is the user's habit rather than a project's — capped to the night's task budget,
 * and checked: a target with too few validation tasks or with leaked splits is skipped with the
 * reason and what is needed. Also the budget forecast: the calls a plan will make, estimated
 * before the first one.
 */
import type { SkillTarget, Task } from '../core/records.js';
import type { CallEstimate } from '../llm/budget.js';
import { checkSplitIntegrity, MIN_TRAIN_AFTER_TOP_UP } from '../mine/splits.js';

export interface TaskSets {
  train: Task[];
  val: Task[];
  test: Task[];
}

export interface PlanItem {
  target: SkillTarget;
  project: string | null;
  tasks: TaskSets;
  routedBy: 'skill-hint' | 'managed' | 'personal' | 'explicit';
  /** epochs for this target when the budget fit (fit.ts) cut them below training.epochs */
  epochs?: number;
  /** set when this target must not be trained tonight */
  skip?: { reason: string; needed: string };
}

export interface PlanInput {
  tasks: Task[];
  /** the user's existing skills per project key ('' = no project) */
  skillsByProject: Map<string, SkillTarget[]>;
  /** the managed learned skill of a project */
  managed: (project: string, agentsUsed: Task['agents']) => SkillTarget;
  /** the personal managed learned skill (families seen in several projects); absent = such tasks are not trained */
  personal?: (agentsUsed: Task['agents']) => SkillTarget;
  maxTasks: number;
  minValTasks: number;
  /** `--skill`: train only this target, on its routed tasks (or all project tasks when none are routed) */
  only?: SkillTarget;
}

export interface NightPlan {
  items: PlanItem[];
  notes: string[];
}

const byPriority = (a: Task, b: Task) => b.occurrences - a.occurrences || (b.lastSeen ?? 0) - (a.lastSeen ?? 0) || a.id.localeCompare(b.id);

function splitSets(tasks: Task[]): TaskSets {
  const s: TaskSets = { train: [], val: [], test: [] };
  for (const t of [...tasks].sort(byPriority)) s[t.split].push(t);
  return s;
}

export const countTasks = (s: TaskSets): number => s.train.length + s.val.length + s.test.length;

/** Keeps at most `n` tasks, holding on to validation tasks first (the gate needs them), then test. */
export function capTasks(s: TaskSets, n: number, minVal: number): TaskSets {
  if (countTasks(s) <= n) return s;
  const val = s.val.slice(0, Math.min(s.val.length, Math.max(minVal, Math.round(n * 0.3)), n));
  const test = s.test.slice(0, Math.min(s.test.length, Math.round(n * 0.15), n - val.length));
  const train = s.train.slice(0, Math.max(0, n - val.length - test.length));
  return { train, val, test };
}

function hintedSkill(t: Task, skills: SkillTarget[]): SkillTarget | undefined {
  const hint = t.skillHint?.trim().toLowerCase();
  if (!hint) return undefined;
  return skills.find((s) => s.name.toLowerCase() === hint && s.kind !== 'managed');
}

export function planNight(input: PlanInput): NightPlan {
  const notes: string[] = [];
  const active = input.tasks.filter((t) => t.status === 'active');
  const groups = new Map<string, { target: SkillTarget; project: string | null; tasks: Task[]; routedBy: PlanItem['routedBy'] }>();
  const add = (target: SkillTarget, project: string | null, routedBy: PlanItem['routedBy'], t: Task) => {
    const g = groups.get(target.path) ?? { target, project, tasks: [], routedBy };
    g.tasks.push(t);
    groups.set(target.path, g);
  };

  if (input.only) {
    const only = input.only;
    const project = only.project ?? null;
    const pool = active.filter((t) => project === null || t.project === project);
    const routed = pool.filter((t) => t.skillHint?.toLowerCase() === only.name.toLowerCase());
    const chosen = routed.length > 0 ? routed : pool;
    if (routed.length === 0 && pool.length > 0) notes.push(`no task was seen invoking ${only.name}; training it on all ${pool.length} tasks of ${project ?? 'all projects'}`);
    for (const t of chosen) add(only, project, 'explicit', t);
    if (chosen.length === 0) groups.set(only.path, { target: only, project, tasks: [], routedBy: 'explicit' });
  } else {
    // a family's projects decide where its tasks go (a task without a family is its own family)
    const familyOf = (t: Task) => t.family ?? `task:${t.id}`;
    const familyProjects = new Map<string, Set<string | null>>();
    for (const t of active) {
      const set = familyProjects.get(familyOf(t)) ?? new Set();
      set.add(t.project);
      familyProjects.set(familyOf(t), set);
    }
    const homeProject = (t: Task): string | null => {
      const ps = familyProjects.get(familyOf(t))!;
      return ps.size === 1 ? [...ps][0] : null;
    };
    const agentsByProject = new Map<string, Set<Task['agents'][number]>>();
    const personalAgents = new Set<Task['agents'][number]>();
    const managedTasks: Array<{ t: Task; project: string | null }> = [];
    for (const t of active) {
      const skills = [...(input.skillsByProject.get(t.project ?? '') ?? [])];
      const hinted = hintedSkill(t, skills);
      if (hinted) {
        add(hinted, t.project, 'skill-hint', t);
        continue;
      }
      const project = homeProject(t);
      managedTasks.push({ t, project });
      const set = project ? (agentsByProject.get(project) ?? new Set()) : personalAgents;
      t.agents.forEach((a) => set.add(a));
      if (project) agentsByProject.set(project, set);
    }
    let unplaced = 0;
    let personalCount = 0;
    const personalTarget = input.personal && managedTasks.some((m) => m.project === null) ? input.personal([...personalAgents].sort()) : undefined;
    for (const { t, project } of managedTasks) {
      if (project) add(input.managed(project, [...(agentsByProject.get(project) ?? [])]), project, 'managed', t);
      else if (personalTarget) {
        add(personalTarget, null, 'personal', t);
        personalCount++;
      } else unplaced++;
    }
    if (personalCount) notes.push(`${personalCount} task(s) recur across projects: routed to your personal learned skill ${personalTarget!.path}`);
    if (unplaced) notes.push(`${unplaced} task(s) belong to no project and invoked no known skill; not trained tonight`);
  }

  let remaining = input.maxTasks;
  const ordered = [...groups.values()].sort((a, b) => b.tasks.length - a.tasks.length || a.target.path.localeCompare(b.target.path));
  const items: PlanItem[] = [];
  for (const g of ordered) {
    const all = splitSets(g.tasks);
    const tasks = capTasks(all, Math.max(0, remaining), input.minValTasks);
    if (countTasks(tasks) < countTasks(all)) notes.push(`${g.target.name}: using ${countTasks(tasks)} of ${countTasks(all)} tasks (budget.maxTasks = ${input.maxTasks})`);
    const item: PlanItem = { target: g.target, project: g.project, tasks, routedBy: g.routedBy };
    item.skip = checkItem(tasks, input.minValTasks);
    if (!item.skip) remaining -= countTasks(tasks);
    items.push(item);
  }
  return { items, notes };
}

/** Why a target must not be trained tonight (thin or leaked), with what would fix it. */
export function checkItem(tasks: TaskSets, minValTasks: number): PlanItem['skip'] {
  const n = countTasks(tasks);
  if (n === 0) return { reason: 'no tasks: nothing recurring was mined for it yet', needed: 'keep using your agents; a task needs to recur in at least mining.minSessions sessions' };
  const leaks = checkSplitIntegrity([...tasks.train, ...tasks.val, ...tasks.test]);
  if (leaks.length) {
    return {
      reason: `held-out tasks leak into training (${leaks.length}): ${leaks[0].message}`,
      needed: 'fix the task splits (`skillopt-sleep tasks list`, disable or re-mine the duplicates); the gate cannot be trusted until then',
    };
  }
  if (tasks.val.length < minValTasks) {
    // mining holds a thin skill's new tasks out for validation once it keeps its train minimum
    // (mine/splits.ts topUpThinValidation), so each new one counts, after the train minimum (an
    // estimate for a team night, whose splits are the team's: team/splits.ts)
    const more = minValTasks - tasks.val.length + Math.max(0, MIN_TRAIN_AFTER_TOP_UP - tasks.train.length);
    return {
      reason: `thin night: ${tasks.val.length} validation task(s), training.minValTasks is ${minValTasks}`,
      needed: `about ${more} more recurring task(s) for this skill; its tasks wait for a later night (keep working, it happens on its own), or lower training.minValTasks`,
    };
  }
  if (tasks.train.length === 0) return { reason: 'no training tasks (all tasks are held out)', needed: 'more recurring tasks for this skill' };
  return undefined;
}

export interface ForecastShape {
  epochs: number;
  batchSize: number;
  /** max edits per step: bounds how many accepted edits attribution re-scores */
  lr: number;
  /** at most this many accepted edits are re-scored by attribution (`training.attributionMaxEdits`; default 12) */
  attributionMaxEdits?: number;
  /** train tasks the epoch-boundary slow update compares */
  slowUpdateSamples?: number;
  /** characters of the skill the night starts from */
  skillChars: number;
  /** price of one call of each kind (USD per call estimate) */
  estimate: (kind: 'rollout' | 'optimizer' | 'judge', promptChars: number) => CallEstimate;
}

/**
 * The calls one target's training will make when nothing is cached (so usually an upper bound):
 * the validation baseline; per step a train minibatch, two analysts, a merge, a rank and a
 * validation replay of the candidate; per epoch the slow update (a train sample under the skill
 * entering the epoch and the current one, the rewrite, a validation check) and the meta skill;
 * leave-one-edit-out attribution on validation; the test split before and after. Rubric and
 * outcome tasks add one judge call per rollout.
 */
export function forecastCalls(tasks: TaskSets, shape: ForecastShape): CallEstimate[] {
  const calls: CallEstimate[] = [];
  const rollout = (t: Task) => {
    calls.push(shape.estimate('rollout', shape.skillChars + t.intent.length + t.context.length + 400));
    const k = t.judge.reference.kind;
    if (k === 'rubric' || k === 'outcome') calls.push(shape.estimate('judge', t.intent.length + 3000));
  };
  const optimizer = () => calls.push(shape.estimate('optimizer', shape.skillChars + 6000));
  tasks.val.forEach(rollout);
  const steps = Math.max(1, Math.ceil(tasks.train.length / Math.max(1, shape.batchSize)));
  const sample = tasks.train.slice(0, shape.slowUpdateSamples ?? 20);
  for (let e = 0; e < shape.epochs; e++) {
    for (let s = 0; s < steps; s++) {
      tasks.train.slice(s * shape.batchSize, (s + 1) * shape.batchSize).forEach(rollout);
      for (let k = 0; k < 4; k++) optimizer();
      tasks.val.forEach(rollout);
    }
    sample.forEach(rollout);
    sample.forEach(rollout);
    optimizer();
    tasks.val.forEach(rollout);
    optimizer();
  }
  const attributed = Math.min(shape.attributionMaxEdits ?? 12, shape.epochs * steps * shape.lr);
  for (let k = 0; k < attributed; k++) tasks.val.forEach(rollout);
  for (let k = 0; k < 2; k++) tasks.test.forEach(rollout);
  return calls;
}
