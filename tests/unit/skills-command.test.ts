/**
 * `skills`: the user's own skills and instruction files are listed with the agents that read them,
 * tasks that invoked a skill route to it, other tasks to the learned skill (not written yet), and
 * "last trained" comes from the newest training run on the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import { makeTask } from '../helpers/tasks.js';
import { markProjectSeen } from '../helpers/seen-project.js';
import { CliContext } from '../../src/cli/context.js';
import { listSkillRows } from '../../src/cli/commands/skills.js';
import { upsertTask } from '../../src/store/repos/tasks.js';
import { createRun, updateRun } from '../../src/store/repos/runs.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('skills', () => {
  it('lists skills and instruction files with readers, routed tasks and last training', async () => {
    const root = makeTempDir('sos-skills-');
    dirs.push(root);
    const home = path.join(root, 'home');
    const project = path.join(home, 'src', 'app');
    fs.mkdirSync(path.join(project, '.git'), { recursive: true });
    const skill = path.join(project, '.claude', 'skills', 'vitest-style', 'SKILL.md');
    fs.mkdirSync(path.dirname(skill), { recursive: true });
    fs.writeFileSync(skill, '---\nname: vitest-style\ndescription: Use when writing vitest tests\n---\nUse describe/it.\n');
    fs.writeFileSync(path.join(project, 'CLAUDE.md'), '# house rules\n');
    const ctx = new CliContext({ json: true }, { SKILLOPT_SLEEP_HOME: path.join(root, 'sleep'), HOME: home, CLAUDE_CONFIG_DIR: path.join(home, '.claude'), CODEX_HOME: path.join(home, '.codex') });
    await ctx.loadStoreModules();
    markProjectSeen(ctx.db, project);
    const judge = { checks: [], reference: { kind: 'rule' as const } };
    const splits = ['train', 'train', 'val', 'val', 'val', 'test'] as const;
    splits.forEach((split, i) => upsertTask(ctx.db, makeTask({ id: `v${i}`, intent: `write vitest cases for the ${['parser', 'lexer', 'cache', 'router', 'store', 'clock'][i]} module`, judge, split, project, skillHint: 'vitest-style', family: 'cl_v', agents: ['claude-code'] })));
    upsertTask(ctx.db, makeTask({ id: 'c0', intent: 'changelog entry', judge, split: 'val', project, family: 'cl_c', agents: ['claude-code'] }));
    createRun(ctx.db, { id: 'run_1', kind: 'train', dir: root, record: { skill: 'vitest-style', path: skill }, startedAt: Date.UTC(2026, 10, 1) });
    updateRun(ctx.db, 'run_1', { status: 'done', endedAt: Date.UTC(2026, 10, 1, 0, 5) });

    const rows = listSkillRows(ctx);
    const vitest = rows.find((r) => r.path === skill)!;
    expect(vitest).toMatchObject({ name: 'vitest-style', kind: 'skill', project, exists: true, routedBy: 'skill-hint', skip: null, lastTrainRun: 'run_1', lastTrainedAt: '2026-11-01T00:05:00.000Z' });
    expect(vitest.tasks).toMatchObject({ train: 2, val: 3, test: 1 });
    expect(vitest.readBy).toContain('claude-code');
    const claudeMd = rows.find((r) => r.path === path.join(project, 'CLAUDE.md'))!;
    expect(claudeMd).toMatchObject({ kind: 'claude-md', exists: true, routedBy: null });
    expect(claudeMd.readBy).toContain('claude-code');
    const learned = rows.find((r) => r.kind === 'managed')!;
    expect(learned).toMatchObject({ exists: false, routedBy: 'managed', project });
    expect(learned.tasks.ids).toEqual(['c0']);
    expect(learned.skip).toMatch(/validation/); // one val task is too few: it says why it waits
    ctx.close();
  });
});
