import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import type { SkillTarget, Task } from '../../src/core/records.js';
import { assertWritableTarget, managedSkillTarget, personalManagedSkillTarget, resolveSkillTarget } from '../../adapters/skills-registry.js';
import { countTasks, planNight } from '../../src/night/plan.js';
import { makeTask } from '../helpers/tasks.js';
import { thinProjects } from '../../src/mine/splits.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function home() {
  const root = makeTempDir('sos-personal-');
  dirs.push(root);
  const h = path.join(root, 'home');
  fs.mkdirSync(h, { recursive: true });
  return { root, home: h };
}

describe('personal managed skill', () => {
  it('Claude Code (or Copilot) used: ~/.claude/skills, read by both when CLAUDE_CONFIG_DIR is unset', () => {
    const { home: h } = home();
    const env = { HOME: h };
    const t = personalManagedSkillTarget({ env }, { agentsUsed: ['claude-code', 'codex', 'copilot'] });
    expect(t.path).toBe(path.join(h, '.claude', 'skills', 'skillopt-sleep-learned', 'SKILL.md'));
    expect(t).toMatchObject({ kind: 'managed', project: null, name: 'skillopt-sleep-learned' });
    expect(t.readBy).toEqual(['claude-code', 'copilot', 'cursor', 'opencode']);
    expect(personalManagedSkillTarget({ env }, { agentsUsed: ['copilot'] }).path).toBe(t.path);
  });

  it('CLAUDE_CONFIG_DIR set: Claude reads its first entry; Codex only: ~/.agents/skills', () => {
    const { root, home: h } = home();
    const env = { HOME: h, CLAUDE_CONFIG_DIR: `${path.join(root, 'cc1')},${path.join(root, 'cc2')}`, CODEX_HOME: path.join(root, 'codex') };
    const claude = personalManagedSkillTarget({ env }, { agentsUsed: ['claude-code'] });
    expect(claude.path).toBe(path.join(root, 'cc1', 'skills', 'skillopt-sleep-learned', 'SKILL.md'));
    expect(claude.readBy).toEqual(['claude-code']);
    const codex = personalManagedSkillTarget({ env }, { agentsUsed: ['codex'] });
    expect(codex.path).toBe(path.join(h, '.agents', 'skills', 'skillopt-sleep-learned', 'SKILL.md'));
    expect(codex.readBy).toEqual(['codex', 'copilot', 'gemini', 'pi', 'cursor', 'opencode']);
  });

  it('apply accepts the personal root as a skill root; path-escape rules still hold', () => {
    const { root, home: h } = home();
    const env = { HOME: h };
    const t = personalManagedSkillTarget({ env }, { agentsUsed: ['claude-code'] });
    expect(assertWritableTarget(t.path, { project: null, env })).toMatchObject({ kind: 'skill', root: { scope: 'personal' } });
    // a symlinked skill folder leading outside the root is refused
    const outside = path.join(root, 'elsewhere');
    fs.mkdirSync(outside, { recursive: true });
    fs.mkdirSync(path.join(h, '.claude', 'skills'), { recursive: true });
    fs.symlinkSync(outside, path.join(h, '.claude', 'skills', 'evil'));
    expect(() => assertWritableTarget(path.join(h, '.claude', 'skills', 'evil', 'SKILL.md'), { project: null, env })).toThrow(/symlink/);
    expect(() => assertWritableTarget(`${h}/.claude/skills/x/../../y/SKILL.md`, { project: null, env })).toThrow(/contains "\.\."/);
    expect(() => assertWritableTarget(path.join(h, 'notes', 'x', 'SKILL.md'), { project: null, env })).toThrow(/not inside a skill folder/);
    // `--skill skillopt-sleep-learned` outside a project names the personal one
    expect(resolveSkillTarget('skillopt-sleep-learned', { project: null, env }).path).toBe(t.path);
  });
});

