/** `skillopt-sleep train` as a real child process (built CLI) with the sim backend. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, runCli, CLI_BIN, type Sandbox } from '../helpers/sandbox.js';
import { simPersonaTasks } from '../../bench/persona.js';
import { openDb } from '../../src/store/db.js';
import { resolvePaths } from '../../src/core/paths.js';
import { markProjectSeen } from '../helpers/seen-project.js';

let sb: Sandbox;
afterEach(() => sb?.cleanup());
beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
});

function setup(): { project: string; tasksFile: string } {
  sb = makeSandbox();
  const project = path.join(sb.root, 'proj');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true }); // a git work tree: skills are written only there
  // proposals only write inside projects the store has seen sessions in (src/proposals/targets.ts)
  const db = openDb(resolvePaths({ env: sb.env }).database);
  try {
    markProjectSeen(db, project);
  } finally {
    db.close();
  }
  // the paired gate re-samples undecided candidates: two epochs of this world need more than the nightly default of 400 calls
  const set = runCli(['config', 'set', 'budget.maxCalls', '2000'], sb.env);
  if (set.status !== 0) throw new Error(set.stderr);
  const tasksFile = path.join(sb.root, 'tasks.jsonl');
  fs.writeFileSync(tasksFile, simPersonaTasks(2, 40, { ruleOnly: true }).map((t) => JSON.stringify({ ...t, project })).join('\n') + '\n');
  return { project, tasksFile };
}

describe('skillopt-sleep train', () => {
  it('--dry-run prints the plan and calls nothing', () => {
    const { project, tasksFile } = setup();
    const r = runCli(['train', '--tasks', tasksFile, '--project', project, '--backend', 'sim', '--epochs', '2', '--batch-size', '5', '--lr-schedule', 'linear', '--dry-run', '--json'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { dryRun: boolean; tasks: { train: number; val: number; test: number }; steps: { total: number }; lr: number[] };
    expect(plan.dryRun).toBe(true);
    expect(plan.tasks).toMatchObject({ train: 16, val: 16, test: 8 });
    expect(plan.steps.total).toBe(8);
    expect(plan.lr).toEqual([4, 3, 3, 2, 2, 2, 1, 1]); // Python: [max(1, round(4 - 3*s/8)) for s in 1..8]
    expect(fs.existsSync(path.join(sb.home, 'state', 'runs'))).toBe(false);
  });

  it('trains with per-step lines, stages a proposal, and never writes the live skill', () => {
    const { project, tasksFile } = setup();
    const r = runCli(['train', '--tasks', tasksFile, '--project', project, '--backend', 'sim', '--epochs', '2', '--batch-size', '5', '--seed', '3'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\[epoch 1 step 1\/4\] rollout 5 tasks · (\d+ edits proposed · \d+ selected \(lr 4\) · .*val \d\.\d\d → (\d\.\d\d|—) (ACCEPT|REJECT)|no edits proposed · SKIP)/m);
    // the run started from the start draft (checks + corrections per job), and reports from the skill it was given
    expect(r.stdout).toMatch(/^training started from a draft of your own corrections and the tasks' visible checks/m);
    expect(r.stdout).toMatch(/\[epoch 2 step 4\/4\]/);
    expect(r.stdout).toMatch(/validation: 0\.\d+ → 0\.\d+/);
    const id = /staged proposal (p_\w+)/.exec(r.stdout)?.[1];
    expect(id).toBeTruthy();
    const live = path.join(project, '.claude', 'skills', 'skillopt-sleep-learned', 'SKILL.md');
    expect(fs.existsSync(live)).toBe(false);
    const show = runCli(['proposals', 'show', id!, '--json'], sb.env);
    expect(show.status, show.stderr).toBe(0);
    const p = JSON.parse(show.stdout) as { proposal: { candidateScore: number; baselineScore: number; skillTarget: { path: string }; edits: Array<{ status: string }> } };
    expect(p.proposal.candidateScore).toBeGreaterThan(p.proposal.baselineScore);
    expect(p.proposal.skillTarget.path).toBe(live);
    expect(p.proposal.edits.some((e) => e.status === 'accepted')).toBe(true);
    // the draft is the proposal's first accepted edits (a partial apply can keep or drop them)
    expect((p.proposal.edits[0] as { id?: string }).id).toMatch(/^corrections-draft-1$/);
  });

  it('--json emits one parseable result; bad flags and thin task sets fail with a hint', () => {
    const { project, tasksFile } = setup();
    const r = runCli(['train', '--tasks', tasksFile, '--project', project, '--backend', 'sim', '--epochs', '1', '--batch-size', '10', '--json'], sb.env);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { runId: string; steps: unknown[]; proposal: { id: string } | null; best: { val: number } };
    expect(out.steps).toHaveLength(2);
    expect(out.runId).toMatch(/^run_/);
    const bad = runCli(['train', '--tasks', tasksFile, '--project', project, '--backend', 'sim', '--lr-schedule', 'warp'], sb.env);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--lr-schedule must be one of/);
    const thin = path.join(sb.root, 'thin.jsonl');
    fs.writeFileSync(thin, fs.readFileSync(tasksFile, 'utf8').split('\n').filter((l) => l.includes('"split":"train"')).join('\n'));
    const t = runCli(['train', '--tasks', thin, '--project', project, '--backend', 'sim'], sb.env);
    expect(t.status).toBe(1);
    expect(t.stderr).toMatch(/not enough tasks to train: 16 train, 0 val/);
    expect(t.stderr).toMatch(/hint:/);
  });
});
