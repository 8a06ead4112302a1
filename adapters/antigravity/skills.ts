/**
 * Where Antigravity CLI reads skills and standing instructions, from Gemini CLI's migration guide
 * "Migrating to Antigravity CLI" (google-gemini/gemini-cli; cited in docs/transcript-formats.md),
 * sections "Agent Skills" and "Context Files": workspace skills in `<project>/.agents/skills/` only (a project's
 * `.gemini/skills/` is not read), global skills in `~/.gemini/antigravity-cli/skills/` or
 * `~/.gemini/skills/` (shared with Gemini CLI); `GEMINI.md` and `AGENTS.md` in the workspace and
 * `~/.gemini/GEMINI.md`. The guide names `~` itself: Gemini CLI's GEMINI_CLI_HOME does not move these.
 */
import path from 'node:path';
import { homeOf, type InstructionFile, type SkillLocationContext, type SkillRoot } from '../skills-common.js';
import { antigravityHomes, SHARED_GEMINI_DIR } from './home.js';

const CONTEXT_FILE = 'GEMINI.md';
const AGENTS_FILE = 'AGENTS.md';

export function antigravityHomeDirs(ctx: SkillLocationContext): string[] {
  return antigravityHomes({ env: ctx.env, home: homeOf(ctx), config: ctx.config });
}

export function antigravityProjectSkillRoot(project: string): string {
  return path.join(project, '.agents', 'skills');
}

export function antigravitySkillRoots(ctx: SkillLocationContext): SkillRoot[] {
  const roots: SkillRoot[] = [];
  if (ctx.project) roots.push({ dir: antigravityProjectSkillRoot(ctx.project), scope: 'project', agent: 'antigravity' });
  for (const h of antigravityHomeDirs(ctx)) roots.push({ dir: path.join(h, 'skills'), scope: 'personal', agent: 'antigravity' });
  roots.push({ dir: path.join(homeOf(ctx), SHARED_GEMINI_DIR, 'skills'), scope: 'personal', agent: 'antigravity' });
  return roots;
}

export function antigravityInstructionFiles(ctx: SkillLocationContext): InstructionFile[] {
  const files: InstructionFile[] = [];
  if (ctx.project) {
    files.push({ path: path.join(ctx.project, CONTEXT_FILE), scope: 'project', agent: 'antigravity', kind: 'gemini-md' });
    files.push({ path: path.join(ctx.project, AGENTS_FILE), scope: 'project', agent: 'antigravity', kind: 'agents-md' });
  }
  files.push({ path: path.join(homeOf(ctx), SHARED_GEMINI_DIR, CONTEXT_FILE), scope: 'personal', agent: 'antigravity', kind: 'gemini-md' });
  return files;
}
