import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/sandbox.js';
import {
  assertWritableTarget,
  discoverSkills,
  isValidSkillName,
  managedSkillTarget,
  parseFrontMatter,
  readBy,
  resolveSkillTarget,
  scaffoldSkill,
  skillRoots,
} from '../../adapters/skills-registry.js';
import { codexSkillRoots } from '../../adapters/codex/skills.js';
import { claudeSkillRoots } from '../../adapters/claude-code/skills.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function world() {
  const root = makeTempDir('sos-skills-');
  dirs.push(root);
  const home = path.join(root, 'home');
  const project = path.join(root, 'proj');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  const env = { HOME: home, CLAUDE_CONFIG_DIR: path.join(root, 'claude'), CODEX_HOME: path.join(root, 'codex'), COPILOT_HOME: path.join(root, 'copilot') };
  const write = (p: string, text = '---\nname: x\ndescription: y\n---\nbody\n') => {
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  };
  return { root, home, project, env, write, ctx: { project, env, home } };
}

describe('skill roots per agent', () => {
  it('Claude: project .claude/skills and every CLAUDE_CONFIG_DIR entry', () => {
    const w = world();
    const roots = claudeSkillRoots({ project: w.project, env: { ...w.env, CLAUDE_CONFIG_DIR: `${w.root}/a,${w.root}/b` } });
    expect(roots.map((r) => r.dir)).toEqual([path.join(w.project, '.claude/skills'), path.join(w.root, 'a/skills'), path.join(w.root, 'b/skills')]);
    const dflt = claudeSkillRoots({ project: null, env: { HOME: w.home } });
    expect(dflt.map((r) => r.dir)).toEqual([path.join(w.home, '.claude/skills')]);
  });

  it('Codex: .agents/skills from cwd up to the repo root, personal roots, .system reserved', () => {
    const w = world();
    const cwd = path.join(w.project, 'packages/core');
    fs.mkdirSync(cwd, { recursive: true });
    const roots = codexSkillRoots({ project: w.project, cwd, env: w.env, home: w.home });
    expect(roots.map((r) => r.dir)).toEqual([
      path.join(cwd, '.agents/skills'),
      path.join(w.project, 'packages/.agents/skills'),
      path.join(w.project, '.agents/skills'),
      path.join(w.home, '.agents/skills'),
      path.join(w.root, 'codex/skills'),
    ]);
    expect(roots[4].reserved).toEqual(['.system']);
  });

  it('merges roots shared by several agents and reports readBy', () => {
    const w = world();
    const merged = skillRoots(w.ctx);
    const claudeProject = merged.find((r) => r.dir === path.join(w.project, '.claude/skills'))!;
    expect(claudeProject.agents.sort()).toEqual(['claude-code', 'copilot', 'cursor', 'opencode']);
    expect(readBy(path.join(w.project, '.agents/skills/x/SKILL.md'), w.ctx)).toEqual(['codex', 'copilot', 'gemini', 'pi', 'cursor', 'opencode', 'antigravity']);
    expect(readBy(path.join(w.project, '.github/skills/x/SKILL.md'), w.ctx)).toEqual(['copilot']);
    expect(readBy(path.join(w.project, 'AGENTS.md'), w.ctx)).toEqual(['codex', 'copilot', 'pi', 'cursor', 'opencode', 'antigravity']);
    expect(readBy(path.join(w.project, 'CLAUDE.md'), w.ctx)).toEqual(['claude-code', 'copilot']);
    expect(readBy(path.join(w.project, '.github/instructions/ts.instructions.md'), w.ctx)).toEqual(['copilot']);
    expect(readBy(path.join(w.home, '.claude/skills/x/SKILL.md'), w.ctx)).toEqual(['copilot', 'cursor', 'opencode']); // Claude reads $CLAUDE_CONFIG_DIR here
    expect(readBy(path.join(w.root, 'elsewhere/x/SKILL.md'), w.ctx)).toEqual([]);
  });
});

