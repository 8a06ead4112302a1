/**
 * Orphaned tasks: tasks (imported ones, typically) whose project no proposal could ever be staged
 * in, because the folder is not on disk or no agent session was ever harvested there (the write
 * policy of proposals/targets.ts refuses such a target). Training them spent a night's calls on a
 * proposal the staging then refused, and that refusal used to fail every night while the user's
 * real projects got nothing. They are set aside before planning, before any model call, and the
 * report says which and why.
 */
import fs from 'node:fs';
import type { Db } from '../store/db.js';
import type { Task } from '../core/records.js';
import { hasSessionsInProject } from '../store/repos/sessions.js';

export interface OrphanedProject {
  project: string;
  tasks: string[];
  /** why nothing can be staged there */
  reason: string;
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** Why no proposal can be staged in `project`, or null when one can. */
export function orphanReason(db: Db, project: string): string | null {
  if (!isDirectory(project)) return 'the project folder is not on disk';
  if (!hasSessionsInProject(db, project) && !hasSessionsInProject(db, realOrSelf(project))) return 'no agent session was ever harvested in it';
  return null;
}

/** The tasks a night may train, and the orphaned ones grouped by project. Cross-project tasks (no project) are never orphans. */
export function setAsideOrphans(db: Db, tasks: Task[]): { usable: Task[]; orphaned: OrphanedProject[] } {
  const reasons = new Map<string, string | null>();
  const orphaned = new Map<string, OrphanedProject>();
  const usable: Task[] = [];
  for (const t of tasks) {
    if (!t.project) {
      usable.push(t);
      continue;
    }
    if (!reasons.has(t.project)) reasons.set(t.project, orphanReason(db, t.project));
    const reason = reasons.get(t.project);
    if (!reason) {
      usable.push(t);
      continue;
    }
    const o = orphaned.get(t.project) ?? { project: t.project, tasks: [], reason };
    o.tasks.push(t.id);
    orphaned.set(t.project, o);
  }
  return { usable, orphaned: [...orphaned.values()] };
}

/** The report's note for one orphaned project. */
export function describeOrphan(o: OrphanedProject): string {
  return `skipped ${o.tasks.length} task(s) of ${o.project} before any model call: ${o.reason}, so no proposal could be staged there. Needed: work in that project with your agent so a session is harvested, or retire the tasks (\`skillopt-sleep tasks\`)`;
}
