/**
 * The `copilot` backend against a fake `copilot` executable on PATH that records its argv, cwd,
 * stdin and the workspace it saw, and prints JSONL in the format the real CLI (1.0.102) prints.
 * The real binary is exercised in llm-copilot-real.test.ts (BYOK offline mode); this file pins the
 * exact argv, the shell-free prompt passing, instruction-file placement and failure handling.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { resolvePaths } from '../../src/core/paths.js';
import { openDb, type Db } from '../../src/store/db.js';
import { createRoleBackends } from '../../src/llm/registry.js';
import { listEgress } from '../../src/llm/ledger.js';
import { detectBackends } from '../../src/llm/detect.js';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.js';
import { performRequest } from '../helpers/llm-cli.js';

const FAKE_COPILOT = `#!${process.execPath}
const fs = require('node:fs');
const path = require('node:path');
let stdin = '';
try { stdin = fs.readFileSync(0, 'utf8'); } catch {}
const list = (d) => fs.existsSync(d) ? fs.readdirSync(d, { recursive: true }).map(String).sort() : [];
fs.appendFileSync(process.env.FAKE_COPILOT_RECORD, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), stdin, files: list(process.cwd()), env: { COPILOT_AUTO_UPDATE: process.env.COPILOT_AUTO_UPDATE } }) + '\\n');
const mode = process.env.FAKE_COPILOT_MODE || 'ok';
if (mode === 'auth') { process.stderr.write('Error: No authentication information found. Please run copilot login\\n'); process.exit(1); }
const ev = (type, data, extra) => process.stdout.write(JSON.stringify({ type, data, id: 'x', timestamp: new Date().toISOString(), ...extra }) + '\\n');
ev('session.skills_loaded', { skills: [] }, { ephemeral: true });
ev('user.message', { content: 'prompt' });
ev('tool.execution_start', { toolCallId: 'c1', toolName: 'view', arguments: { path: 'NOTES.md' } });
ev('tool.execution_complete', { toolCallId: 'c1', success: true });
ev('assistant.message', { model: 'gpt-5-mini', content: 'COPILOT ANSWER', toolRequests: [] });
process.stdout.write(JSON.stringify({ type: 'result', sessionId: 'sess-1', exitCode: 0, usage: { premiumRequests: 1 } }) + '\\n');
`;

describe('copilot CLI backend (fake executable recording argv)', () => {
  let sb: Sandbox;
  let db: Db;
  let record: string;
  const config = ConfigSchema.parse({ roles: { target: { backend: 'copilot' }, optimizer: { backend: 'copilot' }, judge: { backend: 'copilot' }, miner: { backend: 'copilot' } } });
  const calls = () => fs.readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { argv: string[]; cwd: string; stdin: string; files: string[]; env: Record<string, string> });

  beforeAll(() => {
    sb = makeSandbox();
    const bin = path.join(sb.root, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'copilot'), FAKE_COPILOT, { mode: 0o755 });
    record = path.join(sb.root, 'record.jsonl');
    sb.env.PATH = bin; // only our fake: claude/codex are not found, so auto-detection lands on copilot
    sb.env.FAKE_COPILOT_RECORD = record;
    db = openDb(resolvePaths({ env: sb.env }).database);
  });
  afterAll(() => {
    db?.close();
    sb?.cleanup();
  });

  it('auto-detection finds copilot on PATH and says why', () => {
    const d = detectBackends(ConfigSchema.parse({}), { PATH: sb.env.PATH });
    expect(d.chosen?.name).toBe('copilot');
    expect(d.roles.optimizer.reason).toContain('auto-detected');
    expect(d.available.find((a) => a.name === 'claude')?.available).toBe(false);
  });

  it('runs prompt mode in a marked workspace with the skill in .github/skills and tools restricted', async () => {
    const rb = createRoleBackends(config, { db, env: sb.env });
    const prompt = 'Write release notes; quote: "$(rm -rf ~)" `backticks` ; && | > *';
    const skill = { name: 'Release Notes', content: '---\nname: release-notes\ndescription: release notes\n---\nGroup under Added/Fixed.\n' };
    const reply = await rb.target.complete(performRequest(prompt, skill));
    expect(reply.text).toBe('COPILOT ANSWER');
    expect(reply.toolsCalled).toEqual(['view']);
    expect(reply.tokensIn).toBeGreaterThan(0); // estimated: copilot reports no tokens

    const [call] = calls();
    // the prompt reached the CLI byte-for-byte as one argv element (no shell in between)
    expect(call.argv[0]).toBe('-p');
    expect(call.argv[1]).toBe(prompt);
    expect(call.argv).toEqual(expect.arrayContaining(['--output-format', 'json', '--allow-all-tools', '--no-ask-user', '--no-auto-update', '--disallow-temp-dir']));
    expect(call.argv).toContain('--available-tools=view,create,edit,grep,glob,skill');
    expect(call.argv).not.toContain('--allow-all-paths');
    expect(call.argv).not.toContain('--add-dir');
    expect(call.env.COPILOT_AUTO_UPDATE).toBe('false');
    expect(call.cwd.startsWith(resolvePaths({ env: sb.env }).workspacesDir)).toBe(true);
    expect(call.files).toContain('.skillopt-sleep-workspace');
    expect(call.files).toContain(path.join('.github', 'skills', 'release-notes', 'SKILL.md'));
    expect(fs.existsSync(call.cwd)).toBe(false); // cleaned up

    const rows = listEgress(db);
    expect(rows.at(-1)).toMatchObject({ backend: 'copilot', role: 'target', destination: path.join(sb.root, 'bin', 'copilot'), ok: true });
  });

  it('installs an instruction file (no front matter) as .github/copilot-instructions.md; text roles get no write tools', async () => {
    const rb = createRoleBackends(config, { db, env: sb.env });
    await rb.target.complete(performRequest('do it', { name: 'copilot-instructions', content: 'Always answer in English.\n' }));
    await rb.judge.complete({ role: 'judge', operation: 'judge_rubric', system: 'SYS', prompt: 'grade', payload: { rubric: 'r', intent: 'i', response: 'x' } });
    const [, target, judge] = calls();
    expect(target.files).toContain(path.join('.github', 'copilot-instructions.md'));
    expect(judge.argv[1]).toBe('SYS\n\ngrade');
    expect(judge.argv).toContain('--available-tools=view');
    expect(judge.argv).toEqual(expect.arrayContaining(['--deny-tool', 'write']));
  });

  it('an unauthenticated CLI fails fast with BACKEND_AUTH and a login hint', async () => {
    const env = { ...sb.env, FAKE_COPILOT_MODE: 'auth' };
    const rb = createRoleBackends(config, { db, env, retry: { baseMs: 1, maxMs: 2 } });
    const n = calls().length;
    const err = await rb.target.complete(performRequest('x', { name: 's', content: 'x' })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'BACKEND_AUTH' });
    expect((err as { hint: string }).hint).toContain('copilot login');
    expect(calls().length - n).toBe(1);
  });

  it('an abort kills the CLI run', async () => {
    const slow = path.join(sb.root, 'bin', 'copilot');
    const original = fs.readFileSync(slow, 'utf8');
    fs.writeFileSync(slow, `#!${process.execPath}\nsetTimeout(() => {}, 60000);\n`, { mode: 0o755 });
    try {
      const rb = createRoleBackends(config, { db, env: sb.env });
      const ctl = new AbortController();
      setTimeout(() => ctl.abort(), 200);
      const t0 = Date.now();
      await expect(rb.target.complete(performRequest('x', { name: 's', content: 'x' }), ctl.signal)).rejects.toMatchObject({ code: 'ABORTED' });
      expect(Date.now() - t0).toBeLessThan(5000);
    } finally {
      fs.writeFileSync(slow, original, { mode: 0o755 });
    }
  });
});
