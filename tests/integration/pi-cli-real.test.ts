/**
 * The REAL `pi` binary (devDependency @mariozechner/pi-coding-agent) as the target backend, against a
 * local scripted OpenAI-compatible server that the user's own Pi points at (a custom provider in
 * ~/.pi/agent/models.json, the default model in settings.json): the replay carries the provider into
 * a private agent folder, offers the model only the file tools, blocks a read outside the workspace
 * (our confining extension), lists the skill installed in the workspace and none of the user's
 * personal instructions; the changelog task passes in the seeded workspace; a small night completes
 * with Pi as the target. The user's Pi folder (sessions and all) is byte-identical before and after.
 * Runs offline (PI_OFFLINE): nothing but the local server is called.
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
import { workspacePool } from '../../src/llm/workspace-pool.js';
import { startFakeOpenAi, type CapturedRequest, type FakeOpenAiReply, type FakeServer } from '../helpers/fake-openai.js';
import { makeSandbox, runCli, type Sandbox } from '../helpers/sandbox.js';
import { NODE_BIN, changelogTask, countFiles, performRequest } from '../helpers/llm-cli.js';
import { hashTree, makeUserRepo } from '../helpers/user-repo.js';
import { FIXTURES_DIR } from '../helpers/fixtures.js';
import { SMALL_NIGHT, runCliAsync, seedFixtureTranscripts } from '../helpers/cli-night.js';

const PI_BIN = path.join(NODE_BIN, 'pi');
const missing = fs.existsSync(PI_BIN) ? null : `${PI_BIN} not installed (npm ci installs @mariozechner/pi-coding-agent)`;
if (missing) console.warn(`SKIP pi-cli-real: ${missing}`);

const SKILL = '---\nname: release-notes\ndescription: Use when writing release notes PI_SKILL_MARK_52\n---\nGroup changes under Added / Fixed.\n';

/** The workspace the run is in, as Pi's system prompt states it. */
function cwdOf(req: CapturedRequest): string {
  const m = /(\/[^\s"\\<]*\/workspaces\/ws-[A-Za-z0-9]+)/.exec(req.raw);
  if (!m) throw new Error('no workspace path in the request');
  return m[1];
}

function toolResults(req: CapturedRequest): string[] {
  return ((req.body?.messages ?? []) as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'tool' || m.role === 'toolResult').map((m) => JSON.stringify(m.content));
}

function offeredTools(req: CapturedRequest): string[] {
  return ((req.body?.tools ?? []) as Array<{ function?: { name: string } }>).map((t) => t.function?.name ?? '').sort();
}

describe.skipIf(!!missing)('pi CLI backend (real binary, custom provider, fake OpenAI API)', () => {
  let sb: Sandbox;
  let server: FakeServer<FakeOpenAiReply>;
  let db: Db;
  let agentDir: string;
  let userFile: string;
  let agentBefore: Record<string, string>;
  let sessionFiles: number;
  const dirs: string[] = [];

  beforeAll(async () => {
    server = await startFakeOpenAi();
    sb = makeSandbox();
    Object.assign(sb.env, { PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ''}`, SKILLOPT_SLEEP_ALLOW_BUNDLED_CLIS: '1' });
    // the user's Pi: a custom OpenAI-compatible provider, a default model, personal instructions, sessions
    agentDir = path.join(sb.env.HOME!, '.pi', 'agent');
    fs.mkdirSync(path.join(agentDir, 'sessions', '--home-me-app--'), { recursive: true });
    fs.writeFileSync(path.join(agentDir, 'models.json'), JSON.stringify({ providers: { fake: { baseUrl: `${server.url}/v1`, api: 'openai-completions', apiKey: 'dummy', models: [{ id: 'fake-model' }] } } }));
    fs.writeFileSync(path.join(agentDir, 'settings.json'), JSON.stringify({ defaultProvider: 'fake', defaultModel: 'fake-model', extensions: ['./missing-extension.ts'] }));
    fs.writeFileSync(path.join(agentDir, 'auth.json'), '{}\n');
    fs.writeFileSync(path.join(agentDir, 'AGENTS.md'), 'PERSONAL_PI_MARK_77\n');
    // the user's cross-agent personal skills, which Pi reads from ~/.agents/skills: not in a replay
    fs.mkdirSync(path.join(sb.env.HOME!, '.agents', 'skills', 'personal'), { recursive: true });
    fs.writeFileSync(path.join(sb.env.HOME!, '.agents', 'skills', 'personal', 'SKILL.md'), '---\nname: personal\ndescription: PERSONAL_AGENTS_SKILL_78\n---\nbody\n');
    fs.copyFileSync(path.join(FIXTURES_DIR, 'pi', 'session-v3-tree.jsonl'), path.join(agentDir, 'sessions', '--home-me-app--', 'session-v3-tree.jsonl'));
    agentBefore = hashTree(agentDir);
    sessionFiles = countFiles(path.join(agentDir, 'sessions'));
    userFile = path.join(sb.root, 'user-project', 'private.txt');
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.writeFileSync(userFile, 'USER_PRIVATE_PI_404');
    db = openDb(resolvePaths({ env: sb.env }).database);
  });
  afterAll(async () => {
    db?.close();
    await server?.close();
    sb?.cleanup();
  });

  const allPi = () => ConfigSchema.parse({ roles: { target: { backend: 'pi' }, optimizer: { backend: 'pi' }, judge: { backend: 'pi' }, miner: { backend: 'pi' } } });

  it('runs isolated: file tools only, a read outside the workspace blocked, the skill listed, nothing personal loaded', async () => {
    server.setResponder((req) => (toolResults(req).length === 0 ? { functionCall: { name: 'read', arguments: { path: userFile } } } : { text: 'PI REAL DONE', usage: { input: 20, output: 7 } }));
    const rb = createRoleBackends(allPi(), { db, env: sb.env, onWorkspace: (d) => dirs.push(d) });
    const reply = await rb.target.complete(performRequest('Write release notes for v4.', { name: 'release-notes', content: SKILL }));
    expect(reply.text).toBe('PI REAL DONE');
    expect(reply.toolsCalled).toEqual(['read']);
    expect(reply.model).toBe('fake-model');
    const calls = server.messageRequests();
    // the served usage of both calls, summed from Pi's message_end events (the fake server counts raw/4 when unscripted)
    expect({ tokensIn: reply.tokensIn, tokensOut: reply.tokensOut }).toEqual({ tokensIn: Math.ceil(calls[0].raw.length / 4) + 20, tokensOut: 1 + 7 });
    expect(calls).toHaveLength(2);
    expect(calls[0].body?.model).toBe('fake-model');
    const all = calls.map((c) => c.raw).join('\n');
    expect(all).toContain('PI_SKILL_MARK_52'); // the skill installed in .pi/skills is offered
    expect(all).not.toContain('USER_PRIVATE_PI_404');
    expect(all).not.toContain('PERSONAL_PI_MARK_77');
    expect(all).not.toContain('PERSONAL_AGENTS_SKILL_78');
    expect(toolResults(calls[1]).join('\n')).toMatch(/outside the workspace/);
    expect(offeredTools(calls[0])).toEqual(['edit', 'find', 'grep', 'ls', 'read', 'write']);
    expect(fs.existsSync(dirs[0])).toBe(false);

    // a text role: no tool offered, our system prompt (from a file) in place of Pi's coding prompt
    server.setResponder(() => ({ text: '{"score": 1}' }));
    const judged = await rb.judge.complete({ role: 'judge', operation: 'judge', prompt: 'Grade this answer.', system: 'You are a strict grader. JUDGE_SYSTEM_MARK', payload: {} } as never);
    expect(judged.text).toBe('{"score": 1}');
    const judgeCall = server.messageRequests().at(-1)!;
    expect(offeredTools(judgeCall)).toEqual([]);
    expect(judgeCall.raw).toContain('JUDGE_SYSTEM_MARK');
    expect(hashTree(agentDir)).toEqual(agentBefore);
  }, 180_000);

  it('the changelog task passes in the seeded workspace (read + edit of CHANGELOG.md) and fails in an empty one', async () => {
    const repo = makeUserRepo(path.join(sb.root, 'user-repo'));
    const repoBefore = hashTree(repo.dir);
    server.setResponder((req) => {
      const file = path.join(cwdOf(req), 'CHANGELOG.md');
      const results = toolResults(req);
      if (results.length === 0) return { functionCall: { name: 'read', arguments: { path: file } } };
      if (results.length === 1) {
        return results[0].includes('## 1.2.0')
          ? { functionCall: { name: 'edit', arguments: { path: file, edits: [{ oldText: '# Changelog\n', newText: '# Changelog\n\n## 1.2.1\n- Fixed: export crash (PR 418)\n' }] } } }
          : { functionCall: { name: 'write', arguments: { path: file, content: '# Changelog\n\n## 1.2.1\n- Fixed: export crash (PR 418)\n' } } };
      }
      return { text: 'Added the 1.2.1 entry.' };
    });
    const rb = createRoleBackends(allPi(), { db, env: sb.env });
    const task = changelogTask(repo.dir);
    const skill = { name: 'changelog', content: SKILL };
    const seeded = await rolloutTask({ task, skill, target: rb.target, judge: rb.judge, seed: { repo: repo.dir, branch: 'main', before: repo.sessionStart } });
    expect(seeded.error).toBeUndefined();
    expect(seeded.workspace).toMatchObject({ seeded: true, commit: repo.firstCommit });
    // our extension's folder (.skillopt-pi) is not the agent's change
    expect(seeded.workspace?.changedFiles.map((f) => [f.path, f.status])).toEqual([['CHANGELOG.md', 'modified']]);
    expect(seeded.hardScore).toBe(1);
    const empty = await rolloutTask({ task, skill, target: rb.target, judge: rb.judge });
    expect(empty.workspace?.seeded).toBe(false);
    expect(empty.hardScore).toBe(0);
    expect(hashTree(repo.dir)).toEqual(repoBefore);
    expect(hashTree(agentDir)).toEqual(agentBefore);
    workspacePool(resolvePaths({ env: sb.env }).workspacesDir).drain();
  }, 180_000);

  it('a small night completes with Pi as the target; the user\'s Pi folder is byte-identical', async () => {
    const project = path.join(sb.root, 'tidemark');
    seedFixtureTranscripts(sb.env, project);
    for (const [k, v] of Object.entries({ ...SMALL_NIGHT, 'roles.target.backend': 'pi', 'roles.optimizer.backend': 'sim', 'roles.judge.backend': 'sim', 'roles.miner.backend': 'sim' })) {
      const r = runCli(['config', 'set', k, v], sb.env);
      expect(r.status, r.stderr).toBe(0);
    }
    server.setResponder(() => ({ text: 'Here is the result, following the skill. PI_NIGHT_ANSWER' }));
    const before = server.messageRequests().length;
    const night = await runCliAsync(['night', '--json'], sb.env);
    expect(night.status, night.stderr + night.stdout.slice(0, 2000)).toBe(0);
    const report = JSON.parse(night.stdout) as { id: string; status: string; items: Array<{ status: string; reason?: string }> };
    expect(['done', 'nothing_staged']).toContain(report.status);
    // a skill was trained through the gate (staged, or no candidate beat it: the scripted model answers alike), none failed
    expect(report.items.some((i) => i.status === 'staged' || i.status === 'not_improved'), night.stdout.slice(0, 3000)).toBe(true);
    expect(report.items.filter((i) => i.status === 'failed')).toEqual([]);
    const targetRows = listEgress(db, { runId: report.id }).filter((r) => r.backend === 'pi');
    expect(targetRows.length, night.stdout.slice(0, 3000)).toBeGreaterThan(0);
    expect(server.messageRequests().length - before).toBeGreaterThanOrEqual(targetRows.length);
    // the night also harvested the user's Pi sessions (read only): the folder is as it was
    expect(hashTree(agentDir)).toEqual(agentBefore);
    expect(countFiles(path.join(agentDir, 'sessions'))).toBe(sessionFiles);
    const wsDir = resolvePaths({ env: sb.env }).workspacesDir;
    workspacePool(wsDir).drain();
    expect(fs.existsSync(wsDir) ? fs.readdirSync(wsDir) : []).toEqual([]);
  }, 600_000);
});
