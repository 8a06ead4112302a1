/**
 * The nightly cycle through the real CLI with the `sim` backend over the repository's transcript
 * fixtures (copied into a sandbox, their project path rewritten to a sandbox folder).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { FIXTURE_PROJECT, fixtureHome, type FixtureAgent } from '../helpers/fixtures.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb } from '../../src/store/db.js';
import { acquireLease, releaseLease } from '../../src/store/repos/leases.js';
import { listProposals } from '../../src/store/repos/proposals.js';
import { defaultConfig } from '../../src/core/config.js';
import { createRoleBackends } from '../../src/llm/registry.js';
import { rescoreSubset } from '../../src/proposals/apply.js';

let sb: Sandbox;
let project: string;
let env: NodeJS.ProcessEnv;

function copyFixtures(from: FixtureAgent, to: string, projectDir: string): void {
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

const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, { ...env, ...extra }, { timeout: 90_000 });
const setConfig = (key: string, value: string) => {
  const r = cli(['config', 'set', key, value]);
  expect(r.status, r.stderr).toBe(0);
};
const json = (args: string[], extra: NodeJS.ProcessEnv = {}) => {
  const r = cli([...args, '--json'], extra);
  try {
    return { r, data: JSON.parse(r.stdout) };
  } catch {
    throw new Error(`not JSON (exit ${r.status}): ${r.stdout}\n${r.stderr}`);
  }
};

beforeAll(() => {
  if (!fs.existsSync(CLI_BIN)) throw new Error('run `npm run build` before the CLI tests');
  sb = makeSandbox();
  // only node on PATH: no agent CLI can be detected, so nothing real is ever chosen
  env = { ...sb.env, PATH: path.dirname(process.execPath) };
  project = path.join(sb.root, 'tidemark');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  copyFixtures('claude-code', env.CLAUDE_CONFIG_DIR!, project);
  copyFixtures('codex', env.CODEX_HOME!, project);
  copyFixtures('copilot-cli', env.COPILOT_HOME!, project);
  copyFixtures('copilot-vscode', path.join(sb.root, 'vscode'), project);
  expect(cli(['config', 'set', 'agents.copilot.vscodeUserDirs', path.join(sb.root, 'vscode/User')]).status).toBe(0);
});
afterAll(() => sb?.cleanup());

describe('night', () => {
  it('--dry-run prints the forecast and the tasks it would use, calls nothing, stages nothing', () => {
    setConfig('training.minValTasks', '1');
    const { r, data } = json(['night', '--dry-run', '--backend', 'sim']);
    expect(r.status, r.stderr).toBe(0);
    expect(data.status).toBe('dry_run');
    expect(data.forecast.calls).toBeGreaterThan(0);
    expect(data.used.calls).toBe(0);
    const item = data.items.find((i: { target: { name: string } }) => i.target.name === 'skillopt-sleep-learned');
    expect(item.target.path).toBe(path.join(project, '.claude/skills/skillopt-sleep-learned/SKILL.md'));
    expect(item.tasks.ids.train.length + item.tasks.ids.val.length).toBeGreaterThan(1);
    expect(item.status).toBe('planned'); // nothing ran: not "not_improved"
    const text = cli(['night', '--dry-run', '--backend', 'sim']);
    expect(text.stdout).toMatch(/→ planned$/m);
    expect(text.stdout).toMatch(/^forecast: up to \d+ calls/m);
    expect(text.stdout).toMatch(/tasks: task_/);
    expect(json(['proposals', 'list']).data.proposals).toEqual([]);
  });

  it('a thin night stages nothing and its report says why and what is needed', () => {
    setConfig('training.minValTasks', '3');
    const { r, data } = json(['night', '--backend', 'sim']);
    expect(r.status, r.stderr).toBe(0);
    expect(data.status).toBe('nothing_staged');
    expect(data.proposals).toEqual([]);
    expect(data.summary).toMatch(/nothing staged: .*thin night/);
    const md = fs.readFileSync(path.join(resolvePaths({ env }).runsDir, data.id, 'night-report.md'), 'utf8');
    expect(md).toMatch(/thin night: \d validation task\(s\), training.minValTasks is 3\. Needed: about \d+ more recurring task/);
    const db = openDb(resolvePaths({ env }).database);
    try {
      expect(db.prepare("SELECT kind, status FROM runs WHERE id = ?").get(data.id)).toEqual({ kind: 'night', status: 'done' });
    } finally {
      db.close();
    }
  });

  // a budget no skill fits even at its smallest shape: the night stops before its first call (fit.ts)
  it('stops before spending when no skill fits the budget, and says so', () => {
    setConfig('training.minValTasks', '1');
    setConfig('budget.maxCalls', '3');
    const { r, data } = json(['night', '--backend', 'sim']);
    // the dry run prints the same fit: what was cut, what is left for later nights, and why
    const dry = cli(['night', '--dry-run', '--backend', 'sim']);
    setConfig('budget.maxCalls', '400');
    expect(dry.stdout).toMatch(/^budget plan: the mined plan wanted ~\d+ calls/m);
    expect(dry.stdout).toMatch(/^ {2}left for later nights: skillopt-sleep-learned \(\d+ tasks\)$/m);
    expect(dry.stdout).toMatch(/^ {2}stopped before spending: no skill fits/m);
    expect(r.status, r.stderr).toBe(0);
    expect(data.used.calls).toBe(0);
    expect(data.status).toBe('nothing_staged');
    expect(data.budgetPlan.stopBeforeSpending).toMatch(/no skill fits the night's budget .*no call was made/);
    expect(data.budgetPlan.deferred.length).toBeGreaterThan(0);
    const item = data.items.find((i: { target: { path: string } }) => i.target.path === data.budgetPlan.deferred[0].path);
    expect(item.status).toBe('skipped');
    expect(item.reason).toMatch(/deferred to a later night/);
    expect(data.summary).toMatch(/nothing staged: .*deferred to a later night/);
    expect(data.proposals).toEqual([]);
  });

  it('stages a proposal with every file; apply writes the live skill, revert removes it; reject is remembered', () => {
    setConfig('training.minValTasks', '1');
    // the fixtures hold a handful of distinct asks (one task per occurrence, near-duplicates merged):
    // small batches give the optimizer several steps a night instead of one per epoch
    setConfig('training.batchSize', '2');
    const { r, data } = json(['night', '--backend', 'sim']);
    expect(r.status, r.stderr).toBe(0);
    expect(data.status).toBe('done');
    expect(data.proposals).toHaveLength(1);
    const id = data.proposals[0];
    const dir = path.join(resolvePaths({ env }).proposalsDir, id);
    expect(fs.readdirSync(dir).sort()).toEqual(['SKILL.md', 'base.md', 'base.sha256', 'changes.diff', 'evidence.jsonl', 'report.json', 'report.md', 'start.md']);
    const report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));
    expect(report.gate.accepted).toBe(true);
    expect(report.gate.candidateScore).toBeGreaterThan(report.gate.baselineScore);
    expect(report.edits.accepted.length).toBeGreaterThan(0);
    expect(report.backends.target.backend).toBe('sim');
    // the night stages through the same path as `train` (stageTrainResult): the gate's trial of every
    // step, per-task scores of every split, one evidence log (its plan, then every step and epoch)
    expect(report.gate.trials.length).toBeGreaterThan(0);
    expect(new Set(report.perTask.map((t: { split: string }) => t.split))).toEqual(new Set(['val', 'test']));
    const log = fs.readFileSync(path.join(dir, 'evidence.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { stage: string });
    expect(log[0].stage).toBe('plan');
    expect(new Set(log.map((e) => e.stage))).toEqual(new Set(['plan', 'step', 'epoch']));
    const candidate = fs.readFileSync(path.join(dir, 'SKILL.md'), 'utf8');
    expect(candidate).toMatch(/^---\nname: skillopt-sleep-learned\ndescription: /);

    const live = path.join(project, '.claude/skills/skillopt-sleep-learned/SKILL.md');
    expect(fs.existsSync(live)).toBe(false); // the night never writes a live skill
    let a = json(['apply', id]);
    if (a.r.status !== 0 && /flagged by the risk lint/.test(a.r.stdout)) {
      // whether an edit repeats a literal only the replies carried depends on the sim's draws: then the
      // risk lint refuses a plain apply, names the line, and the user has to say --force-risky
      expect(fs.existsSync(live)).toBe(false);
      a = json(['apply', id, '--force-risky']);
    }
    expect(a.r.status, a.r.stderr + a.r.stdout).toBe(0);
    expect(fs.readFileSync(live, 'utf8')).toBe(candidate);
    // this project's transcripts come from Claude Code and Codex: Codex gets a copy in its own folder
    const copy = path.join(project, '.agents/skills/skillopt-sleep-learned/SKILL.md');
    expect(a.data.copies).toEqual([{ path: copy, readBy: ['codex', 'copilot', 'gemini', 'pi', 'cursor', 'opencode', 'antigravity'], outcome: 'written' }]);
    expect(fs.readFileSync(copy, 'utf8')).toBe(candidate);
    expect(a.data.readBy).toEqual(['claude-code', 'codex', 'copilot', 'gemini', 'pi', 'cursor', 'opencode', 'antigravity']);
    expect(cli(['revert', id]).status).toBe(0);
    expect(fs.existsSync(live)).toBe(false);
    expect(fs.existsSync(copy)).toBe(false);

    // a second night proposes again; rejecting it remembers its edits for the trainer
    const again = json(['night', '--backend', 'sim']).data;
    expect(again.proposals).toHaveLength(1);
    {
      const rj = cli(['reject', again.proposals[0], '--reason', 'not now']);
      expect(rj.status, rj.stderr).toBe(0);
      const db = openDb(resolvePaths({ env }).database);
      try {
        const n = db.prepare("SELECT count(*) AS n FROM rejected_edits WHERE skill_key = ? AND source = 'user'").get(live) as { n: number };
        expect(n.n).toBeGreaterThan(0);
      } finally {
        db.close();
      }
    }
  });

  it('re-scores a subset of edits for a partial apply (sim, from the store)', async () => {
    const paths = resolvePaths({ env });
    const db = openDb(paths.database);
    try {
      const staged = listProposals(db, { status: 'staged' });
      const p = staged[0] ?? listProposals(db)[0];
      const accepted = p.edits.filter((e) => e.status === 'accepted');
      const config = { ...defaultConfig(), roles: { target: { backend: 'sim' as const }, optimizer: { backend: 'sim' as const }, judge: { backend: 'sim' as const }, miner: { backend: 'sim' as const } } };
      const backends = createRoleBackends(config, { db, env, simAllowed: true });
      const none = await rescoreSubset(db, p.id, [], { target: backends.target, judge: backends.judge, metric: 'soft' });
      // no edits = the start document: the baseline's score again (same skill text, cached)
      expect(none.subsetScore).toBeCloseTo(p.baselineScore, 6);
      const all = await rescoreSubset(db, p.id, accepted.map((e) => e.id), { target: backends.target, judge: backends.judge, metric: 'soft' });
      // every edit = the staged text (through the same staging guard); its score is the night's
      // unless the guard took rules out of what training measured (the report then says so)
      expect(all.content).toBe(p.candidate);
      const guarded = (JSON.parse(fs.readFileSync(path.join(p.dir, 'report.json'), 'utf8')) as { guard?: { removed: Array<{ why: string }> } }).guard?.removed ?? [];
      if (!guarded.some((r) => r.why !== 'empty-section' && r.why !== 'run-note')) expect(all.subsetScore).toBeCloseTo(p.candidateScore, 6);
      expect(all.perTask.length).toBe(p.perTask.filter((t) => t.split === 'val').length);
    } finally {
      db.close();
    }
  });

  it('a night interrupted by a crash is marked aborted by the next one', () => {
    const paths = resolvePaths({ env });
    const db = openDb(paths.database);
    try {
      db.prepare("INSERT INTO runs (id, kind, status, started_at, dir, record) VALUES ('night_crashed', 'night', 'running', 1, ?, '{}')").run(path.join(paths.runsDir, 'night_crashed'));
    } finally {
      db.close();
    }
    const { data } = json(['night', '--backend', 'sim']);
    expect(data.recovered).toContain('night night_crashed had been interrupted; marked aborted');
    const db2 = openDb(paths.database);
    try {
      expect((db2.prepare("SELECT status FROM runs WHERE id = 'night_crashed'").get() as { status: string }).status).toBe('aborted');
    } finally {
      db2.close();
    }
  });

  it('never falls back to sim silently: no backend → nothing staged, with the fix', () => {
    const { r, data } = json(['night']);
    expect(r.status).toBe(1);
    expect(data.status).toBe('failed');
    expect(data.proposals).toEqual([]);
    expect(data.notes.join('\n')).toMatch(/backend unavailable/);
    expect(data.items.find((i: { status: string; reason?: string }) => i.reason === 'no backend available')?.needed).toMatch(/install the claude, codex or copilot CLI/);
  });

  it('one night at a time: a second invocation says who holds the lease', () => {
    const db = openDb(resolvePaths({ env }).database);
    try {
      acquireLease(db, 'night', 'test-holder', 60_000, {});
      const r = cli(['night', '--backend', 'sim']);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^error: night is already running \(pid \d+ on /m);
      releaseLease(db, 'night', 'test-holder');
    } finally {
      db.close();
    }
  });
});
