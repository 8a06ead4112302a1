/**
 * Replays with the REAL `claude` binary against a local scripted Anthropic server, as the issue's
 * done-criteria ask: a changelog task passes only in a workspace seeded from the user's repository
 * (the agent reads the seeded CHANGELOG.md and edits it) and fails in an empty one; the user's repo
 * and Claude home are unchanged (hashes, file counts); an outcome command (`npm run lint`) scores a
 * lint task by exit code and a hanging one is killed at its limit; on an API key the ledger matches
 * the cost the CLI reports and the night stops at budget.maxUsd.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { createRoleBackends } from '../../src/llm/registry.js';
import { BudgetTracker } from '../../src/llm/budget.js';
import { listEgress } from '../../src/llm/ledger.js';
import { rolloutBatch, rolloutTask } from '../../src/replay/index.js';
import { workspacePool } from '../../src/llm/workspace-pool.js';
import { startFakeAnthropic, type CapturedRequest, type FakeServer } from '../helpers/fake-anthropic.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { NODE_BIN, changelogTask, cliMissing, countFiles, sampleTask } from '../helpers/llm-cli.js';
import { hashTree, makeUserRepo, type UserRepo } from '../helpers/user-repo.js';

const missing = cliMissing('claude');
if (missing) console.warn(`SKIP llm-claude-replay-cli: ${missing}`);

const SKILL = '---\nname: changelog\ndescription: Use when adding changelog entries\n---\n# Changelog entries\nNewest version first, one line per PR.\n';

function toolResults(req: CapturedRequest): string[] {
  const out: string[] = [];
  for (const m of (req.body?.messages ?? []) as Array<{ content: unknown }>) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as Array<Record<string, unknown>>) if (b.type === 'tool_result') out.push(JSON.stringify(b.content));
  }
  return out;
}

/** The workspace claude runs in, as its system prompt states it. */
function cwdOf(req: CapturedRequest): string {
  const m = /(\/[^\s"\\]*\/workspaces\/ws-[A-Za-z0-9]+)/.exec(req.raw);
  if (!m) throw new Error('no workspace path in the request');
  return m[1];
}

/** A scripted model that does what a real one would: read the changelog, then edit it (or create it when missing). */
function changelogAgent(req: CapturedRequest) {
  const cwd = cwdOf(req);
  const file = path.join(cwd, 'CHANGELOG.md');
  const results = toolResults(req);
  if (results.length === 0) return { text: 'Reading the changelog.', toolUse: { name: 'Read', input: { file_path: file } } };
  if (results.length === 1) {
    if (results[0].includes('## 1.2.0')) {
      return { text: 'Adding the entry.', toolUse: { name: 'Edit', input: { file_path: file, old_string: '# Changelog\n', new_string: '# Changelog\n\n## 1.2.1\n- Fixed: export crash (PR 418)\n' } } };
    }
    return { text: 'No changelog yet; creating it.', toolUse: { name: 'Write', input: { file_path: file, content: '# Changelog\n\n## 1.2.1\n- Fixed: export crash (PR 418)\n' } } };
  }
  return { text: 'Added the 1.2.1 entry for PR 418.' };
}

describe.skipIf(!!missing)('claude replays in a workspace seeded from the user repository (real binary)', () => {
  let sb: Sandbox;
  let server: FakeServer;
  let db: Db;
  let repo: UserRepo;
  let claudeHome: string;

  beforeAll(async () => {
    server = await startFakeAnthropic();
    sb = makeSandbox({ ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-dummy-test' });
    sb.env.PATH = `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ''}`;
    sb.env.SKILLOPT_SLEEP_ALLOW_BUNDLED_CLIS = '1';
    repo = makeUserRepo(path.join(sb.root, 'user-repo'), {
      'package.json': JSON.stringify({ name: 'app', private: true, scripts: { lint: 'node lint.js', hang: 'node -e "setInterval(() => {}, 1000)"' } }),
      'lint.js': "const src = require('fs').readFileSync('src/routes.ts', 'utf8');\nif (/\\bvar\\b/.test(src)) { console.error('src/routes.ts: no var'); process.exit(1); }\n",
    });
    // the user's own Claude home, with a transcript and settings already in it
    claudeHome = sb.env.CLAUDE_CONFIG_DIR!;
    fs.mkdirSync(path.join(claudeHome, 'projects', '-home-me-app'), { recursive: true });
    fs.writeFileSync(path.join(claudeHome, 'projects', '-home-me-app', 'old.jsonl'), '{"type":"user"}\n');
    fs.writeFileSync(path.join(claudeHome, '.claude.json'), JSON.stringify({ numStartups: 7, skillUsage: {} }));
    fs.writeFileSync(path.join(sb.env.HOME!, '.claude.json'), JSON.stringify({ numStartups: 3 }));
    db = openDb(resolvePaths({ env: sb.env }).database);
  });
  afterAll(async () => {
    db?.close();
    await server?.close();
    sb?.cleanup();
  });

  const config = (extra: Record<string, unknown> = {}) =>
    ConfigSchema.parse({ roles: { target: { backend: 'claude', model: 'claude-sonnet-4-6' }, optimizer: { backend: 'claude' }, judge: { backend: 'claude' }, miner: { backend: 'claude' } }, ...extra });

  it('the changelog task passes seeded (read + edit of CHANGELOG.md), fails empty; the user repo and Claude home are unchanged', async () => {
    const repoBefore = hashTree(repo.dir);
    const homeBefore = hashTree(claudeHome);
    const homeFiles = countFiles(claudeHome);
    const dotClaude = fs.readFileSync(path.join(sb.env.HOME!, '.claude.json'), 'utf8');
    server.setResponder((req) => changelogAgent(req));
    const rb = createRoleBackends(config(), { db, env: sb.env, runId: 'run_seed' });
    const task = changelogTask(repo.dir);
    const skill = { name: 'changelog', content: SKILL };

    const seeded = await rolloutTask({ task, skill, target: rb.target, judge: rb.judge, seed: { repo: path.join(repo.dir, 'src'), branch: 'main', before: repo.sessionStart } });
    expect(seeded.error).toBeUndefined();
    expect(seeded.workspace).toMatchObject({ seeded: true, commit: repo.firstCommit, skillDelivery: 'native' });
    expect(seeded.workspace?.changedFiles.map((f) => [f.path, f.status])).toEqual([['CHANGELOG.md', 'modified']]);
    expect(seeded.workspace?.diff).toContain('+- Fixed: export crash (PR 418)');
    expect(seeded.hardScore).toBe(1);

    // the next replay of that commit reuses the workspace, reset: nothing of the first run is in it
    const again = await rolloutTask({ task, skill, target: rb.target, judge: rb.judge, seed: { repo: path.join(repo.dir, 'src'), branch: 'main', before: repo.sessionStart } });
    expect(again.workspace).toMatchObject({ seeded: true, commit: repo.firstCommit, reused: true });
    expect(again.workspace?.changedFiles.map((f) => [f.path, f.status])).toEqual([['CHANGELOG.md', 'modified']]);
    expect(again.workspace?.changedFiles[0].content?.match(/PR 418/g)).toHaveLength(1);
    expect(again.hardScore).toBe(1);

    const empty = await rolloutTask({ task, skill, target: rb.target, judge: rb.judge });
    expect(empty.workspace).toMatchObject({ seeded: false, reason: 'no repository is recorded for this task' });
    expect(empty.workspace?.changedFiles.map((f) => [f.path, f.status])).toEqual([['CHANGELOG.md', 'added']]);
    expect(empty.hardScore).toBe(0);
    expect(empty.feedback).toMatch(/the changed CHANGELOG.md must include "## 1.2.0"/);

    // the skill reached the agent only through its skills folder: not in our system prompt
    const first = server.messageRequests()[0];
    expect(JSON.stringify(first.body?.system)).not.toContain('Newest version first');
    expect(first.raw).toContain('Use when adding changelog entries'); // offered by Claude Code's own skill listing
    expect(seeded.workspace?.skillLoaded).toBe(false); // the scripted model never called the Skill tool

    // nothing in the user's repository, Claude home or ~/.claude.json changed
    expect(hashTree(repo.dir)).toEqual(repoBefore);
    expect(hashTree(claudeHome)).toEqual(homeBefore);
    expect(countFiles(claudeHome)).toBe(homeFiles);
    expect(fs.readFileSync(path.join(sb.env.HOME!, '.claude.json'), 'utf8')).toBe(dotClaude);
    // and once the night is over no workspace, tracking dir or private home is left behind
    const wsDir = resolvePaths({ env: sb.env }).workspacesDir;
    expect(fs.readdirSync(wsDir).filter((n) => n.endsWith('.home'))).toEqual([]); // a parked workspace has no agent home
    workspacePool(wsDir).drain();
    expect(fs.readdirSync(wsDir)).toEqual([]);
  }, 120_000); // real CLI runs: seconds each, more under load

  it('in a seeded workspace Read is offered, and a read outside the workspace is denied; the file never reaches the model', async () => {
    const privateFile = path.join(sb.root, 'private-notes.txt');
    fs.writeFileSync(privateFile, 'USER_PRIVATE_CONTENT_5521');
    server.setResponder((req) => {
      const n = toolResults(req).length;
      if (n === 0) return { text: 'Reading notes.', toolUse: { name: 'Read', input: { file_path: privateFile } } };
      if (n === 1) return { text: 'Reading the changelog.', toolUse: { name: 'Read', input: { file_path: path.join(cwdOf(req), 'CHANGELOG.md') } } };
      return { text: 'Done.' };
    });
    const before = server.messageRequests().length;
    const rb = createRoleBackends(config(), { db, env: sb.env, runId: 'run_read_outside' });
    const seeded = await rolloutTask({ task: changelogTask(repo.dir), skill: { name: 'changelog', content: SKILL }, target: rb.target, judge: rb.judge, seed: { repo: repo.dir, branch: 'main', before: repo.sessionStart } });
    expect(seeded.workspace).toMatchObject({ seeded: true });
    const calls = server.messageRequests().slice(before);
    const offered = ((calls[0].body?.tools ?? []) as Array<{ name: string }>).map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(['Read', 'Write', 'Edit']));
    const results = toolResults(calls[calls.length - 1]);
    expect(results[0]).toMatch(/denied/i); // outside the workspace
    expect(results[1]).toContain('## 1.2.0'); // inside it, the seeded file reads
    expect(calls.map((c) => c.raw).join('\n')).not.toContain('USER_PRIVATE_CONTENT_5521');
  }, 120_000);

  it('a lint task is scored by `npm run lint` in the workspace; a hanging command is killed at its limit and fails', async () => {
    const project = repo.dir;
    const lintTask = { ...sampleTask('Fix the lint errors in src/routes.ts.', [], project), id: 'task_lint' };
    server.setResponder((req) => {
      const cwd = cwdOf(req);
      const n = toolResults(req).length;
      if (n === 0) return { text: 'Fixing.', toolUse: { name: 'Write', input: { file_path: path.join(cwd, 'src/routes.ts'), content: 'var routes = [];\nexport { routes };\n' } } };
      return { text: 'Done.' };
    });
    const seed = { repo: project, branch: 'main', before: repo.sessionStart };
    const skill = { name: 'changelog', content: SKILL };
    const lint = createRoleBackends(config({ replay: { outcomeCommands: { [project]: { command: 'npm run lint', timeoutMs: 60_000 } } } }), { db, env: sb.env });
    const bad = await rolloutTask({ task: lintTask, skill, target: lint.target, judge: lint.judge, seed });
    expect(bad.workspace?.outcome).toMatchObject({ command: 'npm run lint', exitCode: 1, timedOut: false });
    expect(bad.workspace?.outcome?.tail).toContain('src/routes.ts: no var');
    expect(bad.checks.find((c) => c.checkId === 'outcome:command')).toMatchObject({ passed: false });
    expect(bad.hardScore).toBe(0);

    server.setResponder((req) => {
      const n = toolResults(req).length;
      if (n === 0) return { text: 'Fixing.', toolUse: { name: 'Write', input: { file_path: path.join(cwdOf(req), 'src/routes.ts'), content: 'export const routes: string[] = [];\n' } } };
      return { text: 'Done.' };
    });
    const good = await rolloutTask({ task: lintTask, skill, target: lint.target, judge: lint.judge, seed });
    expect(good.workspace?.outcome).toMatchObject({ exitCode: 0, timedOut: false });
    expect(good.workspace?.outcome?.network).toMatch(/no network|could NOT be cut/);
    expect(good.hardScore).toBe(1);

    const hang = createRoleBackends(config({ replay: { outcomeCommands: { [project]: { command: 'npm run hang', timeoutMs: 2_000 } } } }), { db, env: sb.env });
    const t0 = Date.now();
    const hung = await rolloutTask({ task: lintTask, skill, target: hang.target, judge: hang.judge, seed });
    expect(hung.workspace?.outcome).toMatchObject({ exitCode: null, timedOut: true });
    expect(hung.hardScore).toBe(0);
    expect(Date.now() - t0).toBeLessThan(30_000);
  }, 120_000);

  it('on an API key the ledger matches the cost claude reports (within 1%) and the night stops at budget.maxUsd', async () => {
    const usage = { input_tokens: 20_000, output_tokens: 2_000 };
    server.setResponder((req) => ({ ...changelogAgent(req), usage }));
    const before = server.messageRequests().length;
    const budget = new BudgetTracker({ maxUsd: 0.5, maxTokens: 10_000_000, maxCalls: 1000 });
    const rb = createRoleBackends(config(), { db, env: sb.env, runId: 'run_cost', budget });
    const tasks = Array.from({ length: 8 }, (_, i) => ({ ...changelogTask(repo.dir), id: `task_cost_${i}` }));
    const err = await rolloutBatch({ tasks, skill: { name: 'changelog', content: SKILL }, target: rb.target, judge: rb.judge, concurrency: 1, runId: 'run_cost' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'BUDGET_EXCEEDED' });

    const rows = listEgress(db, { runId: 'run_cost' });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(tasks.length);
    expect(rows.every((r) => r.model === 'claude-sonnet-4-6')).toBe(true);
    const ledgerUsd = rows.reduce((a, r) => a + r.costUsd, 0);
    // what the served usage costs at the model's list price ($3 / $15 per M): the CLI's own figure
    const served = server.messageRequests().slice(before);
    const expected = served.reduce((a, r) => a + (String(r.body?.model).includes('haiku') ? (usage.input_tokens * 1 + usage.output_tokens * 5) / 1e6 : (usage.input_tokens * 3 + usage.output_tokens * 15) / 1e6), 0);
    expect(Math.abs(ledgerUsd - expected) / expected).toBeLessThan(0.01);
    expect(budget.used().usd).toBeCloseTo(ledgerUsd, 6);
    expect(budget.used().usd).toBeLessThanOrEqual(0.5);
  }, 120_000);
});
