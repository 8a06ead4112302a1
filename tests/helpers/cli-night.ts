/**
 * A small night through the built CLI for the real-CLI target tests: the repository's Claude Code,
 * Codex and Copilot CLI fixtures copied into a sandbox (their project rewritten to a sandbox folder,
 * as tests/integration/night.test.ts does) give a few recurring tasks; the training settings keep
 * the night to a few dozen calls, so a real agent CLI as the target finishes it in minutes.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI_BIN } from './sandbox.js';
import { FIXTURE_PROJECT, fixtureHome, type FixtureAgent } from './fixtures.js';

/** Copies an agent's fixture home to `to`, pointing every session at `projectDir`. */
export function copyFixtureHome(from: FixtureAgent, to: string, projectDir: string): void {
  fs.cpSync(fixtureHome(from), to, { recursive: true });
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const text = fs.readFileSync(p, 'utf8');
        if (text.includes(FIXTURE_PROJECT)) fs.writeFileSync(p, text.split(FIXTURE_PROJECT).join(projectDir));
      }
    }
  };
  walk(to);
}

/** The fixture transcripts of three agents, all in `project` (a folder with `.git`). */
export function seedFixtureTranscripts(env: NodeJS.ProcessEnv, project: string): void {
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  copyFixtureHome('claude-code', env.CLAUDE_CONFIG_DIR!, project);
  copyFixtureHome('codex', env.CODEX_HOME!, project);
  copyFixtureHome('copilot-cli', env.COPILOT_HOME!, project);
}

/** A budget.deadline a day away: the time a minute ago (the night's deadline is its next occurrence). */
function deadlineADayAway(): string {
  const t = new Date(Date.now() - 60_000);
  return `${String(t.getHours()).padStart(2, '0')}:${String(t.getMinutes()).padStart(2, '0')}`;
}

/**
 * Config for a small night: one epoch of batches of two, no end-of-run passes, at most four tasks,
 * and a deadline that cannot fall inside the test (the default 07:00 would stop a night run at 06:58).
 */
export const SMALL_NIGHT: Record<string, string> = {
  'budget.deadline': deadlineADayAway(),
  'training.minValTasks': '1',
  'training.batchSize': '2',
  'training.epochs': '1',
  'training.rescue': 'false',
  'training.prune': 'false',
  'training.simplify': 'false',
  'training.attributionMaxEdits': '0',
  'budget.maxTasks': '4',
};

/** Runs the built CLI without blocking this process (an in-process fake model server keeps serving). */
export function runCliAsync(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 540_000): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], { env });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
