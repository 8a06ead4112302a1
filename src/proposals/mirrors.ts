/**
 * Copies of a managed skill for agents that do not read the primary file (SkillTarget.mirrors:
 * Claude Code reads `.claude/skills`, Codex `.agents/skills`; a project used with both gets the
 * learned skill in each). A copy is written with the primary, by the same rules: inside a derived
 * target (targets.ts, checked before any write and again right before its own), atomically, after a backup of what was there
 * (`<backup>.copy-<n>`, or `.absent` when there was nothing). Revert puts back each copy that is
 * still exactly what apply wrote; a copy the user edited since is left alone and reported.
 * The journal covers the primary file: a crash between the primary and a copy leaves that copy
 * old or new (each write is atomic), and the next apply or revert brings it in line.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AgentId, Proposal } from '../core/records.js';
import { makeDirsTracked, readIfExists, sha256, writeFileAtomic } from '../core/fsutil.js';
import { assertWritableTarget } from '../../adapters/skills-registry.js';
import { assertConfinedWrite } from './targets.js';

export interface CopyResult {
  path: string;
  readBy: AgentId[];
  /** what happened to this copy */
  outcome: 'written' | 'restored' | 'removed' | 'kept (edited since the apply)' | 'unchanged';
}

const copyBackup = (backupPath: string, i: number) => `${backupPath}.copy-${i}`;

/**
 * Writes `content` to every copy of `p`'s skill, each after a backup of what was there. The
 * folders it makes are appended to `created` (the apply's record, so revert takes them away),
 * and each copy done to `out` as it is done, so a caller can undo them when a later one fails.
 */
export function writeCopies(p: Proposal, content: string, backupPath: string, env: NodeJS.ProcessEnv, created: string[] = [], out: CopyResult[] = []): CopyResult[] {
  (p.skillTarget.mirrors ?? []).forEach((m, i) => {
    assertWritableTarget(m.path, { project: p.skillTarget.project ?? null, env });
    assertConfinedWrite(m.path, p.skillTarget.project ?? null, env);
    const current = readIfExists(m.path);
    const backup = copyBackup(backupPath, i);
    if (current !== undefined) {
      writeFileAtomic(backup, current, { mode: 0o600 });
      fs.rmSync(`${backup}.absent`, { force: true });
    } else {
      fs.rmSync(backup, { force: true });
      writeFileAtomic(`${backup}.absent`, '', { mode: 0o600 });
    }
    if (current === content) return out.push({ path: m.path, readBy: m.readBy, outcome: 'unchanged' });
    created.push(...makeDirsTracked(path.dirname(m.path)));
    assertConfinedWrite(m.path, p.skillTarget.project ?? null, env); // again, right before the write
    writeFileAtomic(m.path, content);
    out.push({ path: m.path, readBy: m.readBy, outcome: 'written' });
  });
  return out;
}

/** Puts back the copies `written` (by writeCopies, in an apply that failed after them) from their backups. */
export function undoWrittenCopies(p: Proposal, written: CopyResult[], backupPath: string): void {
  (p.skillTarget.mirrors ?? []).forEach((m, i) => {
    if (!written.some((c) => c.path === m.path && c.outcome === 'written')) return;
    const backup = copyBackup(backupPath, i);
    const before = readIfExists(backup);
    if (before !== undefined) writeFileAtomic(m.path, before);
    else if (fs.existsSync(`${backup}.absent`)) fs.rmSync(m.path, { force: true });
  });
}

/**
 * Puts back every copy that still holds what apply wrote (`appliedHash`). `dirsRecorded`: the
 * apply recorded the folders it made (the caller removes those); else a removed copy's own folder
 * goes with it when empty.
 */
export function revertCopies(p: Proposal, appliedHash: string | null, backupPath: string, env: NodeJS.ProcessEnv, dirsRecorded = false): CopyResult[] {
  const out: CopyResult[] = [];
  (p.skillTarget.mirrors ?? []).forEach((m, i) => {
    assertWritableTarget(m.path, { project: p.skillTarget.project ?? null, env });
    assertConfinedWrite(m.path, p.skillTarget.project ?? null, env);
    const backup = copyBackup(backupPath, i);
    const absent = fs.existsSync(`${backup}.absent`) && !fs.existsSync(backup);
    const before = absent ? undefined : readIfExists(backup);
    if (!absent && before === undefined) return; // applied before copies existed: nothing of ours to undo
    const now = readIfExists(m.path);
    if (now !== undefined && appliedHash !== null && sha256(now) !== appliedHash) return out.push({ path: m.path, readBy: m.readBy, outcome: 'kept (edited since the apply)' });
    if (before === undefined) {
      fs.rmSync(m.path, { force: true });
      try {
        if (!dirsRecorded) fs.rmdirSync(path.dirname(m.path));
      } catch {
        /* not empty */
      }
      out.push({ path: m.path, readBy: m.readBy, outcome: 'removed' });
    } else {
      writeFileAtomic(m.path, before);
      out.push({ path: m.path, readBy: m.readBy, outcome: 'restored' });
    }
  });
  return out;
}
