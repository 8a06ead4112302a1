/**
 * Where Cursor Agent reads skills and standing instructions (Cursor's docs, cursor.com/docs/skills
 * "Skill directories" and cursor.com/docs/rules; see docs/replay-targets.md):
 * Skills — project `.agents/skills/` and `.cursor/skills/`, and for compatibility `.claude/skills/`
 * and `.codex/skills/`; personal `~/.agents/skills/`, `~/.cursor/skills/`, `~/.claude/skills/`,
 * `~/.codex/skills/`.
 * Instructions — the project's `AGENTS.md`, and its project rules: `.cursor/rules/**\/*.mdc` (a plain
 * `.md` there is ignored by Cursor). User rules live in Cursor's settings, not in a file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { homeContextOf, homeOf, type InstructionFile, type SkillLocationContext, type SkillRoot } from '../skills-common.js';
import { cursorHomes } from './home.js';

/** A project rule file: `.mdc` anywhere under `.cursor/rules` (rules may be grouped in subfolders). */
const RULE_EXT = '.mdc';

export function cursorRulesDir(project: string): string {
  return path.join(project, '.cursor', 'rules');
}

export function cursorSkillRoots(ctx: SkillLocationContext): SkillRoot[] {
  const roots: SkillRoot[] = [];
  if (ctx.project) {
    for (const dir of ['.agents', '.cursor', '.claude', '.codex']) roots.push({ dir: path.join(ctx.project, dir, 'skills'), scope: 'project', agent: 'cursor' });
  }
  // ~/.cursor is the Cursor home (CURSOR_CONFIG_DIR or a configured root when set); the others sit in the home folder
  for (const h of cursorHomes(homeContextOf(ctx))) roots.push({ dir: path.join(h, 'skills'), scope: 'personal', agent: 'cursor' });
  const home = homeOf(ctx);
  for (const dir of ['.agents', '.claude', '.codex']) roots.push({ dir: path.join(home, dir, 'skills'), scope: 'personal', agent: 'cursor' });
  return roots;
}

/** The project's rule files there are now, nested folders included (sorted; none when the folder is absent). */
function existingRules(project: string): string[] {
  const root = cursorRulesDir(project);
  let names: string[];
  try {
    names = fs.readdirSync(root, { recursive: true }) as string[];
  } catch {
    return [];
  }
  return names
    .map((n) => path.join(root, String(n)))
    .filter((p) => p.endsWith(RULE_EXT) && isFile(p))
    .sort();
}

function isFile(p: string): boolean {
  try {
    return fs.lstatSync(p).isFile();
  } catch {
    return false;
  }
}

export function cursorInstructionFiles(ctx: SkillLocationContext): InstructionFile[] {
  if (!ctx.project) return [];
  return [
    { path: path.join(ctx.project, 'AGENTS.md'), scope: 'project', agent: 'cursor', kind: 'agents-md' },
    ...existingRules(ctx.project).map((p) => ({ path: p, scope: 'project' as const, agent: 'cursor' as const, kind: 'instructions' as const })),
  ];
}

/** A rule file that does not exist yet is still Cursor's: `<project>/.cursor/rules/[<group>/]<name>.mdc`. */
export function isCursorRulePath(project: string, file: string): boolean {
  const rel = path.relative(cursorRulesDir(project), file);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return false;
  return rel.endsWith(RULE_EXT) && rel.split(path.sep).every((seg) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(seg));
}
