/**
 * Write targets are derived, never trusted. A proposal record, a task file or a mined task can
 * name any `project`, and a skill/instruction path is derived from it: so before a proposal is
 * staged, applied or reverted,
 *  - the project must be one the store has seen sessions in (or none: the user's personal skill
 *    folders), and a legitimate write root judged on its real path (core/write-roots.ts: an
 *    existing git work tree the user owns, never `/`, `/etc`, `/usr`…, the home folder or another
 *    user's folder), so a `cwd` of `/etc` or a `..` chain landing there opens nothing;
 *  - the file must be a known skill/instruction file of that project or of an agent's skill root
 *    (`assertWritableTarget`, the agents' own layout);
 *  - and it must stay confined after resolving symlinks (`assertConfinedWrite`): a symlinked
 *    `.claude`, `.claude/skills`, `.agents/skills` or skill folder is followed only when it leads
 *    inside the project (or into an agent's own skills home that passes the same checks); a
 *    symlinked file is never written through. The refusal names the link and where it leads.
 * A `--skill` path the user typed is the one other way in; it is still refused in system folders,
 * other users' folders and through a symlinked file.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db.js';
import type { SkillTarget } from '../core/records.js';
import { SleepError } from '../core/errors.js';
import { isInside, personalDirProblem, plainPathProblem, projectRootProblem, realpathLoose, symlinksBetween } from '../core/write-roots.js';
import { assertWritableTarget, instructionFiles, readBy, skillRoots } from '../../adapters/skills-registry.js';
import { hasSessionsInProject } from '../store/repos/sessions.js';

export interface TargetPolicyContext {
  env?: NodeJS.ProcessEnv;
  /** a skill path the user typed (`--skill <path>`): allowed when it is a SKILL.md or a known instruction file name */
  userSkillPath?: string;
}

const HINT_DERIVED = 'proposals only write skill and instruction files of projects you have worked in with an agent; pass the file with `--skill <path>` to train it anyway';
const HINT_ROOT = 'skills are written only inside git work trees you own (never a system folder, your home folder or another user\'s folder); if this is your project, `git init` it and run a night there, or pick a file with `--skill <path>`';
const HINT_LINK = 'skillopt-sleep follows a symlinked skill folder only when it leads inside the same project (or into an agent\'s own skills folder); replace the link with a real folder, or point it there';

/**
 * A skill's SKILL.md or one of the instruction file names the agents read (from the agent registry),
 * or a file an agent names by pattern inside the target's project (Cursor's `.cursor/rules/*.mdc`).
 */
function isKnownFileName(file: string, env: NodeJS.ProcessEnv, project: string | null): boolean {
  const base = path.basename(file);
  if (base === 'SKILL.md' || /\.instructions\.md$/.test(base)) return true;
  if (project !== null && readBy(file, { project, env }).length > 0) return true;
  return instructionFiles({ project: path.dirname(file), env }).some((f) => path.basename(f.path) === base);
}

function refuse(target: Pick<SkillTarget, 'path' | 'project'>, why: string, hint = HINT_DERIVED): SleepError {
  return new SleepError('PATH_ESCAPE', `refusing to write ${target.path}: ${why}`, {
    hint,
    details: { path: target.path, project: target.project ?? null, reason: why },
  });
}

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** Real paths of the agents' personal skill roots (where a symlinked project folder may lead). */
function personalSkillHomes(env: NodeJS.ProcessEnv): string[] {
  return skillRoots({ project: null, env })
    .filter((r) => r.scope === 'personal')
    .map((r) => realpathLoose(r.dir));
}

/** Whether the real folder `realDir` lies in an agent's personal skills home that is itself acceptable. */
function inPersonalSkillHome(realDir: string, env: NodeJS.ProcessEnv): boolean {
  return personalSkillHomes(env).some((h) => isInside(realDir, h)) && personalDirProblem(realDir, env) === null;
}

/**
 * Throws PATH_ESCAPE unless writing `file` stays where it belongs once every symlink is resolved:
 * inside the real `project` (or a personal skills home a project link leads to), or, with no
 * project, in a folder that is neither a system folder nor another user's. Called when a target is
 * checked and again right before each write, so a link swapped in meanwhile is caught.
 */
