/**
 * Tasks follow a repository that moved. A project is known by its path, but the path is not the
 * repository: `mv ~/src/app ~/code/app` would leave every task (and the sessions they were mined
 * from) under a folder that is gone, and the user's new sessions under the new path would start
 * the same jobs from zero. So each night records the root commit of every known project folder
 * that exists, and when a recorded folder is gone and exactly one existing project has the same
 * root commit, everything of the old path moves to the new one (sessions, their cwd inside it,
 * tasks, mining clusters). Two candidates (two clones of one repository) are ambiguous: nothing
 * moves, and the night says so.
 */
import fs from 'node:fs';
import type { Db } from '../store/db.js';
import { listKnownProjects } from '../store/repos/sessions.js';
import { listProjectIdentities, putProjectIdentity, relocateProjectRows } from '../store/repos/projects.js';
import { repoRootCommit } from '../llm/workspace.js';

/** A recorded identity is re-read after this long (a folder may have been replaced by another repository). */
const RECHECK_MS = 7 * 86_400_000;

export interface MovedRepo {
  from: string;
  to: string;
  rootCommit: string;
  sessions: number;
  tasks: number;
}

export interface FollowResult {
  moved: MovedRepo[];
  /** one line per gone project we could not place, and why */
  notes: string[];
}

export async function followMovedRepos(db: Db, now = Date.now()): Promise<FollowResult> {
  const known = listKnownProjects(db);
  const recorded = new Map(listProjectIdentities(db).map((i) => [i.path, i]));
  // record (or refresh) the identity of every known project folder that exists
  for (const p of known) {
    if (!isDir(p)) continue;
    const have = recorded.get(p);
    if (have && now - have.checkedAt < RECHECK_MS) continue;
    const root = await repoRootCommit(p);
    if (!root) continue;
    const id = { path: p, rootCommit: root, checkedAt: now };
    putProjectIdentity(db, id);
    recorded.set(p, id);
  }
  const byRoot = new Map<string, string[]>();
  for (const id of recorded.values()) {
    if (!isDir(id.path)) continue;
    byRoot.set(id.rootCommit, [...(byRoot.get(id.rootCommit) ?? []), id.path]);
  }
  const result: FollowResult = { moved: [], notes: [] };
  for (const id of recorded.values()) {
    if (isDir(id.path) || !known.includes(id.path)) continue;
    const successors = (byRoot.get(id.rootCommit) ?? []).filter((p) => p !== id.path);
    if (successors.length === 1) {
      const counts = relocateProjectRows(db, id.path, successors[0]);
      result.moved.push({ from: id.path, to: successors[0], rootCommit: id.rootCommit, sessions: counts.sessions, tasks: counts.tasks });
    } else if (successors.length > 1) {
      result.notes.push(`${id.path} is gone and ${successors.length} projects hold the same repository (${successors.join(', ')}): its tasks stay where they are`);
    }
  }
  return result;
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
