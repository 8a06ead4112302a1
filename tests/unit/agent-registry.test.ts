import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENTS, AGENT_IDS, commandToolNames, cliBackendNames, envelopeTags, primaryCommandTools, resolveAgentName, rootEnvFrom, skillToolNames } from '../../adapters/index.js';
import { codexHomes } from '../../adapters/codex/paths.js';
import { assertWritableTarget, discoverSkills, skillRoots } from '../../adapters/skills-registry.js';
import { AgentId, SkillTargetSchema } from '../../src/core/records.js';
import { BackendName, ConfigSchema } from '../../src/core/config.js';
import { COMMAND_TOOL_OF_AGENT, commandToolSet } from '../../src/core/tool-kinds.js';
import { SleepError } from '../../src/core/errors.js';

const config = () => ConfigSchema.parse({});

describe('the agent registry is the one list of agents', () => {
  it('core copies (AgentId, config sections, backend names, tool kinds) equal the registry', () => {
    expect([...AgentId.options].sort()).toEqual([...AGENT_IDS].sort());
    expect(Object.keys(config().agents).sort()).toEqual(AGENTS.map((a) => a.configKey).sort());
    for (const b of cliBackendNames()) expect(BackendName.options).toContain(b);
    expect([...commandToolSet()].sort()).toEqual(commandToolNames().sort());
    expect(COMMAND_TOOL_OF_AGENT).toEqual(primaryCommandTools());
    for (const a of AGENTS) for (const f of a.skills.instructionFiles({ project: '/p', env: { HOME: '/h' } })) expect(SkillTargetSchema.shape.kind.options).toContain(f.kind);
  });

  it('each record is complete and its names are unique', () => {
    const names = AGENTS.flatMap((a) => [a.id, ...a.aliases]);
    expect(new Set(names).size).toBe(names.length);
    for (const a of AGENTS) {
      expect(a.harvest.id).toBe(a.id);
      expect(a.displayName.length).toBeGreaterThan(0);
      expect(a.vocabulary.commandTools).toContain(a.vocabulary.primaryCommandTool);
    }
    expect(skillToolNames()).toEqual(expect.arrayContaining(['Skill', 'SlashCommand', 'skill', 'activate_skill']));
    expect(envelopeTags()).toEqual(expect.arrayContaining(['system-reminder', 'environment_context', 'session_context']));
  });

  it('the claude ↔ claude-code alias and display names resolve both ways', () => {
    expect(resolveAgentName('claude')).toBe('claude-code');
    expect(resolveAgentName('Claude-Code')).toBe('claude-code');
    expect(resolveAgentName('gemini')).toBe('gemini');
    expect(resolveAgentName('cursor-agent')).toBe('cursor');
    expect(resolveAgentName('no-such-agent')).toBeNull();
  });
});

describe('one home resolver per agent: CODEX_HOME=/a,/b is two homes everywhere', () => {
  let tmp: string | null = null;
  afterEach(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    tmp = null;
  });

  it('harvest, skill discovery and the write guard all see both homes', () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'codex-homes-'));
    const a = path.join(tmp, 'a');
    const b = path.join(tmp, 'b');
    fs.mkdirSync(path.join(b, 'skills', 'release'), { recursive: true });
    fs.writeFileSync(path.join(b, 'skills', 'release', 'SKILL.md'), '---\nname: release\ndescription: cut a release\n---\n# Release\n');
    const env = { HOME: path.join(tmp, 'home'), CODEX_HOME: `${a}, ${b}` };
    // harvest side
    expect(codexHomes(config(), rootEnvFrom(env, 'linux'))).toEqual([a, b]);
    // skill side: both homes are skill roots, and no folder named "/a,/b" is
    const ctx = { project: null, env };
    const dirs = skillRoots(ctx, ['codex']).map((r) => r.dir);
    expect(dirs).toEqual(expect.arrayContaining([path.join(a, 'skills'), path.join(b, 'skills')]));
    expect(dirs.some((d) => d.includes(','))).toBe(false);
    expect(discoverSkills(ctx, ['codex']).map((s) => s.path)).toContain(path.join(b, 'skills', 'release', 'SKILL.md'));
    // the write guard admits a skill in either home and AGENTS.md of either home
    expect(assertWritableTarget(path.join(a, 'skills', 'new-skill', 'SKILL.md'), ctx).kind).toBe('skill');
    expect(assertWritableTarget(path.join(b, 'AGENTS.md'), ctx).kind).toBe('instructions');
    expect(() => assertWritableTarget(path.join(`${a},${b}`, 'skills', 'x', 'SKILL.md'), ctx)).toThrow(SleepError);
  });
});

describe('the vendor-name lint rule', () => {
  it('fails a vendor literal in src/ and passes it in adapters/', async () => {
    const { ESLint } = await import('eslint');
    const eslint = new ESLint({ cwd: path.resolve(import.meta.dirname, '../..') });
    const code = "export const tool = 'run_in_terminal';\nexport const home = `${process.env.HOME}/x`;\n";
    const [inSrc] = await eslint.lintText(code, { filePath: 'src/mine/vendor-probe.ts' });
    expect(inSrc.messages.map((m) => m.ruleId)).toContain('no-restricted-syntax');
    const [inAdapters] = await eslint.lintText(code, { filePath: 'adapters/copilot/vendor-probe.ts' });
    expect(inAdapters.messages.filter((m) => m.ruleId === 'no-restricted-syntax')).toEqual([]);
  }, 60_000);
});
