/**
 * Says why a live skill file could not be read or written by `apply` (or `revert`), in words the user can act
 * on: which folder, what is wrong with it (not writable, on a read-only mount, a file where a
 * folder must be, a full disk), that nothing was changed and the proposal is still staged (or
 * applied), and to run the command again once it is fixed. apply.ts calls it only where the live file is provably
 * unchanged. A system error about another path (the state folder) is left as it is, for
 * error-diagnosis.ts to name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isSleepError, SleepError } from '../core/errors.js';

/** `inner` is `outer` or inside it. */
export function within(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The nearest part of `dir` (itself or an ancestor) that exists: the folder that refused a write. */
function nearestExisting(dir: string): string {
  let cur = path.resolve(dir);
  while (!fs.existsSync(cur) && path.dirname(cur) !== cur) cur = path.dirname(cur);
  return cur;
}

/** A file that stands where a folder on the way to `file` must be (or a folder where `file` must be). */
function thingInTheWay(file: string): { at: string; kind: 'file' | 'folder' } | null {
  try {
    if (fs.lstatSync(file).isDirectory()) return { at: file, kind: 'folder' };
  } catch {
    /* missing or unreadable: look at the folders */
  }
  let blocker: string | null = null;
  for (let cur = path.dirname(path.resolve(file)); path.dirname(cur) !== cur; cur = path.dirname(cur)) {
    try {
      if (!fs.statSync(cur).isDirectory()) blocker = cur; // keep going: the topmost one is the cause
    } catch {
      /* missing: its parent decides */
    }
  }
  return blocker ? { at: blocker, kind: 'file' } : null;
}

/**
 * The error to show for `err`, raised while `action` (apply by default) of `proposalId` read or
 * wrote `file` (the live file, or `liveFile`'s copy for another agent) when nothing was written or all was undone: a
 * SleepError with an actionable hint for the faults we can name, else `err` unchanged.
 */
export function liveWriteFailure(err: unknown, where: { file: string; proposalId: string; liveFile?: string; action?: 'apply' | 'revert' }): unknown {
  const { file, proposalId, liveFile = file, action = 'apply' } = where;
  if (isSleepError(err) || !(err instanceof Error)) return err;
  const code = String((err as NodeJS.ErrnoException).code ?? '');
  const errPath = (err as NodeJS.ErrnoException).path;
  const dir = path.dirname(file);
  // about another path (the state folder, a backup): not ours to explain
  if (typeof errPath === 'string' && !within(errPath, dir) && !within(dir, errPath)) return err;
  const kept = `nothing was changed: ${liveFile === file ? `${file} is` : `${liveFile} and its copies are`} as ${liveFile === file ? 'it was' : 'they were'} and proposal ${proposalId} is still ${action === 'apply' ? 'staged' : 'applied'}`;
  const again = `then run \`skillopt-sleep ${action} ${proposalId}\` again`;
  const opts = (hint: string) => ({ hint: `${kept}; ${hint}, ${again}`, cause: err, details: { path: file, errno: code } });
  if (code === 'ENOTDIR' || code === 'EEXIST' || code === 'EISDIR') {
    const blocker = thingInTheWay(file);
    if (blocker?.kind === 'folder') {
      return new SleepError('INVALID_INPUT', `cannot write ${file}: a folder stands where the skill file must be (${code})`, opts(`look inside ${file}, then rename or remove that folder`));
    }
    const at = blocker?.at ?? dir;
    return new SleepError('INVALID_INPUT', `cannot write ${file}: ${at} is a file, but a folder must be there (${code})`, opts(`look at ${at} (\`ls -l ${at}\`), then rename or remove that file so the folder can be made`));
  }
  const folder = nearestExisting(dir);
  if (code === 'EROFS') {
    return new SleepError('READ_ONLY', `cannot write ${file}: the skill folder ${folder} is on a read-only file system (EROFS)`, opts(`remount it read-write (\`findmnt -T ${folder}\` shows the mount)`));
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return new SleepError(
      'NO_PERMISSION',
      `cannot write ${file}: the skill folder ${folder} is not writable by this user (${code})`,
      opts(`fix its permissions or owner (\`ls -ld ${folder}\` shows them; e.g. \`chmod u+w ${folder}\` or \`sudo chown "$(id -un)" ${folder}\`), or remount it read-write if it is a read-only mount`),
    );
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new SleepError('DISK_FULL', `cannot write ${file}: no space left on the disk that holds ${folder} (${code})`, opts(`free space there (\`df -h ${folder}\`)`));
  }
  return err;
}
