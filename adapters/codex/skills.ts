/**
 * Where Codex reads skills and standing instructions.
 * Project: `.agents/skills/` in every folder from the cwd up to the repo root, and `AGENTS.md` in
 * the same folders. Personal: `~/.agents/skills/`, `$CODEX_HOME/skills/` (default `~/.codex`) and
 * `$CODEX_HOME/AGENTS.md`. `$CODEX_HOME/skills/.system/` holds Codex's own skills: never trained,
 * never written.
 */
import path from 'node:path';
import { codexHomes } from './home.js';
import { dirsUpToRepoRoot, homeContextOf, homeOf, type InstructionFile, type SkillLocationContext, type SkillRoot } from '../skills-common.js';

export const CODEX_SYSTEM_SKILLS = '.system';

/** Every Codex home (one resolver with the harvest: ./home.ts). */
export function codexHomeDirs(ctx: SkillLocationContext): string[] {
  return codexHomes(homeContextOf(ctx));
}

function projectDirs(ctx: SkillLocationContext): string[] {
  const cwd = ctx.cwd ?? ctx.project;
  return cwd ? dirsUpToRepoRoot(cwd, ctx.project) : [];
}

export function codexSkillRoots(ctx: SkillLocationContext): SkillRoot[] {
  const roots: SkillRoot[] = projectDirs(ctx).map((d) => ({ dir: path.join(d, '.agents', 'skills'), scope: 'project' as const, agent: 'codex' as const }));
  roots.push({ dir: path.join(homeOf(ctx), '.agents', 'skills'), scope: 'personal', agent: 'codex' });
  for (const home of codexHomeDirs(ctx)) roots.push({ dir: path.join(home, 'skills'), scope: 'personal', agent: 'codex', reserved: [CODEX_SYSTEM_SKILLS] });
  return roots;
}

export function codexInstructionFiles(ctx: SkillLocationContext): InstructionFile[] {
  const files: InstructionFile[] = projectDirs(ctx).map((d) => ({
    path: path.join(d, 'AGENTS.md'),
    scope: 'project' as const,
    agent: 'codex' as const,
    kind: 'agents-md' as const,
  }));
  for (const home of codexHomeDirs(ctx)) files.push({ path: path.join(home, 'AGENTS.md'), scope: 'personal', agent: 'codex', kind: 'agents-md' });
  return files;
}
