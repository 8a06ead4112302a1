/**
 * `skillopt-sleep demo` run as a newcomer would, non-interactively: the built CLI as a child
 * process, sandbox transcripts → harvest → mine → a night on the simulated model. It must stage a
 * proposal whose validation score really went up, trained on tasks mined from those transcripts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { resolvePaths } from '../../src/core/paths.js';
import { CLI_BIN, makeSandbox, runCli } from '../helpers/sandbox.js';
import { shapeProblems } from '../helpers/json-docs.js';

const box = makeSandbox();
afterAll(() => box.cleanup());
beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
});

interface DemoProposal {
  id: string;
  status: string;
  baselineScore: number;
  candidateScore: number;
  skillTarget: { path: string; readBy: string[]; project: string | null };
  perTask: Array<{ taskId: string; split: string; before: number; after: number }>;
  dir: string;
}

describe('skillopt-sleep demo', () => {
  it('stages a proposal with a positive validation lift from the sandbox transcripts', () => {
    const dir = path.join(box.root, 'demo');
    const r = runCli(['demo', '--no-review', '--json', '--dir', dir], box.env, { timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { sandbox: string; simulated: boolean; steps: Record<string, { status?: string; newTasks?: number }>; proposals: DemoProposal[] };
    expect(shapeProblems(out, 'demo')).toEqual([]);
    expect(out.simulated).toBe(true);
    expect(out.sandbox).toBe(dir);
    expect(out.steps.night.status).toBe('done');

    const lifted = out.proposals.filter((p) => p.status === 'staged' && p.candidateScore > p.baselineScore);
    expect(lifted.length).toBeGreaterThanOrEqual(1);
    const p = lifted[0];
    // the gate measured held-out occurrences: validation tasks, and at least one of them improved
    const val = p.perTask.filter((t) => t.split === 'val');
    expect(val.length).toBeGreaterThanOrEqual(2);
    expect(val.some((t) => t.after > t.before)).toBe(true);
    // the skill file it would write lives in the sandbox, never the real home
    expect(p.skillTarget.path.startsWith(dir + path.sep)).toBe(true);
    expect(p.skillTarget.readBy.length).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(p.dir, 'report.md'))).toBe(true);

    // the kept sandbox's config uses the simulated model, so exploring it needs no extra variables
    const sandboxEnv = { ...box.env, SKILLOPT_SLEEP_HOME: path.join(dir, 'skillopt-sleep'), HOME: path.join(dir, 'home'), CLAUDE_CONFIG_DIR: path.join(dir, 'agents/claude'), CODEX_HOME: path.join(dir, 'agents/codex'), COPILOT_HOME: path.join(dir, 'agents/copilot') };
    const doctor = runCli(['doctor', '--json'], sandboxEnv);
    const roles = (JSON.parse(doctor.stdout) as { checks: Array<{ name: string; status: string; detail: string }> }).checks.filter((c) => c.name.startsWith('role '));
    expect(roles.map((c) => [c.name, c.status, c.detail.split(' ')[0]])).toEqual([
      ['role target', 'ok', 'sim'],
      ['role optimizer', 'ok', 'sim'],
      ['role judge', 'ok', 'sim'],
      ['role miner', 'ok', 'sim'],
    ]);

    // the scored tasks were mined from the sandbox's transcripts: each is an occurrence of a session there
    const home = path.join(dir, 'skillopt-sleep');
    const db = openDb(resolvePaths({ env: { SKILLOPT_SLEEP_HOME: home } }).database);
    try {
      for (const t of p.perTask) {
        const rows = db
          .prepare('SELECT s.file FROM task_occurrences o JOIN sessions s ON s.id = o.session_id WHERE o.task_id = ?')
          .pluck()
          .all(t.taskId) as string[];
        expect(rows.length, t.taskId).toBeGreaterThan(0);
        for (const f of rows) expect(f.startsWith(dir + path.sep)).toBe(true);
      }
      // validation tasks share a family with training tasks (one job, several occurrences)
      const familyOf = db.prepare('SELECT cluster_id FROM tasks WHERE id = ?').pluck();
      const trainFamilies = new Set((db.prepare("SELECT cluster_id FROM tasks WHERE split = 'train'").pluck().all() as string[]));
      expect(val.some((t) => trainFamilies.has(familyOf.get(t.taskId) as string))).toBe(true);
    } finally {
      db.close();
    }

    // `proposals list` in the demo's sandbox shows it
    const listed = runCli(['proposals', 'list', '--json'], { ...box.env, SKILLOPT_SLEEP_HOME: home, HOME: path.join(dir, 'home') });
    expect(listed.status, listed.stderr).toBe(0);
    const body = JSON.parse(listed.stdout) as { proposals?: DemoProposal[] } | DemoProposal[];
    const ids = (Array.isArray(body) ? body : (body.proposals ?? [])).map((x) => x.id);
    expect(ids).toContain(p.id);
  }, 90_000);
});
