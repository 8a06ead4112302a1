/**
 * Where Gemini CLI reads skills and standing instructions.
 * Project: `<project>/.gemini/skills/` and the cross-agent alias `<project>/.agents/skills/`
 * (workspace skills load only in a trusted folder); `GEMINI.md` in the project folder.
 * Personal: `<gemini dir>/skills/` (~/.gemini/skills), `~/.agents/skills/`, `<gemini dir>/GEMINI.md`.
 */
import path from 'node:path';
import { homeContextOf, type InstructionFile, type SkillLocationContext, type SkillRoot } from '../skills-common.js';
import { geminiHomes } from './home.js';

export const GEMINI_INSTRUCTIONS_FILE = 'GEMINI.md';

export function geminiHomeDirs(ctx: SkillLocationContext): string[] {
  return geminiHomes(homeContextOf(ctx));
}

export function geminiSkillRoots(ctx: SkillLocationContext): SkillRoot[] {
  const roots: SkillRoot[] = [];
  if (ctx.project) {
    roots.push({ dir: path.join(ctx.project, '.gemini', 'skills'), scope: 'project', agent: 'gemini' });
    roots.push({ dir: path.join(ctx.project, '.agents', 'skills'), scope: 'project', agent: 'gemini' });
  }
  for (const h of geminiHomeDirs(ctx)) {
    roots.push({ dir: path.join(h, 'skills'), scope: 'personal', agent: 'gemini' });
    // the user-level `.agents` folder sits in the same home the CLI uses (GEMINI_CLI_HOME or ~)
    roots.push({ dir: path.join(path.dirname(h), '.agents', 'skills'), scope: 'personal', agent: 'gemini' });
  }
  return roots;
}

export function geminiInstructionFiles(ctx: SkillLocationContext): InstructionFile[] {
  const files: InstructionFile[] = [];
  if (ctx.project) files.push({ path: path.join(ctx.project, GEMINI_INSTRUCTIONS_FILE), scope: 'project', agent: 'gemini', kind: 'gemini-md' });
  for (const h of geminiHomeDirs(ctx)) files.push({ path: path.join(h, GEMINI_INSTRUCTIONS_FILE), scope: 'personal', agent: 'gemini', kind: 'gemini-md' });
  return files;
}
