/**
 * One meaning of `--project` for every command: a path (absolute, or relative to the current
 * directory) or the folder name of a project the store knows, resolved the same way everywhere.
 * A command that reads data refuses a project it has never seen, listing the known ones, instead
 * of silently finding nothing (or training the tool's own clone).
 */
import path from 'node:path';
import type { Db } from '../store/db.js';
import { SleepError } from '../core/errors.js';
import { listKnownProjects } from '../store/repos/sessions.js';
import { findRepoRoot } from '../../adapters/skills-common.js';
import { packageRoot } from '../core/version.js';

export interface ResolveProjectOptions {
  /** true for commands that read a project's data: an unknown project is an error */
  mustExist: boolean;
  cwd?: string;
}

const looksLikePath = (v: string) => v.includes('/') || v.includes('\\') || v === '.' || v === '..' || v.startsWith('~');

function unknownProject(value: string, known: string[]): SleepError {
  const list = known.length ? known.map((k) => `  ${k}`).join('\n') : '  (none yet)';
  return new SleepError('NOT_FOUND', `"${value}" is not a project skillopt-sleep knows. Known projects:\n${list}`, {
    hint: known.length ? 'pass one of them (its path or its folder name) to --project' : 'run `skillopt-sleep harvest` after using your agents in a project',
  });
}

export function resolveProjectOption(db: Db, value: string, opts: ResolveProjectOptions): string {
  const cwd = opts.cwd ?? process.cwd();
  const known = listKnownProjects(db);
  const abs = path.resolve(cwd, value);
  if (looksLikePath(value)) {
    if (known.includes(abs) || !opts.mustExist) return abs;
    throw unknownProject(value, known);
  }
  const hits = known.filter((k) => path.basename(k) === value);
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1) throw new SleepError('INVALID_INPUT', `project "${value}" is ambiguous: ${hits.join(', ')}`, { hint: 'give its full path' });
  if (known.includes(abs) || !opts.mustExist) return abs;
  throw unknownProject(value, known);
}

/**
 * The project of the current directory, for commands that act on it when no --project is given:
 * only a harvested project counts (so a run inside the tool's own clone refuses, with a hint).
 */
export function projectOfCwd(db: Db, cwd = process.cwd(), toolRoot = packageRoot()): string {
  const known = listKnownProjects(db);
  const root = findRepoRoot(cwd) ?? path.resolve(cwd);
  if (toolRoot && (root === toolRoot || path.resolve(cwd) === toolRoot)) {
    // even when agents ran here: the tool's own folder is never trained by accident
    const others = known.filter((k) => k !== toolRoot);
    const list = others.length ? others.map((k) => `  ${k}`).join('\n') : '  (none yet)';
    throw new SleepError('INVALID_INPUT', `${toolRoot} is skillopt-sleep's own folder, not one of your projects. Known projects:\n${list}`, {
      hint: 'run it from your project folder (`skillopt-sleep` is on your PATH after `npm link`), or pass --project NAME|PATH (also this folder, if you mean it)',
    });
  }
  const here = [path.resolve(cwd), root].find((d) => known.includes(d));
  if (here) return here;
  const list = known.length ? known.map((k) => `  ${k}`).join('\n') : '  (none yet)';
  throw new SleepError('INVALID_INPUT', `${root} is not a harvested project (no sessions or tasks of yours ran there). Known projects:\n${list}`, {
    hint: known.length ? 'run it from one of those folders, or pass --project NAME|PATH' : 'use your agents in a project, run `skillopt-sleep harvest`, then run this from that project or pass --project',
  });
}
