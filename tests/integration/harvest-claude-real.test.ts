/**
 * The real `claude` CLI (npm devDependency) in print mode against a local fake Anthropic server:
 * the transcript it writes under CLAUDE_CONFIG_DIR is harvested as a headless session with its
 * prompt, tool call, tool result and final answer, and nothing in it is unknown or malformed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { defaultConfig } from '../../src/core/config.js';
import { runHarvest } from '../../src/harvest/ingest.js';
import { listSessions } from '../../src/store/repos/sessions.js';
import { listEvents } from '../../src/store/repos/events.js';
import { startFakeAnthropic, type CapturedRequest, type FakeServer } from '../helpers/fake-anthropic.js';
import { NODE_BIN, cliMissing } from '../helpers/llm-cli.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';

const missing = cliMissing('claude');
if (missing) console.warn(`SKIP harvest-claude-real: ${missing}`);

function sawToolResult(req: CapturedRequest): boolean {
  const msgs = (req.body?.messages ?? []) as Array<{ content: unknown }>;
  return msgs.some((m) => Array.isArray(m.content) && (m.content as Array<{ type?: string }>).some((b) => b.type === 'tool_result'));
}

function runClaude(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(path.join(NODE_BIN, 'claude'), args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe.skipIf(!!missing)('harvesting what the real claude CLI writes', () => {
  let sb: Sandbox;
  let server: FakeServer;
  let db: Db;
  let project: string;

  beforeAll(async () => {
    server = await startFakeAnthropic((req) =>
      sawToolResult(req) ? { text: 'The notes say hello. HARVEST_FINAL_OK' } : { text: 'Reading the notes.', toolUse: { name: 'Read', input: { file_path: path.join(project, 'notes.txt') } } },
    );
    sb = makeSandbox({ ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-dummy-test' });
    project = path.join(sb.root, 'proj');
    fs.mkdirSync(path.join(project, '.git'), { recursive: true });
    fs.writeFileSync(path.join(project, 'notes.txt'), 'hello\n');
    db = openDb(path.join(sb.home, 'state', 'sleep.db'));
  });
  afterAll(async () => {
    db?.close();
    await server?.close();
    sb?.cleanup();
  });

  it('runs claude -p and harvests its transcript', async () => {
    const r = await runClaude(['-p', 'summarize notes.txt in one line', '--allowedTools', 'Read'], project, sb.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('HARVEST_FINAL_OK');
    const s = await runHarvest(db, defaultConfig(), { env: sb.env, stateDir: path.join(sb.home, 'state'), agents: ['claude-code'] });
    expect(s.errors).toEqual([]);
    expect(s.skipped.malformed ?? 0).toBe(0);
    expect(s.skipped['unknown-type'] ?? 0).toBe(0);
    const sessions = listSessions(db, { agent: 'claude-code' });
    expect(sessions).toHaveLength(1);
    const session = sessions[0];
    expect(session.kind).toBe('headless');
    expect(session.cwd).toBe(fs.realpathSync(project));
    expect(session.project).toBe(fs.realpathSync(project)); // the git root
    const events = listEvents(db, session.id);
    expect(events.filter((e) => e.kind === 'prompt').map((e) => e.text)).toEqual(['summarize notes.txt in one line']);
    expect(events.filter((e) => e.kind === 'tool_call').map((e) => e.toolName)).toEqual(['Read']);
    expect(events.find((e) => e.kind === 'tool_result')?.text).toContain('hello');
    expect(events.filter((e) => e.meta.final).map((e) => e.text)).toEqual(['The notes say hello. HARVEST_FINAL_OK']);
    // a second pass reads nothing new
    const again = await runHarvest(db, defaultConfig(), { env: sb.env, stateDir: path.join(sb.home, 'state'), agents: ['claude-code'] });
    expect(again.filesChanged).toBe(0);
  });
});
