import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { action } from '../run.js';
import type { CliContext } from '../context.js';
import { writeDemoCorpus } from '../../demo/corpus.js';
import { SleepError } from '../../core/errors.js';
import { setConfigValue } from '../../core/config.js';
import { resolvePaths } from '../../core/paths.js';

const CLI = fileURLToPath(new URL('../main.js', import.meta.url));

interface DemoOptions {
  keep?: boolean;
  dir?: string;
  review?: boolean;
}

/**
 * `skillopt-sleep demo`: a sandbox with its own SKILLOPT_SLEEP_HOME and fake agent homes, filled
 * with sessions in all three agents' formats; runs harvest → mine → night on the simulated backend
 * as real child processes of this CLI (the same commands a user runs), then opens the review.
 */
export function register(program: Command): void {
  program
    .command('demo')
    .description('try it without an API key: a sandbox with sample transcripts, a simulated night, then the review')
    .option('--keep', 'keep the sandbox afterwards and print how to explore it')
    .option('--dir <path>', 'create the sandbox here instead of a temp dir (must be empty or absent)')
    .option('--no-review', 'print the proposals instead of opening the review screen')
    .action(action((ctx, opts: DemoOptions) => runDemo(ctx, opts)));
}

function sandboxEnv(root: string): NodeJS.ProcessEnv {
  const home = path.join(root, 'home');
  return {
    ...process.env,
    HOME: home, // fake home: the demo never reads your real ~/.claude, ~/.codex or VS Code folders
    USERPROFILE: home,
    SKILLOPT_SLEEP_HOME: path.join(root, 'skillopt-sleep'),
    CLAUDE_CONFIG_DIR: path.join(root, 'agents', 'claude'),
    CODEX_HOME: path.join(root, 'agents', 'codex'),
    COPILOT_HOME: path.join(root, 'agents', 'copilot'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    APPDATA: path.join(home, 'AppData', 'Roaming'),
    // the simulated model, for every role — the demo makes no network call
    SKILLOPT_SLEEP_ROLES_TARGET_BACKEND: 'sim',
    SKILLOPT_SLEEP_ROLES_OPTIMIZER_BACKEND: 'sim',
    SKILLOPT_SLEEP_ROLES_JUDGE_BACKEND: 'sim',
    SKILLOPT_SLEEP_ROLES_MINER_BACKEND: 'sim',
    SKILLOPT_SLEEP_TRAINING_MIN_VAL_TASKS: '2',
  };
}

/** The demo's settings, written to a kept sandbox's config.json. */
const SANDBOX_CONFIG: Record<string, string> = {
  'roles.target.backend': 'sim',
  'roles.optimizer.backend': 'sim',
  'roles.judge.backend': 'sim',
  'roles.miner.backend': 'sim',
  'training.minValTasks': '2',
};

function runStep(ctx: CliContext, env: NodeJS.ProcessEnv, args: string[], inherit: boolean): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout }));
  });
}

async function runDemo(ctx: CliContext, opts: DemoOptions): Promise<number> {
  let root: string;
  if (opts.dir) {
    root = path.resolve(opts.dir);
    if (fs.existsSync(root) && fs.readdirSync(root).length > 0) {
      throw new SleepError('INVALID_INPUT', `${root} is not empty`, { hint: 'give --dir a new or empty folder' });
    }
    fs.mkdirSync(root, { recursive: true });
  } else {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'skillopt-sleep-demo-'));
  }
  const env = sandboxEnv(root);
  const keep = !!opts.keep || !!opts.dir;
  const say = (line: string) => (ctx.json ? undefined : ctx.note(line));

  say('skillopt-sleep demo — the model is SIMULATED (backend "sim"): no API key, no network call.');
  say(`sandbox: ${root}`);
  const { files, projects } = writeDemoCorpus({
    claudeConfigDir: env.CLAUDE_CONFIG_DIR!,
    codexHome: env.CODEX_HOME!,
    copilotHome: env.COPILOT_HOME!,
    projectsRoot: path.join(root, 'home', 'src'),
  });
  say(`wrote ${files.length} sessions (Claude Code, Codex, Copilot CLI) for ${projects.length} projects in which "dana" repeats three jobs and corrects the agent the same way each time.`);

  const steps: Array<{ title: string; args: string[] }> = [
    { title: '1/3 harvest: read the transcripts into the local store', args: ['harvest'] },
    { title: '2/3 mine: find the recurring tasks and the corrections', args: ['mine'] },
    { title: '3/3 night: train the learned skills on the simulated model (per project, or a personal one for habits across projects), gate on held-out occurrences', args: ['night', '--backend', 'sim'] },
  ];
  const results: Record<string, unknown> = {};
  for (const step of steps) {
    say(`\n▶ ${step.title}`);
    const r = await runStep(ctx, env, ctx.json ? [...step.args, '--json'] : step.args, !ctx.json);
    if (ctx.json) results[step.args[0]] = safeJson(r.stdout);
    if (r.code !== 0) {
      throw new SleepError('INTERNAL', `demo step "${step.args.join(' ')}" failed (exit ${r.code})`, {
        hint: `the sandbox is kept at ${root}; run it again with --debug, or look at ${path.join(root, 'skillopt-sleep', 'state', 'logs')}`,
      });
    }
  }

  const list = await runStep(ctx, env, ['proposals', 'list', '--json'], false);
  const proposals = (safeJson(list.stdout) as { proposals?: unknown[] } | unknown[] | null) ?? [];
  const staged = Array.isArray(proposals) ? proposals : (proposals.proposals ?? []);

  if (keep) {
    // the sandbox's own config says what the demo's environment said, so exploring it (the
    // review's re-scoring, another `night`) uses the simulated model too, with no extra variables
    const paths = resolvePaths({ env });
    for (const [key, value] of Object.entries(SANDBOX_CONFIG)) setConfigValue(paths, key, value);
  }
  if (ctx.json) {
    ctx.emit('demo', { sandbox: root, kept: keep, simulated: true, steps: results, proposals: staged }, () => undefined);
  } else {
    say(`\n${staged.length} proposal(s) staged.`);
    const interactive = opts.review !== false && process.stdin.isTTY && process.stdout.isTTY;
    if (interactive && staged.length) {
      say('Opening the review screen (a apply · x reject · Tab views · ? help · q quit)…');
      await runStep(ctx, env, ['review'], true);
    } else {
      await runStep(ctx, env, ['proposals', 'list'], true);
    }
    say('\nThat was a simulated model. To run it for real on your own transcripts:');
    say('  skillopt-sleep doctor     # which agents and backends were found');
    say('  skillopt-sleep start      # the daemon: watch transcripts, train at night');
    if (keep) {
      say(`\nThe sandbox is kept (its config uses the simulated model). Explore it with the other commands:`);
      say(`  export SKILLOPT_SLEEP_HOME=${env.SKILLOPT_SLEEP_HOME} HOME=${env.HOME} CLAUDE_CONFIG_DIR=${env.CLAUDE_CONFIG_DIR} CODEX_HOME=${env.CODEX_HOME} COPILOT_HOME=${env.COPILOT_HOME}`);
      say('  skillopt-sleep tasks list; skillopt-sleep proposals list; skillopt-sleep review');
    }
  }
  if (!keep) fs.rmSync(root, { recursive: true, force: true });
  return 0;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
