/**
 * End to end: the review's colour follows the terminal, not the environment's CI flag. The real
 * built binary runs in tmux under CI=true (as in this project's CI) with a 256-colour TERM, and the
 * screen is captured with its attributes (`capture-pane -e`): colour codes are there. The same
 * screen under NO_COLOR=1 carries none. Skipped (with the reason printed) only without tmux.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { seedReview } from '../helpers/seed-review.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) console.warn('review-colour: SKIPPED — tmux is not installed (apt-get install tmux)');

const tmux = (...args: string[]) => spawnSync('tmux', args, { encoding: 'utf8' });
/** SGR sequences that set a colour (foreground/background, 16, 256 or true colour); bold etc. do not count */
const COLOUR_SGR = /\x1b\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m/;

async function captureWhen(session: string, text: string, timeoutMs = 30_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < end) {
    last = tmux('capture-pane', '-p', '-e', '-t', session).stdout ?? '';
    if (last.includes(text)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${JSON.stringify(text)}; screen was:\n${last}`);
}

describe.skipIf(!hasTmux)('review colour in a real terminal (tmux)', () => {
  let sb: Sandbox;
  let project: string;
  const sessions: string[] = [];

  beforeAll(() => {
    if (!fs.existsSync(CLI_BIN)) throw new Error(`${CLI_BIN} is missing: run \`npm run build\` first`);
    sb = makeSandbox();
    project = path.join(sb.root, 'project');
    fs.mkdirSync(project);
    seedReview(sb.env, project, { extraProposals: 1 });
  });

  afterAll(() => {
    for (const s of sessions) tmux('kill-session', '-t', s);
    sb?.cleanup();
  });

  function startReview(name: string, extra: Record<string, string>, drop: string[] = []): string {
    const session = `review-colour-${name}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    sessions.push(session);
    const env: NodeJS.ProcessEnv = { ...sb.env, TERM: 'xterm-256color', CI: 'true', ...extra };
    for (const k of ['NO_COLOR', 'FORCE_COLOR', ...drop]) if (!(k in extra)) delete env[k];
    const exports = Object.entries(env)
      .map(([k, v]) => `export ${k}='${String(v).replace(/'/g, `'\\''`)}'`)
      .join('\n');
    const script = path.join(sb.root, `run-${name}.sh`);
    fs.writeFileSync(script, `${exports}\ncd '${project}'\n'${process.execPath}' '${CLI_BIN}' review\nsleep 60\n`);
    const r = tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '40', `sh '${script}'`);
    expect(r.status, r.stderr).toBe(0);
    return session;
  }

  it('shows colour on a 256-colour terminal even with CI=true', async () => {
    const s = await captureWhen(startReview('on', {}), 'waiting');
    expect(s).toMatch(COLOUR_SGR);
  });

  it('shows no colour under NO_COLOR=1', async () => {
    const s = await captureWhen(startReview('off', { NO_COLOR: '1' }), 'waiting');
    expect(s).toContain('waiting'); // the screen really rendered
    expect(s).not.toMatch(COLOUR_SGR);
  });
});
