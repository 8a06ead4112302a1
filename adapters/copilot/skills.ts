/**
 * Where GitHub Copilot (CLI and VS Code agent mode) reads skills and standing instructions.
 * Project: `.github/skills/`, `.claude/skills/`, `.agents/skills/`; instructions in
 * `.github/copilot-instructions.md`, `.github/instructions/*.instructions.md` (`applyTo` front
 * matter), and the cross-agent `AGENTS.md` / `CLAUDE.md` at the project root.
 * Personal: `~/.copilot/skills/` (`$COPILOT_HOME/skills`), `~/.claude/skills/`, `~/.agents/skills/`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { copilotHomes } from './home.js';
import { homeContextOf, homeOf, type InstructionFile, type SkillLocationContext, type SkillRoot } from '../skills-common.js';

/** Every Copilot CLI home (one resolver with the harvest: ./home.ts). */
export function copilotHomeDirs(ctx: SkillLocationContext): string[] {
  return copilotHomes(homeContextOf(ctx));
}

export function copilotSkillRoots(ctx: SkillLocationContext): SkillRoot[] {
  const roots: SkillRoot[] = [];
  if (ctx.project) {
    for (const sub of ['.github', '.claude', '.agents']) {
      roots.push({ dir: path.join(ctx.project, sub, 'skills'), scope: 'project', agent: 'copilot' });
    }
  }
  const home = homeOf(ctx);
  for (const h of copilotHomeDirs(ctx)) roots.push({ dir: path.join(h, 'skills'), scope: 'personal', agent: 'copilot' });
  roots.push({ dir: path.join(home, '.claude', 'skills'), scope: 'personal', agent: 'copilot' });
  roots.push({ dir: path.join(home, '.agents', 'skills'), scope: 'personal', agent: 'copilot' });
  return roots;
}

/** Folder of path-scoped instruction files; every `*.instructions.md` in it is a target. */
export function copilotInstructionsDir(project: string): string {
  return path.join(project, '.github', 'instructions');
}

export function copilotInstructionFiles(ctx: SkillLocationContext): InstructionFile[] {
  if (!ctx.project) return [];
  const files: InstructionFile[] = [
    { path: path.join(ctx.project, '.github', 'copilot-instructions.md'), scope: 'project', agent: 'copilot', kind: 'copilot-instructions' },
    { path: path.join(ctx.project, 'AGENTS.md'), scope: 'project', agent: 'copilot', kind: 'agents-md' },
    { path: path.join(ctx.project, 'CLAUDE.md'), scope: 'project', agent: 'copilot', kind: 'claude-md' },
  ];
  const dir = copilotInstructionsDir(ctx.project);
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.instructions.md')).sort();
  } catch {
    /* no instructions folder */
  }
  for (const n of names) files.push({ path: path.join(dir, n), scope: 'project', agent: 'copilot', kind: 'instructions' });
  return files;
}

/** True for `<project>/.github/instructions/<x>.instructions.md` (existing or not). */
export function isCopilotInstructionsPath(project: string, file: string): boolean {
  return path.dirname(file) === copilotInstructionsDir(project) && /^[^/\\]+\.instructions\.md$/.test(path.basename(file));
}
