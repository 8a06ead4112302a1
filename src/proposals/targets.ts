/**
 * Write targets are derived, never trusted. A proposal record, a task file or a mined task can
 * name any `project`, and a skill/instruction path is derived from it: so before a proposal is
 * staged or applied, the project must be one the store has seen sessions in (or none: the user's
 * personal skill folders), never the filesystem root or the home folder itself, and the file must
 * be a known skill/instruction file of that project or of an agent's skill root, after resolving
 * symlinks (`assertWritableTarget`). A `--skill` path the user typed is the one other way in.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '../store/db.js';
import type { SkillTarget } from '../core/records.js';
import { SleepError } from '../core/errors.js';
import { assertWritableTarget, instructionFiles } from '../../adapters/skills-registry.js';
import { hasSessionsInProject } from '../store/repos/sessions.js';

export interface TargetPolicyContext {
  env?: NodeJS.ProcessEnv;
  /** a skill path the user typed (`--skill <path>`): allowed when it is a SKILL.md or a known instruction file name */
  userSkillPath?: string;
}

/** A skill's SKILL.md or one of the instruction file names the agents read (from the agent registry). */
function isKnownFileName(file: string, env: NodeJS.ProcessEnv): boolean {
  const base = path.basename(file);
  if (base === 'SKILL.md' || /\.instructions\.md$/.test(base)) return true;
  return instructionFiles({ project: path.dirname(file), env }).some((f) => path.basename(f.path) === base);
}

function refuse(target: SkillTarget, why: string): SleepError {
  return new SleepError('PATH_ESCAPE', `refusing to write ${target.path}: ${why}`, {
    hint: 'proposals only write skill and instruction files of projects you have worked in with an agent; pass the file with `--skill <path>` to train it anyway',
    details: { path: target.path, project: target.project ?? null },
  });
}

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
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
  if (!path.isAbsolute(file) || file.split(/[\\/]/).includes('..')) throw refuse(target, 'not a plain absolute path');
  if (!isKnownFileName(file, env)) throw refuse(target, `"${path.basename(file)}" is not a skill or instruction file name`);
  if (ctx.userSkillPath && real(path.resolve(ctx.userSkillPath)) === real(file)) {
    if (fs.existsSync(file) && fs.lstatSync(file).isSymbolicLink()) throw refuse(target, 'the file is a symlink');
    return;
  }
  const project = target.project ?? null;
  if (project !== null) {
    if (!path.isAbsolute(project) || project.split(/[\\/]/).includes('..')) throw refuse(target, `project "${project}" is not a plain absolute path`);
    const rp = real(project);
    const home = real(env.HOME ?? os.homedir());
    if (rp === path.parse(rp).root || rp === home) throw refuse(target, `project "${project}" is the filesystem root or the home folder`);
    if (!hasSessionsInProject(db, project) && !hasSessionsInProject(db, rp)) throw refuse(target, `no agent session was ever harvested in project ${project}`);
    const rel = path.relative(rp, real(path.dirname(file)));
    const inProject = !rel.startsWith('..') && !path.isAbsolute(rel);
    if (!inProject) {
      // outside the project only an agent's personal skill root is allowed (checked below)
      assertWritableTarget(file, { project: null, env });
      return;
    }
  }
  assertWritableTarget(file, { project, env });
}
