/**
 * Where OpenCode reads skills (opencode.ai/docs/skills): `<project>/.opencode/skills/<name>/SKILL.md`
 * and `~/.config/opencode/skills/` (`$XDG_CONFIG_HOME/opencode/skills`). It also reads the
 * Claude-compatible and `.agents` folders; those belong to the agents that own them. Standing
 * instruction files are not listed here (not verified).
 */
import path from 'node:path';
import { homeContextOf, type SkillLocationContext, type SkillRoot } from '../skills-common.js';

export function opencodeConfigDir(ctx: SkillLocationContext): string {
  const { env, home } = homeContextOf(ctx);
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'opencode');
}

export function opencodeSkillRoots(ctx: SkillLocationContext): SkillRoot[] {
  const roots: SkillRoot[] = [];
  if (ctx.project) roots.push({ dir: path.join(ctx.project, '.opencode', 'skills'), scope: 'project', agent: 'opencode' });
  roots.push({ dir: path.join(opencodeConfigDir(ctx), 'skills'), scope: 'personal', agent: 'opencode' });
  return roots;
}
