/**
 * The REAL `copilot` binary (devDependency @github/copilot) in prompt mode, in its offline BYOK
 * mode (COPILOT_OFFLINE + COPILOT_PROVIDER_BASE_URL) against the local fake OpenAI server — no
 * GitHub account needed. The fake model asks to view a user file; we assert the denial, that only
 * our tool list was offered, that the skill in .github/skills was loaded, that the user's COPILOT_HOME
 * is unchanged, and the seeded changelog task.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { createRoleBackends } from '../../src/llm/registry.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { rolloutTask } from '../../src/replay/index.js';
import { hashTree, makeUserRepo } from '../helpers/user-repo.js';
import { startFakeOpenAi, type FakeOpenAiReply, type FakeServer } from '../helpers/fake-openai.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { NODE_BIN, changelogTask, cliMissing, performRequest } from '../helpers/llm-cli.js';

const missing = cliMissing('copilot');
if (missing) console.warn(`SKIP llm-copilot-real: ${missing}`);

const SKILL = '---\nname: release-notes\ndescription: Use when writing release notes COPILOT_SKILL_MARK_118\n---\nGroup changes under Added / Fixed.\n';

describe.skipIf(!!missing)('copilot CLI backend (real binary, BYOK offline, fake OpenAI API)', () => {
  let sb: Sandbox;
  let server: FakeServer<FakeOpenAiReply>;
  let db: Db;
  let userFile: string;
  const dirs: string[] = [];
  let homeBefore: Record<string, string>;

  beforeAll(async () => {
    server = await startFakeOpenAi();
    sb = makeSandbox();
    Object.assign(sb.env, {
      PATH: `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ''}`,
      SKILLOPT_SLEEP_ALLOW_BUNDLED_CLIS: '1', // the devDependency CLIs are what these tests run
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `${server.url}/v1`,
      COPILOT_PROVIDER_API_KEY: 'dummy',
      COPILOT_MODEL: 'gpt-5-mini',
    });
    userFile = path.join(sb.root, 'user-project', 'private.txt');
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.writeFileSync(userFile, 'USER_PRIVATE_COPILOT_404');
    // the user's own Copilot home, with personal instructions the replay must not load
    fs.mkdirSync(sb.env.COPILOT_HOME!, { recursive: true });
    fs.writeFileSync(path.join(sb.env.COPILOT_HOME!, 'copilot-instructions.md'), 'PERSONAL_COPILOT_MARK_77\n');
    homeBefore = hashTree(sb.env.COPILOT_HOME!);
    db = openDb(resolvePaths({ env: sb.env }).database);
  });
  afterAll(async () => {
    db?.close();
    await server?.close();
    sb?.cleanup();
  });

  it('runs isolated: skill loaded, only file tools offered, reading outside the workspace denied', async () => {
    server.setResponder((_req, i) =>
      i === 0
        ? {
            raw: JSON.stringify({
              id: 'chatcmpl-1',
              object: 'chat.completion',
              created: 1,
              model: 'gpt-5-mini',
              choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'view', arguments: JSON.stringify({ path: userFile }) } }] } }],
              usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
            }),
          }
        : { text: 'COPILOT REAL DONE', usage: { input: 20, output: 7 } },
    );
    const config = ConfigSchema.parse({ roles: { target: { backend: 'copilot' }, optimizer: { backend: 'copilot' }, judge: { backend: 'copilot' }, miner: { backend: 'copilot' } } });
    const rb = createRoleBackends(config, { db, env: sb.env, onWorkspace: (d) => dirs.push(d) });
    const reply = await rb.target.complete(performRequest('Write release notes for v4.', { name: 'release-notes', content: SKILL }));
    expect(reply.text).toBe('COPILOT REAL DONE');
    expect(reply.toolsCalled).toEqual(['view']);
    // token counts are the served ones, read from Copilot's own session log (its stdout has none)
    expect({ tokensIn: reply.tokensIn, tokensOut: reply.tokensOut }).toEqual({ tokensIn: 10 + 20, tokensOut: 5 + 7 });
    expect(reply.model).toBe('gpt-5-mini');

    const calls = server.messageRequests();
    expect(calls).toHaveLength(2);
    const all = calls.map((c) => c.raw).join('\n');
    expect(all).toContain('COPILOT_SKILL_MARK_118');
    expect(all).not.toContain('USER_PRIVATE_COPILOT_404');
    expect(all).not.toContain('PERSONAL_COPILOT_MARK_77');
    expect(all).toMatch(/Permission denied/);
    const tools = ((calls[0].body?.tools ?? []) as Array<{ function?: { name: string } }>).map((t) => t.function?.name).sort();
    expect(tools).toEqual(['create', 'edit', 'glob', 'grep', 'skill', 'view']);
    expect(fs.existsSync(dirs[0])).toBe(false);
  });

  it('leaves no session in the user\'s COPILOT_HOME', async () => {
    const summary = await runHarvest(db, ConfigSchema.parse({}), { env: sb.env, agents: ['copilot'], workers: 0 });
    expect(summary.errors).toEqual([]);
    const rows = db.prepare("SELECT kind FROM sessions WHERE agent = 'copilot' AND cwd = ?").all(dirs[0]);
    expect(rows).toHaveLength(0);
    expect(hashTree(sb.env.COPILOT_HOME!)).toEqual(homeBefore);
  });

  it('the changelog task passes in the seeded workspace (view + edit of CHANGELOG.md) and fails in an empty one', async () => {
    const repo = makeUserRepo(path.join(sb.root, 'user-repo'));
    const repoBefore = hashTree(repo.dir);
    const cwdOf = (raw: string): string => /(\/[^\s"\\]*\/workspaces\/ws-[A-Za-z0-9]+)/.exec(raw)![1];
    const call = (name: string, args: Record<string, unknown>) => ({
      raw: JSON.stringify({
        id: 'chatcmpl-x',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-5-mini',
        choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ id: `call_${name}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }] } }],
        usage: { prompt_tokens: 5000, completion_tokens: 50, total_tokens: 5050 },
      }),
    });
    server.setResponder((req) => {
      const file = path.join(cwdOf(req.raw), 'CHANGELOG.md');
      const results = ((req.body?.messages ?? []) as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content));
      if (results.length === 0) return call('view', { path: file });
      if (results.length === 1) {
        return results[0].includes('## 1.2.0')
          ? call('edit', { path: file, old_str: '# Changelog\n', new_str: '# Changelog\n\n## 1.2.1\n- Fixed: export crash (PR 418)\n' })
          : call('create', { path: file, file_text: '# Changelog\n\n## 1.2.1\n- Fixed: export crash (PR 418)\n' });
      }
      return { text: 'Added the 1.2.1 entry.' };
    });
    const config = ConfigSchema.parse({ roles: { target: { backend: 'copilot' }, optimizer: { backend: 'copilot' }, judge: { backend: 'copilot' }, miner: { backend: 'copilot' } } });
    const rb = createRoleBackends(config, { db, env: sb.env });
    const task = changelogTask(repo.dir);
    const skill = { name: 'changelog', content: SKILL };
    const seeded = await rolloutTask({ task, skill, target: rb.target, judge: rb.judge, seed: { repo: repo.dir, branch: 'main', before: repo.sessionStart } });
    expect(seeded.error).toBeUndefined();
    expect(seeded.workspace).toMatchObject({ seeded: true, commit: repo.firstCommit });
    expect(seeded.workspace?.changedFiles.map((f) => [f.path, f.status])).toEqual([['CHANGELOG.md', 'modified']]);
    expect(seeded.hardScore).toBe(1);
    const empty = await rolloutTask({ task, skill, target: rb.target, judge: rb.judge });
    expect(empty.workspace?.seeded).toBe(false);
    expect(empty.hardScore).toBe(0);
    expect(hashTree(repo.dir)).toEqual(repoBefore);
    expect(hashTree(sb.env.COPILOT_HOME!)).toEqual(homeBefore);
  });
});