describe('discovery', () => {
  it('finds skills and instruction files, skips Codex .system and dot folders', () => {
    const w = world();
    w.write(path.join(w.project, '.claude/skills/changelog/SKILL.md'), '---\nname: changelog\ndescription: Write changelog entries\n---\n# Changelog\n');
    w.write(path.join(w.root, 'codex/skills/.system/plan/SKILL.md'));
    w.write(path.join(w.root, 'codex/skills/vitest-style/SKILL.md'));
    w.write(path.join(w.project, 'AGENTS.md'), '# agents\n');
    w.write(path.join(w.project, '.github/copilot-instructions.md'), 'be terse\n');
    w.write(path.join(w.project, '.github/instructions/ts.instructions.md'), '---\napplyTo: "**/*.ts"\n---\nuse strict\n');
    const found = discoverSkills(w.ctx);
    const byName = Object.fromEntries(found.map((f) => [f.name, f]));
    expect(Object.keys(byName).sort()).toEqual(['.github/copilot-instructions.md', '.github/instructions/ts.instructions.md', 'AGENTS.md', 'changelog', 'vitest-style']);
    expect(byName.changelog.kind).toBe('skill');
    expect(byName.changelog.readBy).toEqual(['claude-code', 'copilot', 'cursor', 'opencode']);
    expect(byName['vitest-style'].agent).toBe('codex');
    expect(byName['AGENTS.md'].kind).toBe('agents-md');
    expect(byName['.github/instructions/ts.instructions.md'].kind).toBe('instructions');
    expect(resolveSkillTarget('changelog', w.ctx).path).toBe(path.join(w.project, '.claude/skills/changelog/SKILL.md'));
    expect(() => resolveSkillTarget('nope', w.ctx)).toThrow(/no skill named "nope"/);
  });

  it('the managed skill goes where the project\'s agents read it, with valid front matter', () => {
    const w = world();
    const t = managedSkillTarget({ ...w.ctx, project: w.project }, { agentsUsed: ['claude-code', 'codex'] });
    expect(t.path).toBe(path.join(w.project, '.claude/skills/skillopt-sleep-learned/SKILL.md'));
    expect(t.readBy).toEqual(['claude-code', 'copilot', 'cursor', 'opencode']);
    // Claude Code and Codex share no folder: Codex gets a copy in its own root, and knows it
    expect(t.mirrors).toEqual([{ path: path.join(w.project, '.agents/skills/skillopt-sleep-learned/SKILL.md'), readBy: ['codex', 'copilot', 'gemini', 'pi', 'cursor', 'opencode', 'antigravity'] }]);
    const c = managedSkillTarget({ ...w.ctx, project: w.project }, { agentsUsed: ['codex'] });
    expect(c.path).toBe(path.join(w.project, '.agents/skills/skillopt-sleep-learned/SKILL.md'));
    expect(c.mirrors).toBeUndefined();
    // Claude Code with Copilot: one folder both read, no copy
    expect(managedSkillTarget({ ...w.ctx, project: w.project }, { agentsUsed: ['claude-code', 'copilot'] }).mirrors).toBeUndefined();
    const doc = scaffoldSkill('skillopt-sleep-learned', 'Recurring tasks: changelog: entries; tests');
    expect(parseFrontMatter(doc)).toEqual({ name: 'skillopt-sleep-learned', description: 'Recurring tasks: changelog: entries; tests', applyTo: undefined });
    expect(isValidSkillName('Bad_Name')).toBe(false);
    expect(() => scaffoldSkill('Bad_Name', 'x')).toThrow();
  });
});

describe('write guard (PATH_ESCAPE)', () => {
  it('admits SKILL.md in a root and known instruction files', () => {
    const w = world();
    expect(assertWritableTarget(path.join(w.project, '.claude/skills/new-one/SKILL.md'), w.ctx).kind).toBe('skill');
    expect(assertWritableTarget(path.join(w.project, 'AGENTS.md'), w.ctx).kind).toBe('instructions');
    expect(assertWritableTarget(path.join(w.project, '.github/instructions/a.instructions.md'), w.ctx).kind).toBe('instructions');
  });

  it('refuses names and paths that escape, Codex .system, and symlinks', () => {
    const w = world();
    const code = (f: () => unknown) => {
      try {
        f();
        return 'ok';
      } catch (err) {
        return (err as { code?: string }).code;
      }
    };
    expect(code(() => assertWritableTarget(path.join(w.project, '.claude/skills/../../../etc/SKILL.md'), w.ctx))).toBe('PATH_ESCAPE');
    expect(code(() => assertWritableTarget(path.join(w.project, 'src/SKILL.md'), w.ctx))).toBe('PATH_ESCAPE');
    expect(code(() => assertWritableTarget(path.join(w.project, 'README.md'), w.ctx))).toBe('PATH_ESCAPE');
    expect(code(() => assertWritableTarget(path.join(w.root, 'codex/skills/.system/SKILL.md'), w.ctx))).toBe('PATH_ESCAPE');
    expect(code(() => assertWritableTarget(path.join(w.root, 'codex/skills/.system/x/SKILL.md'), w.ctx))).toBe('PATH_ESCAPE');
    // a skill folder that is a symlink to somewhere else
    const outside = path.join(w.root, 'outside');
    fs.mkdirSync(outside);
    fs.mkdirSync(path.join(w.project, '.claude/skills'), { recursive: true });
    fs.symlinkSync(outside, path.join(w.project, '.claude/skills/evil'));
    expect(code(() => assertWritableTarget(path.join(w.project, '.claude/skills/evil/SKILL.md'), w.ctx))).toBe('PATH_ESCAPE');
    // a SKILL.md that is itself a symlink
    fs.mkdirSync(path.join(w.project, '.claude/skills/linked'));
    fs.writeFileSync(path.join(outside, 'target.md'), 'x');
    fs.symlinkSync(path.join(outside, 'target.md'), path.join(w.project, '.claude/skills/linked/SKILL.md'));
    expect(code(() => assertWritableTarget(path.join(w.project, '.claude/skills/linked/SKILL.md'), w.ctx))).toBe('PATH_ESCAPE');
    // a symlinked root itself is fine when the skill stays inside it
    const realRoot = path.join(w.root, 'dotfiles/skills');
    fs.mkdirSync(realRoot, { recursive: true });
    fs.mkdirSync(path.join(w.root, 'claude'), { recursive: true });
    fs.symlinkSync(realRoot, path.join(w.root, 'claude/skills'));
    expect(code(() => assertWritableTarget(path.join(w.root, 'claude/skills/ok/SKILL.md'), w.ctx))).toBe('ok');
  });
});
