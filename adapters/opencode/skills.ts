/**
 * Where OpenCode reads skills (opencode.ai/docs/skills; anomalyco/opencode
 * packages/web/src/content/docs/skills.mdx): `<project>/.opencode/skills/<name>/SKILL.md` and
 * `~/.config/opencode/skills/` (`$XDG_CONFIG_HOME/opencode/skills`), and the cross-agent
 * "agent-compatible" folders `<project>/.agents/skills/` and `~/.agents/skills/`, so a skill there
 * lists OpenCode among its readers. It also reads the Claude-compatible `.claude/skills/` folders; those
 * are not listed here yet (a skill staged there for Claude Code does not name OpenCode as a reader).
 * Standing instruction files are not listed here (not verified).
 */
import path from 'node:path';
import { homeContextOf, type SkillLocationContext, type SkillRoot } from '../skills-common.js';

export function opencodeConfigDir(ctx: SkillLocationContext): string {
  const { env, home } = homeContextOf(ctx);
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'opencode');
}

export function opencodeSkillRoots(ctx: SkillLocationContext): SkillRoot[] {
  const roots: SkillRoot[] = [];
  if (ctx.project) {
    roots.push({ dir: path.join(ctx.project, '.opencode', 'skills'), scope: 'project', agent: 'opencode' });
    roots.push({ dir: path.join(ctx.project, '.agents', 'skills'), scope: 'project', agent: 'opencode' });
  }
  roots.push({ dir: path.join(opencodeConfigDir(ctx), 'skills'), scope: 'personal', agent: 'opencode' });
  roots.push({ dir: path.join(homeContextOf(ctx).home, '.agents', 'skills'), scope: 'personal', agent: 'opencode' });
  return roots;
}
