/**
 * The REAL `opencode` binary (opencode-ai from the npm registry, tests/helpers/opencode-bin.ts) as the target backend, against a local
 * scripted OpenAI-compatible server that the user's own OpenCode config points at (a custom
 * provider in ~/.config/opencode/opencode.json): the replay carries that provider into a private
 * home, offers the model only the file tools, refuses a read outside the workspace, lists the skill
 * installed in the workspace and none of the user's personal instructions; the changelog task passes
 * in the seeded workspace; a small night completes with OpenCode as the target. The user's OpenCode
 * data folder (its opencode.db with sessions in it) is byte-identical before and after, and no
 * OpenCode session of a replay is harvested. Runs offline: nothing but the local server is called.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { createRoleBackends } from '../../src/llm/registry.js';
import { listEgress } from '../../src/llm/ledger.js';
import { rolloutTask } from '../../src/replay/index.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { workspacePool } from '../../src/llm/workspace-pool.js';
import { startFakeOpenAi, type CapturedRequest, type FakeOpenAiReply, type FakeServer } from '../helpers/fake-openai.js';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { NODE_BIN, changelogTask, performRequest } from '../helpers/llm-cli.js';
import { hashTree, makeUserRepo } from '../helpers/user-repo.js';
import { buildOpencodeDb } from '../helpers/opencode-db.js';
import { OPENCODE_BIN_DIR, ensureOpencode } from '../helpers/opencode-bin.js';
import { SMALL_NIGHT, runCliAsync, seedFixtureTranscripts } from '../helpers/cli-night.js';

// installed on first use from the npm registry (tests/helpers/opencode-bin.ts says why it is not a devDependency)
const missing = ensureOpencode();
// CI must run it: an install that fails there fails the suite instead of skipping
if (missing && process.env.CI) throw new Error(`opencode-cli-real: ${missing}`);
if (missing) console.warn(`SKIP opencode-cli-real: ${missing}`);

const SKILL = '---\nname: release-notes\ndescription: Use when writing release notes OPENCODE_SKILL_MARK_31\n---\nGroup changes under Added / Fixed.\n';

/** The workspace the run is in, as OpenCode's environment block states it. */
function cwdOf(req: CapturedRequest): string {
  const m = /(\/[^\s"\\<]*\/workspaces\/ws-[A-Za-z0-9]+)/.exec(req.raw);
  if (!m) throw new Error('no workspace path in the request');
  return m[1];
}

function toolResults(req: CapturedRequest): string[] {
  return ((req.body?.messages ?? []) as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content));
}

function offeredTools(req: CapturedRequest): string[] {
  return ((req.body?.tools ?? []) as Array<{ function?: { name: string } }>).map((t) => t.function?.name ?? '').sort();
}

describe.skipIf(!!missing)('opencode CLI backend (real binary, custom provider, fake OpenAI API)', () => {
  let sb: Sandbox;
  let server: FakeServer<FakeOpenAiReply>;
  let db: Db;
  let dataDir: string;
  let userFile: string;
  let dataBefore: Record<string, string>;
  const dirs: string[] = [];

  beforeAll(async () => {
    server = await startFakeOpenAi();
    sb = makeSandbox();
    Object.assign(sb.env, { PATH: `${OPENCODE_BIN_DIR}${path.delimiter}${NODE_BIN}${path.delimiter}${process.env.PATH ?? ''}`, SKILLOPT_SLEEP_ALLOW_BUNDLED_CLIS: '1' });
    // the user's OpenCode: a custom OpenAI-compatible provider, personal instructions, and a database with sessions
    const configDir = path.join(sb.env.XDG_CONFIG_HOME!, 'opencode');
    fs.mkdirSync(configDir, { recursive: true });
    fs.writeFileSync(
      path.join(configDir, 'opencode.json'),
      JSON.stringify({
        model: 'fake/fake-model',
        provider: { fake: { npm: '@ai-sdk/openai-compatible', name: 'Fake', options: { baseURL: `${server.url}/v1`, apiKey: 'dummy' }, models: { 'fake-model': { name: 'Fake' } } } },
        mcp: { personal: { type: 'local', command: ['false'] } },
      }),
    );
    fs.writeFileSync(path.join(configDir, 'AGENTS.md'), 'PERSONAL_OPENCODE_MARK_77\n');
    // ~/.opencode is a global config folder of OpenCode's too: its skills and instructions stay out
    const dotOpencode = path.join(sb.env.HOME!, '.opencode');
    fs.mkdirSync(path.join(dotOpencode, 'skills', 'personal'), { recursive: true });
    fs.writeFileSync(path.join(dotOpencode, 'skills', 'personal', 'SKILL.md'), '---\nname: personal\ndescription: PERSONAL_DOT_OPENCODE_SKILL_78\n---\nbody\n');
    fs.writeFileSync(path.join(sb.root, 'personal-instructions.md'), 'PERSONAL_DOT_OPENCODE_INSTRUCTIONS_79\n');
    fs.writeFileSync(path.join(dotOpencode, 'opencode.json'), JSON.stringify({ instructions: [path.join(sb.root, 'personal-instructions.md')] }));
    dataDir = path.join(sb.env.HOME!, '.local', 'share', 'opencode');
    buildOpencodeDb(dataDir);
    dataBefore = hashTree(dataDir);
    userFile = path.join(sb.root, 'user-project', 'private.txt');
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.writeFileSync(userFile, 'USER_PRIVATE_OPENCODE_404');
    db = openDb(resolvePaths({ env: sb.env }).database);
  });
  afterAll(async () => {
    db?.close();
    await server?.close();
    sb?.cleanup();
  });

  const allOpencode = () => ConfigSchema.parse({ roles: { target: { backend: 'opencode' }, optimizer: { backend: 'opencode' }, judge: { backend: 'opencode' }, miner: { backend: 'opencode' } } });

  it('runs isolated: file tools only, a read outside the workspace refused, the skill listed, nothing personal loaded', async () => {
    server.setResponder((req) => (toolResults(req).length === 0 ? { functionCall: { name: 'read', arguments: { filePath: userFile } } } : { text: 'OPENCODE REAL DONE', usage: { input: 20, output: 7 } }));
    const rb = createRoleBackends(allOpencode(), { db, env: sb.env, onWorkspace: (d) => dirs.push(d) });
    const reply = await rb.target.complete(performRequest('Write release notes for v4.', { name: 'release-notes', content: SKILL }));
    expect(reply.text).toBe('OPENCODE REAL DONE');
    expect(reply.toolsCalled).toEqual(['read']);
    expect(reply.model).toBe('fake/fake-model'); // no model configured for the role: the user's own, carried from their config
    const calls = server.messageRequests();
    expect(calls).toHaveLength(2); // no title-generation call (--title)
    expect(calls[0].body?.model).toBe('fake-model');
    const all = calls.map((c) => c.raw).join('\n');
    expect(all).toContain('OPENCODE_SKILL_MARK_31'); // the skill installed in .opencode/skills is offered
    expect(all).not.toContain('USER_PRIVATE_OPENCODE_404');
    expect(all).not.toContain('PERSONAL_OPENCODE_MARK_77');
    expect(all).not.toContain('PERSONAL_DOT_OPENCODE_SKILL_78');
    expect(all).not.toContain('PERSONAL_DOT_OPENCODE_INSTRUCTIONS_79');
    expect(toolResults(calls[1])[0]).toMatch(/prevents you from using this specific tool call/);
    expect(offeredTools(calls[0])).toEqual(['edit', 'glob', 'grep', 'read', 'skill', 'todowrite', 'write']);
    expect(fs.existsSync(dirs[0])).toBe(false);

    // a text role: no tool offered at all, our system prompt in place of OpenCode's
    server.setResponder(() => ({ text: '{"score": 1}' }));
    const judged = await rb.judge.complete({ role: 'judge', operation: 'judge', prompt: 'Grade this answer.', system: 'You are a strict grader. JUDGE_SYSTEM_MARK', payload: {} } as never);
    expect(judged.text).toBe('{"score": 1}');
    const judgeCall = server.messageRequests().at(-1)!;
    expect(offeredTools(judgeCall)).toEqual([]);
    expect(judgeCall.raw).toContain('JUDGE_SYSTEM_MARK');
    expect(judgeCall.raw).not.toContain('You are opencode');
    expect(hashTree(dataDir)).toEqual(dataBefore);
  }, 180_000);

  it('the changelog task passes in the seeded workspace (read + edit of CHANGELOG.md) and fails in an empty one', async () => {
    const repo = makeUserRepo(path.join(sb.root, 'user-repo'));
    const repoBefore = hashTree(repo.dir);
    server.setResponder((req) => {
      const file = path.join(cwdOf(req), 'CHANGELOG.md');
      const results = toolResults(req);
      if (results.length === 0) return { functionCall: { name: 'read', arguments: { filePath: file } } };
      if (results.length === 1) {
        return results[0].includes('## 1.2.0')
          ? { functionCall: { name: 'edit', arguments: { filePath: file, oldString: '# Changelog\n', newString: '# Changelog\n\n## 1.2.1\n- Fixed: export crash (PR 418)\n' } } }
          : { functionCall: { name: 'write', arguments: { filePath: file, content: '# Changelog\n\n## 1.2.1\n- Fixed: export crash (PR 418)\n' } } };
      }
      return { text: 'Added the 1.2.1 entry.' };
    });
    const rb = createRoleBackends(allOpencode(), { db, env: sb.env });
    const task = changelogTask(repo.dir);
    const skill = { name: 'changelog', content: SKILL };
    const seeded = await rolloutTask({ task, skill, target: rb.target, judge: rb.judge, seed: { repo: repo.dir, branch: 'main', before: repo.sessionStart } });
    expect(seeded.error).toBeUndefined();
    expect(seeded.workspace).toMatchObject({ seeded: true, commit: repo.firstCommit });
    // OpenCode's own files (its isolated home sits beside the workspace) are not the agent's changes
    expect(seeded.workspace?.changedFiles.map((f) => [f.path, f.status])).toEqual([['CHANGELOG.md', 'modified']]);
    expect(seeded.hardScore).toBe(1);
    const empty = await rolloutTask({ task, skill, target: rb.target, judge: rb.judge });
    expect(empty.workspace?.seeded).toBe(false);
    expect(empty.hardScore).toBe(0);
    expect(hashTree(repo.dir)).toEqual(repoBefore);
    expect(hashTree(dataDir)).toEqual(dataBefore);
    workspacePool(resolvePaths({ env: sb.env }).workspacesDir).drain();
  }, 180_000);

  it('a small night completes with OpenCode as the target; the user\'s OpenCode data is byte-identical', async () => {
    const project = path.join(sb.root, 'tidemark');
    seedFixtureTranscripts(sb.env, project);
    // the night's own harvest of OpenCode is off here: what is measured is what the replays leave (a
    // read-only reader of a WAL database makes SQLite create empty -wal/-shm files beside it; the
    // database file itself is never written: tests/integration/harvest-opencode.test.ts)
    for (const [k, v] of Object.entries({ ...SMALL_NIGHT, 'agents.opencode.enabled': 'false', 'roles.target.backend': 'opencode', 'roles.optimizer.backend': 'sim', 'roles.judge.backend': 'sim', 'roles.miner.backend': 'sim' })) {
      const r = runCli(['config', 'set', k, v], sb.env);
      expect(r.status, r.stderr).toBe(0);
    }
    server.setResponder(() => ({ text: 'Here is the result, following the skill. OPENCODE_NIGHT_ANSWER' }));
    const before = server.messageRequests().length;
    const night = await runCliAsync(['night', '--json'], sb.env);
    expect(night.status, night.stderr + night.stdout.slice(0, 2000)).toBe(0);
    const report = JSON.parse(night.stdout) as { id: string; status: string; items: Array<{ status: string; reason?: string }>; used: { calls: number } };
    expect(['done', 'nothing_staged']).toContain(report.status);
    // a skill was trained through the gate (staged, or no candidate beat it: the scripted model answers alike), none failed
    expect(report.items.some((i) => i.status === 'staged' || i.status === 'not_improved'), night.stdout.slice(0, 3000)).toBe(true);
    expect(report.items.filter((i) => i.status === 'failed')).toEqual([]);
    const targetRows = listEgress(db, { runId: report.id }).filter((r) => r.backend === 'opencode');
    expect(targetRows.length, night.stdout.slice(0, 3000)).toBeGreaterThan(0);
    expect(server.messageRequests().length - before).toBeGreaterThanOrEqual(targetRows.length);
    // nothing in the user's OpenCode, and no replay of ours among the harvested OpenCode sessions
    expect(hashTree(dataDir)).toEqual(dataBefore);
    const sessionsBefore = db.prepare("SELECT count(*) AS n FROM sessions WHERE agent = 'opencode'").get() as { n: number };
    const summary = await runHarvest(db, ConfigSchema.parse({}), { env: sb.env, agents: ['opencode'], workers: 0 });
    expect(summary.errors).toEqual([]);
    const replays = db.prepare("SELECT count(*) AS n FROM sessions WHERE agent = 'opencode' AND cwd LIKE ?").get(`%${path.sep}workspaces${path.sep}%`) as { n: number };
    expect(replays.n).toBe(0);
    // the harvest found the user's own sessions, only those
    const sessionsAfter = db.prepare("SELECT count(*) AS n FROM sessions WHERE agent = 'opencode'").get() as { n: number };
    expect(sessionsAfter.n).toBeGreaterThan(sessionsBefore.n);
    expect(hashTree(dataDir)['opencode.db']).toBe(dataBefore['opencode.db']);
    const wsDir = resolvePaths({ env: sb.env }).workspacesDir;
    workspacePool(wsDir).drain();
    expect(fs.existsSync(wsDir) ? fs.readdirSync(wsDir) : []).toEqual([]);
  }, 600_000);
});
