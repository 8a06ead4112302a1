/**
 * The user's editor ($VISUAL, then $EDITOR, then vi), for every place that hands a file to it: the
 * review's `e` (a candidate skill) and `tasks edit` (a task). One way to split the command line
 * ("code --wait", "'my editor' -f") and one error when it cannot start. The caller suspends any UI
 * around these calls; the editor owns the terminal (stdio inherited) until it exits.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { SleepError } from '../core/errors.js';

/** Splits an editor command line ("code --wait", "'my editor' -f") into program and arguments. */
export function splitCommand(cmd: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(cmd))) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

export function editorCommand(env: NodeJS.ProcessEnv): string {
  return (env.VISUAL || env.EDITOR || 'vi').trim();
}

/**
 * Opens `file` in the editor and waits for it. Returns the editor's exit status; throws when the
 * editor cannot be started at all (`hint` says what to do next in the caller's words).
 */
export function launchEditor(file: string, env: NodeJS.ProcessEnv, hint = 'set $EDITOR (for example EDITOR=nano) and try again'): number | null {
  const [program, ...args] = splitCommand(editorCommand(env));
  const r = spawnSync(program, [...args, file], { stdio: 'inherit', env });
  if (r.error) throw new SleepError('INVALID_INPUT', `could not start the editor "${editorCommand(env)}": ${r.error.message}`, { hint });
  return r.status;
}

/**
 * The text in a private temp file named like `fileName` (so the editor picks the right syntax).
 * Returns the edited text, or null when the editor failed or the text did not change.
 */
export function editInEditor(text: string, fileName: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillopt-sleep-edit-'));
  const file = path.join(dir, path.basename(fileName) || 'SKILL.md');
  try {
    fs.writeFileSync(file, text, { mode: 0o600 });
    if (launchEditor(file, env, 'set $EDITOR (for example EDITOR=nano) and press e again') !== 0) return null;
    const edited = fs.readFileSync(file, 'utf8');
    return edited === text ? null : edited;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
