/**
 * The one way a command asks before it deletes something: a numbered question (1 yes, 2 no, as
 * in the review screen) on stderr, answered on stdin. `--yes` answers for scripts; no answer (a
 * closed or empty stdin) is a no, so nothing is ever deleted by accident in a pipe.
 */
import readline from 'node:readline';
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