export function assertConfinedWrite(file: string, project: string | null, env: NodeJS.ProcessEnv = process.env): void {
  const target = { path: file, project };
  const plain = plainPathProblem(file);
  if (plain) throw refuse(target, plain);
  const dir = path.dirname(file);
  if (project !== null && isInside(path.resolve(file), path.resolve(project))) {
    const problem = projectRootProblem(project, env);
    if (problem) throw refuse(target, problem, HINT_ROOT);
    const rp = real(project);
    for (const l of symlinksBetween(path.resolve(project), dir)) {
      if (!isInside(l.real, rp) && !inPersonalSkillHome(l.real, env)) throw refuse(target, `${l.link} is a symlink to ${l.real}, outside the project ${project}`, HINT_LINK);
    }
    const realDir = realpathLoose(dir);
    if (!isInside(realDir, rp) && !inPersonalSkillHome(realDir, env)) throw refuse(target, `its folder is really ${realDir}, outside the project ${project}`, HINT_LINK);
  } else {
    const realDir = realpathLoose(dir);
    const problem = personalDirProblem(realDir, env);
    if (problem) {
      const link = symlinksBetween(path.parse(dir).root, dir).pop();
      throw refuse(target, link ? `${link.link} is a symlink to ${link.real}, and ${problem}` : problem, link ? HINT_LINK : HINT_ROOT);
    }
  }
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(file);
  } catch {
    st = undefined;
  }
  if (st?.isSymbolicLink()) {
    throw refuse(target, `the file is a symlink to ${realpathLoose(file)}; a skill file is replaced, never written through a link`, 'replace the link with the file itself (or remove it) and apply again');
  }
  if (st && !st.isFile()) throw refuse(target, 'it is not a regular file');
}

/**
 * The project a write of `target` is confined to: its project, or null (no project: a system or
 * foreign folder is still refused) for the one file the user typed with `--skill <path>`.
 */
export function confinementProject(target: SkillTarget, userSkillPath?: string | null): string | null {
  if (userSkillPath && real(path.resolve(userSkillPath)) === real(target.path)) return null;
  return target.project ?? null;
}

/** Throws PATH_ESCAPE unless the product may write `target` (and each copy of a managed skill it carries). */
export function assertDerivedTarget(db: Db, target: SkillTarget, ctx: TargetPolicyContext = {}): void {
  assertOneTarget(db, target, ctx);
  for (const m of target.mirrors ?? []) {
    // a copy is the same skill in another agent's root: a SKILL.md in a folder of the same name
    if (target.kind !== 'managed' || path.basename(m.path) !== 'SKILL.md' || path.basename(path.dirname(m.path)) !== path.basename(path.dirname(target.path))) {
      throw refuse({ ...target, path: m.path }, 'a copy must be the same managed skill (<root>/<name>/SKILL.md) in another agent\'s skill root');
    }
    assertOneTarget(db, { ...target, path: m.path, mirrors: undefined }, { ...ctx, userSkillPath: undefined });
  }
}

function assertOneTarget(db: Db, target: SkillTarget, ctx: TargetPolicyContext): void {
  const env = ctx.env ?? process.env;
  const file = target.path;
  const plain = plainPathProblem(file);
  if (plain) throw refuse(target, `not a plain absolute path (${plain})`);
  if (!isKnownFileName(file, env, target.project ?? null)) throw refuse(target, `"${path.basename(file)}" is not a skill or instruction file name`);
  const project = target.project ?? null;
  if (ctx.userSkillPath && real(path.resolve(ctx.userSkillPath)) === real(file)) {
    // the user named this file: no harvested project needed, but never a system or foreign folder
    assertConfinedWrite(file, null, env);
    return;
  }
  // the confinement first: its refusal names the link and where it leads
  if (project === null) {
    assertConfinedWrite(file, null, env);
    assertWritableTarget(file, { project: null, env });
    return;
  }
  const projectPlain = plainPathProblem(project);
  if (projectPlain) throw refuse(target, `project "${project}" is not a plain absolute path (${projectPlain})`);
  const rootProblem = projectRootProblem(project, env);
  if (rootProblem) throw refuse(target, rootProblem, HINT_ROOT);
  const rp = real(project);
  if (!hasSessionsInProject(db, project) && !hasSessionsInProject(db, rp)) throw refuse(target, `no agent session was ever harvested in project ${project}`);
  if (isInside(path.resolve(file), path.resolve(project))) {
    assertConfinedWrite(file, project, env);
    assertWritableTarget(file, { project, env });
  } else {
    // outside the project only an agent's personal skill root is allowed
    assertConfinedWrite(file, null, env);
    assertWritableTarget(file, { project: null, env });
  }
}
