/**
 * The one way a command asks before it deletes something: a numbered question (1 yes, 2 no, as
 * in the review screen) on stderr, answered on stdin. `--yes` answers for scripts; no answer (a
 * closed or empty stdin) is a no, so nothing is ever deleted by accident in a pipe.
 */
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { SleepError } from '../core/errors.js';
import type { CliContext } from './context.js';

export async function confirm(ctx: CliContext, question: string, yes: boolean | undefined): Promise<boolean> {
  if (yes) return true;
  ctx.err.write(`${question}\n  1 yes\n  2 no\n> `);
  const answer = await readLine();
  return /^\s*(1|y|yes)\s*$/i.test(answer ?? '');
}

function readLine(): Promise<string | null> {
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input: process.stdin, terminal: false });
    let done = false;
    const finish = (v: string | null) => {
      if (done) return;
      done = true;
      rl.close();
      resolve(v);
    };
    rl.once('line', (l) => finish(l));
    rl.once('close', () => finish(null));
  });
}

/**
 * A folder the wipe and uninstall commands may delete whole: never the filesystem root, the home
 * folder or a folder above it (a `SKILLOPT_SLEEP_HOME=~` typo must not cost the user their home).
 */
export function assertDeletableFolder(dir: string, env: NodeJS.ProcessEnv = process.env): void {
  const d = path.resolve(dir);
  const homes = [os.homedir(), env.HOME, env.USERPROFILE].filter((h): h is string => !!h);
  const aboveOrHome = homes.some((home) => {
    const rel = path.relative(d, path.resolve(home));
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
  if (d === path.parse(d).root || aboveOrHome) {
    throw new SleepError('INVALID_INPUT', `refusing to delete ${d}: it is ${d === path.parse(d).root ? 'the filesystem root' : 'your home folder or above it'}`, {
      hint: 'check SKILLOPT_SLEEP_HOME / XDG_STATE_HOME / XDG_CONFIG_HOME (`skillopt-sleep paths`)',
    });
  }
}
