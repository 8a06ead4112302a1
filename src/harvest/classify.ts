/**
 * Session classification and project identity. `self` sessions are our own replay runs: their
 * cwd is (under) a workspace holding the marker file `.skillopt-sleep-workspace`, or lies under the
 * state dir's `workspaces/` (the marker may be gone once the run cleaned up). They are stored so
 * they can be shown, but never mined. The project of a session is the git root above its cwd, or
 * the cwd itself when there is none (or the path does not exist on this machine).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SessionKind } from '../core/records.js';
import type { SessionSnapshot } from '../../adapters/types.js';

export const WORKSPACE_MARKER = '.skillopt-sleep-workspace';

export class Classifier {
  private readonly selfCache = new Map<string, boolean>();
  private readonly rootCache = new Map<string, string | null>();
  private readonly workspaces: string | null;

  constructor(workspacesDir: string | null) {
    this.workspaces = workspacesDir ? path.resolve(workspacesDir) : null;
  }

  isSelf(cwd: string | null): boolean {
    if (!cwd) return false;
    const norm = path.resolve(cwd);
    if (this.workspaces && (norm === this.workspaces || norm.startsWith(this.workspaces + path.sep))) return true;
    return this.hasMarkerAbove(norm, 6);
  }

  private hasMarkerAbove(dir: string, levels: number): boolean {
    const cached = this.selfCache.get(dir);
    if (cached !== undefined) return cached;
    let found = false;
    try {
      found = fs.existsSync(path.join(dir, WORKSPACE_MARKER));
    } catch {
      found = false;
    }
    if (!found && levels > 0) {
      const up = path.dirname(dir);
      if (up !== dir) found = this.hasMarkerAbove(up, levels - 1);
    }
    this.selfCache.set(dir, found);
    return found;
  }

  /** The nearest ancestor of `cwd` with a `.git` entry (dir or worktree file); null if none. */
  gitRoot(cwd: string): string | null {
    const dir = path.resolve(cwd);
    if (this.rootCache.has(dir)) return this.rootCache.get(dir) ?? null;
    let found: string | null = null;
    try {
      if (fs.existsSync(path.join(dir, '.git'))) found = dir;
    } catch {
      found = null;
    }
    if (!found) {
      const up = path.dirname(dir);
      found = up !== dir ? this.gitRoot(up) : null;
    }
    this.rootCache.set(dir, found);
    return found;
  }

  project(s: Pick<SessionSnapshot, 'cwd' | 'gitRoot'>): string | null {
    if (s.gitRoot) return s.gitRoot;
    if (!s.cwd) return null;
    return this.gitRoot(s.cwd) ?? s.cwd;
  }

  kind(s: Pick<SessionSnapshot, 'cwd' | 'kind'>): SessionKind {
    return this.isSelf(s.cwd) ? 'self' : s.kind;
  }
}
