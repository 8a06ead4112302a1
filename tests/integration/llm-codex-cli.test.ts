/**
 * The REAL `codex` binary (devDependency @openai/codex) in exec mode, driven by our `codex`
 * backend against a local fake OpenAI Responses-API server configured as a model provider in a
 * temporary CODEX_HOME/config.toml (carried into the private home a replay runs with). The fake
 * model tries to write outside the workspace; we assert the workspace-write sandbox refused it, the
 * skill was installed as AGENTS.md (which Codex injects), the user's personal AGENTS.md was not
 * loaded, the user's CODEX_HOME is byte-for-byte unchanged, and the seeded changelog task.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { createRoleBackends } from '../../src/llm/registry.js';
import { listEgress } from '../../src/llm/ledger.js';
import { WORKSPACE_MARKER } from '../../src/llm/workspace.js';
import { rolloutTask } from '../../src/replay/index.js';
import { startFakeOpenAi, type FakeOpenAiReply, type FakeServer } from '../helpers/fake-openai.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { NODE_BIN, changelogTask, cliMissing, performRequest } from '../helpers/llm-cli.js';
import { hashTree, makeUserRepo } from '../helpers/user-repo.js';

const missing = cliMissing('codex');
if (missing) console.warn(`SKIP llm-codex-cli: ${missing}`);

const SKILL = '# Release notes\nAlways group changes under Added / Fixed. AGENTSMARKER_4410\n';

describe.skipIf(!!missing)('codex CLI backend (real binary, fake Responses API)', () => {
  let sb: Sandbox;
  let server: FakeServer<FakeOpenAiReply>;
  let db: Db;
  let userFile: string;
  const seen: Array<{ dir: string; marker: boolean; agentsMd: string | null }> = [];

  beforeAll(async () => {
    server = await startFakeOpenAi();
    sb = makeSandbox({ FAKE_PROVIDER_KEY: 'dummy' });
    sb.env.PATH = `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ''}`;
    sb.env.SKILLOPT_SLEEP_ALLOW_BUNDLED_CLIS = '1'; // the devDependency CLIs are what these tests run
    const codexHome = sb.env.CODEX_HOME!;
    fs.mkdirSync(codexHome, { recursive: true });
    fs.writeFileSync(
      path.join(codexHome, 'config.toml'),
      [
        'model = "gpt-5-mini"',
        'model_provider = "fake"',
        '[model_providers.fake]',
        'name = "fake"',
        `base_url = "${server.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "FAKE_PROVIDER_KEY"',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(codexHome, 'AGENTS.md'), 'PERSONAL_CODEX_AGENTS_MARK: always answer in French\n');
    const project = path.join(sb.root, 'user-project');
    fs.mkdirSync(project, { recursive: true });
    userFile = path.join(project, 'private-notes.txt');
    fs.writeFileSync(userFile, 'USER_PRIVATE_CONTENT_5521');
    db = openDb(resolvePaths({ env: sb.env }).database);
  });
  afterAll(async () => {
    db?.close();
    await server?.close();
    sb?.cleanup();
  });

  it('performs a task in a marked workspace, skill as AGENTS.md, shell under workspace-write: writes outside are refused', async () => {
    server.setResponder((_req, i) =>
      i === 0 ? { functionCall: { name: 'exec_command', arguments: { cmd: `touch ${userFile}.pwned` } } } : { text: 'CODEX RELEASE NOTES', usage: { input: 1200, output: 30 } },
    );
    const homeBefore = hashTree(sb.env.CODEX_HOME!);
    const config = ConfigSchema.parse({ roles: { target: { backend: 'codex' }, optimizer: { backend: 'codex' }, judge: { backend: 'codex' }, miner: { backend: 'codex' } } });
    const rb = createRoleBackends(config, {
      db,
      runId: 'run_codex',
      env: sb.env,
      onWorkspace: (dir) => {
        const f = path.join(dir, 'AGENTS.md');
        seen.push({ dir, marker: fs.existsSync(path.join(dir, WORKSPACE_MARKER)), agentsMd: fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : null });
      },
    });
    const reply = await rb.target.complete(performRequest('Write release notes for v3.', { name: 'release-notes', content: SKILL }));
    expect(reply.text).toBe('CODEX RELEASE NOTES');
    expect(reply.backend).toBe('codex');
    expect(reply.model).toBe('gpt-5-mini'); // from the user's config.toml, not "default"
    expect(reply.tokensIn).toBeGreaterThan(0);
    expect(reply.tokensOut).toBeGreaterThan(0);

    const ws = seen[0];
    expect(ws.dir.startsWith(resolvePaths({ env: sb.env }).workspacesDir)).toBe(true);
    expect(ws.marker).toBe(true);
    expect(ws.agentsMd).toBe(SKILL);
    expect(fs.existsSync(ws.dir)).toBe(false);

    const calls = server.messageRequests();
    expect(calls).toHaveLength(2);
    const all = calls.map((c) => c.raw).join('\n');
    expect(all).toContain('AGENTSMARKER_4410'); // Codex injected our AGENTS.md
    expect(all).not.toContain('PERSONAL_CODEX_AGENTS_MARK'); // not the user's personal $CODEX_HOME/AGENTS.md
    expect(all).toContain('Write release notes for v3.');
    expect(all).toContain(ws.dir);
    const toolNames = ((calls[0].body?.tools ?? []) as Array<{ name?: string }>).map((t) => t.name);
    expect(toolNames).toContain('exec_command');
    expect(fs.existsSync(`${userFile}.pwned`)).toBe(false); // the sandbox refused the write outside the workspace

    // no trace: the user's CODEX_HOME (sessions, state databases, system skills) is exactly as before
    expect(hashTree(sb.env.CODEX_HOME!)).toEqual(homeBefore);

    const rows = listEgress(db, { runId: 'run_cli' }); // the request's runId wins over the backends' default
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ backend: 'codex', destination: path.join(NODE_BIN, 'codex'), ok: true, model: 'gpt-5-mini' });
  });

  it('the changelog task passes in the seeded workspace (the agent edits CHANGELOG.md) and fails in an empty one; the repo is unchanged', async () => {
    const repo = makeUserRepo(path.join(sb.root, 'user-repo'));
    const repoBefore = hashTree(repo.dir);
    const homeBefore = hashTree(sb.env.CODEX_HOME!);
    // a real agent reads the file and edits it in place: here one shell command that needs the file to exist
    const edit = "sed -i 's/^# Changelog$/# Changelog\\n\\n## 1.2.1\\n- Fixed: export crash (PR 418)/' CHANGELOG.md";
    server.setResponder((req) => (/function_call_output/.test(req.raw) ? { text: 'Added the entry.' } : { functionCall: { name: 'exec_command', arguments: { cmd: edit } } }));
    const config = ConfigSchema.parse({ roles: { target: { backend: 'codex' }, optimizer: { backend: 'codex' }, judge: { backend: 'codex' }, miner: { backend: 'codex' } } });
    const rb = createRoleBackends(config, { db, env: sb.env });
    const task = changelogTask(repo.dir);
    const skill = { name: 'changelog', content: '# Changelog entries\nNewest first.\n' };
    const seeded = await rolloutTask({ task, skill, target: rb.target, judge: rb.judge, seed: { repo: repo.dir, branch: 'main', before: repo.sessionStart } });
    expect(seeded.error).toBeUndefined();
    expect(seeded.workspace).toMatchObject({ seeded: true, commit: repo.firstCommit, skillLoaded: true });
    expect(seeded.workspace?.changedFiles.map((f) => f.path)).toEqual(['CHANGELOG.md']);
    expect(seeded.hardScore).toBe(1);
    const empty = await rolloutTask({ task, skill, target: rb.target, judge: rb.judge });
    expect(empty.workspace?.seeded).toBe(false);
    expect(empty.hardScore).toBe(0);
    expect(hashTree(repo.dir)).toEqual(repoBefore);
    expect(hashTree(sb.env.CODEX_HOME!)).toEqual(homeBefore);
  });

  it('reports a provider auth failure as BACKEND_AUTH without retrying', async () => {
    server.setResponder(() => ({ status: 401 }));
    const before = server.messageRequests().length;
    const config = ConfigSchema.parse({ roles: { target: { backend: 'codex' }, optimizer: { backend: 'codex' }, judge: { backend: 'codex' }, miner: { backend: 'codex' } } });
    const rb = createRoleBackends(config, { db, env: sb.env, retry: { baseMs: 5, maxMs: 20 } });
    const err = await rb.optimizer
      .complete({ role: 'optimizer', operation: 'meta_skill', prompt: 'update the meta skill', payload: { previousMeta: '', epoch: 1, accepted: [], rejected: [], valBefore: 0, valAfter: 0 } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'BACKEND_AUTH' });
    const tried = server.messageRequests().length - before;
    expect(tried).toBeGreaterThanOrEqual(1);
    expect(listEgress(db).filter((r) => !r.ok)).toHaveLength(1); // one CLI run, not retried by us
  });
});
