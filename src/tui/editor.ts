/**
 * `e`: the candidate opens in the user's editor ($VISUAL, then $EDITOR, then vi) in a private temp
 * file named like the live file (so the editor picks the right syntax). The caller suspends the UI
 * around this call; the editor owns the terminal (stdio inherited) until it exits.
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

/** Returns the edited text, or null when the editor failed or the text did not change. */
export function editInEditor(text: string, fileName: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillopt-sleep-edit-'));
  const file = path.join(dir, path.basename(fileName) || 'SKILL.md');
  try {
    fs.writeFileSync(file, text, { mode: 0o600 });
    const [program, ...args] = splitCommand(editorCommand(env));
    const r = spawnSync(program, [...args, file], { stdio: 'inherit', env });
    if (r.error) {
      throw new SleepError('INVALID_INPUT', `could not start the editor "${editorCommand(env)}": ${r.error.message}`, {
        hint: 'set $EDITOR (for example EDITOR=nano) and press e again',
      });
    }
    if (r.status !== 0) return null;
    const edited = fs.readFileSync(file, 'utf8');
    return edited === text ? null : edited;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
