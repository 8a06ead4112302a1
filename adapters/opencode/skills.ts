/**
 * Where OpenCode reads skills and standing instructions (opencode.ai/docs/skills and /docs/rules;
 * each checked against opencode-ai 1.18.33, docs/replay-targets.md):
 * Skills — project `.opencode/skills/`, `.claude/skills/` and `.agents/skills/`; personal
 * `$XDG_CONFIG_HOME/opencode/skills/` (~/.config/opencode/skills), `~/.opencode/skills/` (seen
 * reaching the model, not in the docs), `~/.claude/skills/`, `~/.agents/skills/`.
 * Instructions — `AGENTS.md` in the project, and the global `$XDG_CONFIG_HOME/opencode/AGENTS.md`.
 */
import path from 'node:path';
import { homeContextOf, homeOf, type InstructionFile, type SkillLocationContext, type SkillRoot } from '../skills-common.js';

export function opencodeConfigDir(ctx: SkillLocationContext): string {
  const { env, home } = homeContextOf(ctx);
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'opencode');
}

export function opencodeSkillRoots(ctx: SkillLocationContext): SkillRoot[] {
  const roots: SkillRoot[] = [];
  if (ctx.project) {
    for (const dir of ['.opencode', '.claude', '.agents']) roots.push({ dir: path.join(ctx.project, dir, 'skills'), scope: 'project', agent: 'opencode' });
  }
  roots.push({ dir: path.join(opencodeConfigDir(ctx), 'skills'), scope: 'personal', agent: 'opencode' });
  for (const dir of ['.opencode', '.claude', '.agents']) roots.push({ dir: path.join(homeOf(ctx), dir, 'skills'), scope: 'personal', agent: 'opencode' });
  return roots;
}

export function opencodeInstructionFiles(ctx: SkillLocationContext): InstructionFile[] {
  const files: InstructionFile[] = [];
  if (ctx.project) files.push({ path: path.join(ctx.project, 'AGENTS.md'), scope: 'project', agent: 'opencode', kind: 'agents-md' });
  files.push({ path: path.join(opencodeConfigDir(ctx), 'AGENTS.md'), scope: 'personal', agent: 'opencode', kind: 'agents-md' });
  return files;
}
