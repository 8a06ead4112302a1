/**
 * Where Claude Code reads skills and standing instructions.
 * Project: `<project>/.claude/skills/<name>/SKILL.md`, `<project>/CLAUDE.md` (and `.claude/CLAUDE.md`).
 * Personal: `$CLAUDE_CONFIG_DIR/skills` (each entry of a comma list) else `~/.claude/skills`, and
 * `CLAUDE.md` next to it.
 */
import path from 'node:path';
import { claudeHomes } from './home.js';
import { homeContextOf, type InstructionFile, type SkillLocationContext, type SkillRoot } from '../skills-common.js';

export function claudeConfigDirs(ctx: SkillLocationContext): string[] {
  return claudeHomes(homeContextOf(ctx));
}

export function claudeSkillRoots(ctx: SkillLocationContext): SkillRoot[] {
  const roots: SkillRoot[] = [];
  if (ctx.project) roots.push({ dir: path.join(ctx.project, '.claude', 'skills'), scope: 'project', agent: 'claude-code' });
  for (const d of claudeConfigDirs(ctx)) roots.push({ dir: path.join(d, 'skills'), scope: 'personal', agent: 'claude-code' });
  return roots;
}

export function claudeInstructionFiles(ctx: SkillLocationContext): InstructionFile[] {
  const files: InstructionFile[] = [];
  if (ctx.project) {
    files.push({ path: path.join(ctx.project, 'CLAUDE.md'), scope: 'project', agent: 'claude-code', kind: 'claude-md' });
    files.push({ path: path.join(ctx.project, '.claude', 'CLAUDE.md'), scope: 'project', agent: 'claude-code', kind: 'claude-md' });
  }
  for (const d of claudeConfigDirs(ctx)) files.push({ path: path.join(d, 'CLAUDE.md'), scope: 'personal', agent: 'claude-code', kind: 'claude-md' });
  return files;
}