let n = 0;
function task(p: Partial<Task> & { split: Task['split'] }): Task {
  n++;
  return makeTask({
    id: `t${n}`,
    project: '/p',
    intent: `distinct ask number ${n} about topic${n}`,
    judge: { checks: [], reference: { kind: 'rule' } },
    firstSeen: 1,
    lastSeen: 2,
    agents: ['claude-code'],
    ...p,
  });
}
const managed = (project: string): SkillTarget => managedSkillTarget({ project, env: { HOME: '/home/dana' } }, { agentsUsed: ['claude-code'] });
const personal = (agents: Task['agents']): SkillTarget => personalManagedSkillTarget({ env: { HOME: '/home/dana' } }, { agentsUsed: agents });

describe('night plan routing by family', () => {
  // a family seen in two projects (the demo's changelog job) and one seen in a single project
  const crossFamily = [
    task({ split: 'train', family: 'cl_changelog', project: '/src/ledgerline' }),
    task({ split: 'train', family: 'cl_changelog', project: '/src/ledgerline', agents: ['codex'] }),
    task({ split: 'val', family: 'cl_changelog', project: '/src/tallybook', agents: ['copilot'] }),
  ];
  const localFamily = [
    task({ split: 'train', family: 'cl_vitest', project: '/src/ledgerline' }),
    task({ split: 'train', family: 'cl_vitest', project: '/src/ledgerline' }),
    task({ split: 'val', family: 'cl_vitest', project: '/src/ledgerline' }),
  ];

  it('a family seen in several projects goes whole to the personal skill; a one-project family to its project skill', () => {
    const plan = planNight({ tasks: [...crossFamily, ...localFamily], skillsByProject: new Map(), managed, personal, maxTasks: 60, minValTasks: 1 });
    const personalItem = plan.items.find((i) => i.routedBy === 'personal')!;
    expect(personalItem.target.path).toBe('/home/dana/.claude/skills/skillopt-sleep-learned/SKILL.md');
    expect(personalItem.project).toBeNull();
    expect(countTasks(personalItem.tasks)).toBe(3);
    expect(personalItem.tasks.val.map((t) => t.project)).toEqual(['/src/tallybook']); // train and val of one family meet in one run
    expect(personalItem.skip).toBeUndefined();
    const projectItem = plan.items.find((i) => i.routedBy === 'managed')!;
    expect(projectItem.target.path).toBe('/src/ledgerline/.claude/skills/skillopt-sleep-learned/SKILL.md');
    expect(countTasks(projectItem.tasks)).toBe(3);
    expect(plan.notes.join('\n')).toMatch(/3 task\(s\) recur across projects: routed to your personal learned skill/);
    expect(plan.notes.join('\n')).not.toMatch(/not trained tonight/);
  });

  it('cross-project tasks without a family (project null) also go to the personal skill; agents used pick its root', () => {
    const tasks = [task({ split: 'train', project: null, agents: ['codex'] }), task({ split: 'val', project: null, agents: ['codex'] })];
    const plan = planNight({ tasks, skillsByProject: new Map(), managed, personal, maxTasks: 60, minValTasks: 1 });
    expect(plan.items).toHaveLength(1);
    expect(plan.items[0].target.path).toBe('/home/dana/.agents/skills/skillopt-sleep-learned/SKILL.md');
    expect(plan.items[0].target.readBy).toEqual(['codex', 'copilot', 'gemini', 'pi', 'cursor', 'opencode']);
  });

  it('without a personal target such tasks are reported, not silently dropped', () => {
    const plan = planNight({ tasks: crossFamily, skillsByProject: new Map(), managed, maxTasks: 60, minValTasks: 1 });
    expect(plan.items).toHaveLength(0);
    expect(plan.notes).toContain('3 task(s) belong to no project and invoked no known skill; not trained tonight');
  });

  it('thin-data reporting counts a cross-project family where the night trains it', () => {
    const thin = thinProjects([...crossFamily, ...localFamily], 3);
    expect(thin.map((t) => [t.project, t.tasks, t.valTasks])).toEqual([
      [null, 3, 1],
      ['/src/ledgerline', 3, 1],
    ]);
  });
});
