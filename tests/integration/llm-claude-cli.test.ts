/**
 * The REAL `claude` binary (devDependency @anthropic-ai/claude-code) in print mode, driven by our
 * `claude` backend against a local fake Anthropic server (ANTHROPIC_BASE_URL). The fake model tries
 * to read a user file and write outside the workspace; we assert the isolation held, the skill was
 * installed where Claude Code loads it, and that the run left no transcript in the user's Claude home.
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
import { runHarvest } from '../../src/harvest/ingest.js';
import { startFakeAnthropic, type CapturedRequest, type FakeServer } from '../helpers/fake-anthropic.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { NODE_BIN, cliMissing, performRequest } from '../helpers/llm-cli.js';

const missing = cliMissing('claude');
if (missing) console.warn(`SKIP llm-claude-cli: ${missing}`);

const SKILL = '---\nname: release-notes\ndescription: Use when writing release notes; mentions SKILLMARKER_7731\n---\n# Release notes\nAlways group changes under Added / Fixed.\n';
const PROMPT_SECRET = 'ghp_' + 'Z'.repeat(36);

function toolResults(req: CapturedRequest): string[] {
  const msgs = (req.body?.messages ?? []) as Array<{ content: unknown }>;
  const out: string[] = [];
  for (const m of msgs) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as Array<Record<string, unknown>>) if (b.type === 'tool_result') out.push(JSON.stringify(b.content));
  }
  return out;
}

describe.skipIf(!!missing)('claude CLI backend (real binary, fake Anthropic API)', () => {
  let sb: Sandbox;
  let server: FakeServer;
  let db: Db;
  let userFile: string;
  let outsideTarget: string;
  const seenWorkspaces: Array<{ dir: string; marker: boolean; skillAt: string[] }> = [];

  beforeAll(async () => {
    server = await startFakeAnthropic();
    sb = makeSandbox({ ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-dummy-test' });
    sb.env.PATH = `${NODE_BIN}${path.delimiter}${process.env.PATH ?? ''}`;
    sb.env.SKILLOPT_SLEEP_ALLOW_BUNDLED_CLIS = '1'; // the devDependency CLIs are what these tests run
    // the user's own project and Claude settings, which the replay must not reach or obey
    const project = path.join(sb.root, 'user-project');
    fs.mkdirSync(project, { recursive: true });
    userFile = path.join(project, 'private-notes.txt');
    fs.writeFileSync(userFile, 'USER_PRIVATE_CONTENT_991');
    outsideTarget = path.join(project, 'written-by-agent.txt');
    const cfgDir = sb.env.CLAUDE_CONFIG_DIR!;
    fs.mkdirSync(path.join(cfgDir, 'skills', 'user-skill'), { recursive: true });
    fs.writeFileSync(path.join(cfgDir, 'skills', 'user-skill', 'SKILL.md'), '---\nname: user-skill\ndescription: USER_LEVEL_SKILL_MARKER\n---\nx\n');
    fs.writeFileSync(path.join(cfgDir, 'settings.json'), JSON.stringify({ permissions: { allow: ['Read(//**)', 'Write(//**)', 'Edit(//**)'] } }));
    db = openDb(resolvePaths({ env: sb.env }).database);
  });
  afterAll(async () => {
    db?.close();
    await server?.close();
    sb?.cleanup();
  });

  it('performs a task in a marked temp workspace with the skill installed, and nothing outside is reachable', async () => {
    server.setResponder((req) => {
      const done = toolResults(req).length;
      if (done === 0) return { text: 'Let me look at the notes.', toolUse: { name: 'Read', input: { file_path: userFile } } };
      if (done === 1) return { text: 'Saving.', toolUse: { name: 'Write', input: { file_path: outsideTarget, content: 'pwned' } } };
      if (done === 2) return { text: 'Writing locally.', toolUse: { name: 'Write', input: { file_path: 'NOTES.md', content: '# Added\n- x\n' } } };
      return { text: 'RELEASE NOTES DONE' };
    });
    const config = ConfigSchema.parse({ roles: { target: { backend: 'claude' }, optimizer: { backend: 'claude' }, judge: { backend: 'claude' }, miner: { backend: 'claude' } } });
    const rb = createRoleBackends(config, {
      db,
      runId: 'run_cli',
      env: sb.env,
      onWorkspace: (dir) => {
        const skillAt = fs.existsSync(path.join(dir, '.claude/skills/release-notes/SKILL.md')) ? ['.claude/skills/release-notes/SKILL.md'] : [];
        seenWorkspaces.push({ dir, marker: fs.existsSync(path.join(dir, WORKSPACE_MARKER)), skillAt });
      },
    });
    expect(rb.target.destination).toBe(path.join(NODE_BIN, 'claude'));
    const reply = await rb.target.complete(performRequest(`Write release notes for v2. token=${PROMPT_SECRET}`, { name: 'release-notes', content: SKILL }));

    expect(reply.text).toBe('RELEASE NOTES DONE');
    expect(reply.backend).toBe('claude');
    expect(reply.toolsCalled).toEqual(['Read', 'Write', 'Write']);
    expect(reply.tokensIn).toBeGreaterThan(0);

    // workspace: under the state dir, marked, skill where Claude Code loads project skills, removed after
    const ws = seenWorkspaces[0];
    expect(ws.dir.startsWith(resolvePaths({ env: sb.env }).workspacesDir)).toBe(true);
    expect(ws.marker).toBe(true);
    expect(ws.skillAt).toEqual(['.claude/skills/release-notes/SKILL.md']);
    expect(fs.existsSync(ws.dir)).toBe(false);

    const calls = server.messageRequests();
    expect(calls.length).toBeGreaterThanOrEqual(4);
    const everything = calls.map((c) => c.raw).join('\n');
    expect(everything).toContain('SKILLMARKER_7731'); // the agent was offered our skill
    expect(everything).not.toContain('USER_LEVEL_SKILL_MARKER'); // not the user's own skills
    expect(everything).not.toContain('USER_PRIVATE_CONTENT_991'); // the user's file never reached the model
    expect(everything).not.toContain(PROMPT_SECRET); // redacted before it left
    expect(everything).toContain(ws.dir); // cwd = the workspace
    const results = toolResults(calls[calls.length - 1]);
    // an unseeded workspace holds only the skill: Read is not offered at all (EMPTY_WORKSPACE_TOOLS), let alone outside it
    expect(results[0]).toMatch(/no such tool available: Read/i);
    expect(results[1]).toMatch(/denied/i);
    expect(results[2]).not.toMatch(/denied/i); // writing inside the workspace is allowed
    expect(fs.existsSync(outsideTarget)).toBe(false);
    expect(fs.readFileSync(userFile, 'utf8')).toBe('USER_PRIVATE_CONTENT_991');
    // the tools offered in this unseeded workspace: Write and Skill only; no Bash, no web, no Read
    const offered = ((calls[0].body?.tools ?? []) as Array<{ name: string }>).map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(['Write', 'Skill']));
    expect(offered).not.toContain('Read');
    expect(offered.some((n) => /^(Bash|WebFetch|WebSearch)$/.test(n))).toBe(false);

    const rows = listEgress(db, { runId: 'run_cli' });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ backend: 'claude', role: 'target', destination: path.join(NODE_BIN, 'claude'), ok: true, redactions: 2 }); // one secret, redacted where the prompt and the payload's intent each carry it
  });

  it('leaves no transcript: nothing to harvest, nothing in the user\'s Claude projects folder', async () => {
    const config = ConfigSchema.parse({});
    const summary = await runHarvest(db, config, { env: sb.env, agents: ['claude-code'], workers: 0 });
    expect(summary.errors).toEqual([]);
    const sessions = db.prepare("SELECT id FROM sessions WHERE agent = 'claude-code' AND cwd = ?").all(seenWorkspaces[0].dir);
    expect(sessions).toHaveLength(0);
    expect(fs.existsSync(path.join(sb.env.CLAUDE_CONFIG_DIR!, 'projects'))).toBe(false);
  });

  it('non-agent roles run with no tools and our own system prompt', async () => {
    server.setResponder(() => ({ text: '{"score": 1, "feedback": "good"}' }));
    const before = server.messageRequests().length;
    const config = ConfigSchema.parse({ roles: { target: { backend: 'claude' }, optimizer: { backend: 'claude' }, judge: { backend: 'claude' }, miner: { backend: 'claude' } } });
    const rb = createRoleBackends(config, { db, env: sb.env });
    const reply = await rb.judge.complete({
      role: 'judge',
      operation: 'judge_rubric',
      system: 'You are a strict grader JUDGE_SYS_MARK.',
      prompt: 'Grade this.',
      payload: { rubric: 'r', intent: 'i', response: 'x' },
    });
    expect(reply.text).toBe('{"score": 1, "feedback": "good"}');
    const call = server.messageRequests()[before];
    expect(((call.body?.tools ?? []) as unknown[]).length).toBe(0);
    expect(JSON.stringify(call.body?.system)).toContain('JUDGE_SYS_MARK');
  });
});
