/**
 * Where Pi reads skills and standing instructions (pi-mono coding-agent skills.md doc
 * "Locations", README "Context files"):
 * Project: `<project>/.pi/skills/` and `<project>/.agents/skills/`; `AGENTS.md` in the project.
 * Personal: `<agent dir>/skills/` (~/.pi/agent/skills), `~/.agents/skills/`, `<agent dir>/AGENTS.md`.
 */
import path from 'node:path';
import { homeContextOf, homeOf, type InstructionFile, type SkillLocationContext, type SkillRoot } from '../skills-common.js';
import { piHomes } from './home.js';

export function piAgentDirs(ctx: SkillLocationContext): string[] {
  return piHomes(homeContextOf(ctx));
}

export function piSkillRoots(ctx: SkillLocationContext): SkillRoot[] {
  const roots: SkillRoot[] = [];
  if (ctx.project) {
    roots.push({ dir: path.join(ctx.project, '.pi', 'skills'), scope: 'project', agent: 'pi' });
    roots.push({ dir: path.join(ctx.project, '.agents', 'skills'), scope: 'project', agent: 'pi' });
  }
  for (const d of piAgentDirs(ctx)) roots.push({ dir: path.join(d, 'skills'), scope: 'personal', agent: 'pi' });
  roots.push({ dir: path.join(homeOf(ctx), '.agents', 'skills'), scope: 'personal', agent: 'pi' });
  return roots;
}

export function piInstructionFiles(ctx: SkillLocationContext): InstructionFile[] {
  const files: InstructionFile[] = [];
  if (ctx.project) files.push({ path: path.join(ctx.project, 'AGENTS.md'), scope: 'project', agent: 'pi', kind: 'agents-md' });
  for (const d of piAgentDirs(ctx)) files.push({ path: path.join(d, 'AGENTS.md'), scope: 'personal', agent: 'pi', kind: 'agents-md' });
  return files;
}
