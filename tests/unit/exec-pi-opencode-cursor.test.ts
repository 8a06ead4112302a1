/**
 * The replay-target adapters of Pi, OpenCode and Cursor Agent: the command line and environment each
 * builds (isolation flags, tools per role, prompt on stdin), where each installs a skill, how each
 * reads its CLI's output (shapes captured from opencode-ai 1.18.33 and pi-coding-agent 0.73.1; Cursor's
 * from its documented result object), what the private home carries, and doctor's line when
 * `cursor-agent` is not installed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpencodeInvocation, opencodeSkillPath, parseOpencodeOutput, opencodeExec } from '../../adapters/opencode/index.js';
import { OPENCODE_TARGET_AGENT, OPENCODE_TEXT_AGENT, absoluteFileRefs, opencodeModelConfig } from '../../adapters/opencode/exec.js';
import { buildPiInvocation, parsePiOutput, piExec, piSkillPath } from '../../adapters/pi/index.js';
import { piConfineExtension } from '../../adapters/pi/exec.js';
import { buildCursorInvocation, cursorExec, cursorSkillPath, parseCursorOutput } from '../../adapters/cursor/index.js';
import { execAdapterFor, cliBackendNames } from '../../adapters/index.js';
import { ConfigSchema } from '../../src/core/config.js';
import { backendChecks } from '../../src/llm/doctor-probe.js';
import { makeTempDir } from '../helpers/sandbox.js';

const tmp = makeTempDir();
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const WS = '/state/workspaces/ws-abc';
const SKILL = { name: 'Release Notes', content: '---\nname: release-notes\ndescription: Write release notes\n---\nGroup by Added / Fixed.\n' };
const INSTRUCTIONS = { name: 'AGENTS.md', content: '# Conventions\nUse UTC.\n' };

describe('the registry knows the three new CLI backends', () => {
  it('opencode, pi and cursor are backends with their binaries', () => {
    expect(cliBackendNames()).toEqual(expect.arrayContaining(['opencode', 'pi', 'cursor']));
    expect(execAdapterFor('opencode')?.binary).toBe('opencode');
    expect(execAdapterFor('pi')?.binary).toBe('pi');
    expect(execAdapterFor('cursor')?.binary).toBe('cursor-agent');
  });
});

describe('opencode', () => {
  it('target: our agent with file tools only, prompt on stdin, isolation variables set', () => {
    const inv = buildOpencodeInvocation({ prompt: 'do the task', system: 'be brief', workspace: WS, mode: 'agent', model: 'fake/m' });
    expect(inv.argv).toEqual(['run', '--pure', '--format', 'json', '--agent', OPENCODE_TARGET_AGENT, '--title', 'skillopt-sleep', '--dir', WS, '--model', 'fake/m']);
    expect(inv.stdin).toBe('be brief\n\ndo the task');
    const config = JSON.parse(inv.env.OPENCODE_CONFIG_CONTENT) as { snapshot: boolean; share: string; agent: Record<string, { permission: Record<string, string>; prompt?: string }> };
    expect(config).toMatchObject({ snapshot: false, share: 'disabled' });
    const perm = config.agent[OPENCODE_TARGET_AGENT].permission;
    expect(Object.keys(perm)[0]).toBe('*'); // deny first, the allowed tools after it (the later rule wins)
    expect(perm['*']).toBe('deny');
    expect(perm.external_directory).toBe('deny');
    expect(perm.bash).toBeUndefined(); // no shell: denied by '*'
    expect(perm.read).toBe('allow');
    expect(inv.env).toMatchObject({ OPENCODE_CONFIG: '', OPENCODE_CONFIG_DIR: '', OPENCODE_PERMISSION: '', OPENCODE_DISABLE_EXTERNAL_SKILLS: '1', OPENCODE_DISABLE_CLAUDE_CODE: '1' });
    expect(inv.argv.join(' ')).not.toContain('be brief');
  });

  it('text roles: every tool denied, our system prompt as the agent prompt', () => {
    const inv = buildOpencodeInvocation({ prompt: 'judge this', system: 'You are a strict judge.', workspace: WS, mode: 'text' });
    expect(inv.argv).toContain(OPENCODE_TEXT_AGENT);
    expect(inv.stdin).toBe('judge this');
    const config = JSON.parse(inv.env.OPENCODE_CONFIG_CONTENT) as { agent: Record<string, { permission: Record<string, string>; prompt?: string }> };
    expect(config.agent[OPENCODE_TEXT_AGENT]).toMatchObject({ prompt: 'You are a strict judge.', permission: { '*': 'deny' } });
  });

  it('skills go to .opencode/skills, instruction files to AGENTS.md', () => {
    expect(opencodeSkillPath(SKILL)).toBe('.opencode/skills/release-notes/SKILL.md');
    expect(opencodeSkillPath(INSTRUCTIONS)).toBe('AGENTS.md');
  });

  it('parses the JSON events: the last step\'s text, tools, summed tokens and cost', () => {
    const ev = (type: string, part: Record<string, unknown>) => JSON.stringify({ type, timestamp: 1, sessionID: 'ses_1', part });
    const stdout = [
      ev('step_start', { type: 'step-start' }),
      ev('text', { type: 'text', text: 'Reading it.' }),
      ev('tool_use', { type: 'tool', tool: 'read', state: { status: 'completed' } }),
      ev('step_finish', { type: 'step-finish', reason: 'tool-calls', tokens: { input: 5, output: 2, reasoning: 1, cache: { read: 3, write: 0 } }, cost: 0.001 }),
      ev('step_start', { type: 'step-start' }),
      ev('text', { type: 'text', text: 'DONE_TEXT' }),
      ev('step_finish', { type: 'step-finish', reason: 'stop', tokens: { input: 11, output: 3, reasoning: 0, cache: { read: 0, write: 0 } }, cost: 0.002 }),
    ].join('\n');
    const r = parseOpencodeOutput(stdout);
    expect(r).toMatchObject({ text: 'DONE_TEXT', toolsCalled: ['read'], tokensIn: 5 + 3 + 11, tokensOut: 2 + 1 + 3, cacheReadTokens: 3, sessionId: 'ses_1' });
    expect(r.costUsd).toBeCloseTo(0.003, 9);
    expect(r.error).toBeUndefined();
  });

  it('an error event or a run with no finished step is a failure', () => {
    const err = parseOpencodeOutput(JSON.stringify({ type: 'error', sessionID: 's', error: { name: 'APIError', data: { message: 'Unauthorized: invalid key' } } }));
    expect(err.error).toBe('opencode: Unauthorized: invalid key');
    expect(parseOpencodeOutput('').error).toMatch(/no step_finish/);
  });

  it('the private home links the login and carries only the model settings of the user config (JSONC)', () => {
    const home = path.join(tmp, 'oc-home');
    const data = path.join(home, '.local/share/opencode');
    const conf = path.join(home, '.config/opencode');
    fs.mkdirSync(data, { recursive: true });
    fs.mkdirSync(conf, { recursive: true });
    fs.writeFileSync(path.join(data, 'auth.json'), '{"openai":{"type":"api","key":"sk-x"}}');
    fs.writeFileSync(
      path.join(conf, 'opencode.jsonc'),
      '{\n  // my setup\n  "model": "local/qwen",\n  "provider": {"local": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://127.0.0.1:1/v1"}}},\n  "mcp": {"secret-server": {"type": "local"}},\n  "instructions": ["~/notes.md"],\n}\n',
    );
    expect(opencodeModelConfig(conf)).toEqual({ model: 'local/qwen', provider: { local: { npm: '@ai-sdk/openai-compatible', options: { baseURL: 'http://127.0.0.1:1/v1' } } } });
    const env = { HOME: home };
    const priv = path.join(tmp, 'oc-private');
    fs.mkdirSync(priv);
    const userHome = opencodeExec.home.userHome(env);
    expect(userHome).toBe(data);
    const carried = opencodeExec.home.carryLogin(userHome, priv, env);
    expect(fs.readlinkSync(path.join(priv, 'opencode/auth.json'))).toBe(path.join(data, 'auth.json'));
    expect(JSON.parse(fs.readFileSync(path.join(priv, 'config/opencode/opencode.json'), 'utf8'))).not.toHaveProperty('mcp');
    expect(carried.model).toBe('local/qwen');
    expect(carried.env).toEqual({
      HOME: path.join(priv, 'home'),
      XDG_CONFIG_HOME: path.join(priv, 'config'),
      XDG_CACHE_HOME: path.join(priv, 'cache'),
      XDG_STATE_HOME: path.join(priv, 'state'),
      OPENCODE_DB: path.join(priv, 'opencode/opencode.db'),
    });
    expect(opencodeExec.home.billsApiKey(env, userHome)).toBe(true);
  });

  it('{file:…} references of the carried config are made absolute (HOME and the config folder move)', () => {
    const config = { provider: { a: { options: { apiKey: '{file:~/.secrets/a}', other: '{file:./b.key}', abs: '{file:/etc/c.key}', env: '{env:KEY}' } } } };
    expect(absoluteFileRefs(config, '/home/me', '/home/me/.config/opencode')).toEqual({
      provider: { a: { options: { apiKey: '{file:/home/me/.secrets/a}', other: '{file:/home/me/.config/opencode/b.key}', abs: '{file:/etc/c.key}', env: '{env:KEY}' } } },
    });
  });
});

describe('pi', () => {
  it('target: file tools only, the confining extension, no session, offline', () => {
    const inv = buildPiInvocation({ prompt: 'do the task', system: 'be brief', workspace: WS, mode: 'agent', model: 'fake/m' });
    expect(inv.argv).toEqual(['-p', '--mode', 'json', '--no-session', '--no-extensions', '--no-prompt-templates', '--no-themes', '--tools', 'read,edit,write,grep,find,ls', '-e', `${WS}/.skillopt-pi/confine.mjs`, '--no-skills', '--skill', `${WS}/.pi/skills`, '--model', 'fake/m']);
    expect(inv.stdin).toBe('be brief\n\ndo the task');
    expect(inv.env).toEqual({ PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' });
    expect(inv.files?.['.skillopt-pi/confine.mjs']).toContain(JSON.stringify(WS));
  });

  it('text roles: no tools, skills or context files; the system prompt from a file, not argv', () => {
    const inv = buildPiInvocation({ prompt: 'judge this', system: 'SECRET_SYSTEM_TEXT', workspace: WS, mode: 'text' });
    expect(inv.argv).toEqual(expect.arrayContaining(['--no-tools', '--no-skills', '--no-context-files', '--append-system-prompt', `${WS}/.skillopt-pi/system.md`]));
    expect(inv.argv.join(' ')).not.toContain('SECRET_SYSTEM_TEXT');
    expect(inv.files?.['.skillopt-pi/system.md']).toBe('SECRET_SYSTEM_TEXT');
    expect(inv.stdin).toBe('judge this');
  });

  it('the confining extension blocks paths outside the workspace and the shell', async () => {
    const ws = path.join(tmp, 'pi-ws');
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    fs.symlinkSync(tmp, path.join(ws, 'escape'));
    const file = path.join(tmp, 'confine.mjs');
    fs.writeFileSync(file, piConfineExtension(ws));
    const mod = (await import(file)) as { default: (pi: { on: (ev: string, fn: (e: unknown) => Promise<unknown>) => void }) => void };
    let handler: ((e: unknown) => Promise<unknown>) | undefined;
    mod.default({ on: (_ev, fn) => void (handler = fn) });
    const call = (toolName: string, input: Record<string, unknown>) => handler!({ toolName, input });
    expect(await call('read', { path: 'src/a.ts' })).toBeUndefined();
    expect(await call('write', { path: path.join(ws, 'CHANGELOG.md'), content: 'x' })).toBeUndefined();
    expect(await call('ls', {})).toBeUndefined();
    expect(await call('read', { path: '/etc/passwd' })).toMatchObject({ block: true });
    expect(await call('edit', { path: '../outside.txt' })).toMatchObject({ block: true });
    expect(await call('read', { path: 'escape/secret.txt' })).toMatchObject({ block: true }); // through a symlink
    expect(await call('read', { path: '~/.ssh/id_rsa' })).toMatchObject({ block: true });
    expect(await call('bash', { command: 'ls' })).toMatchObject({ block: true });
  });

  it('skills go to .pi/skills, instruction files to AGENTS.md', () => {
    expect(piSkillPath(SKILL)).toBe('.pi/skills/release-notes/SKILL.md');
    expect(piSkillPath(INSTRUCTIONS)).toBe('AGENTS.md');
  });

  it('parses the JSON events: the last assistant text, tool calls, usage and an error stop', () => {
    const assistant = (text: string, usage: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ type: 'message_end', message: { role: 'assistant', content: [{ type: 'text', text }], provider: 'fake', model: 'fake-model', usage, stopReason: 'stop', ...extra } });
    const stdout = [
      JSON.stringify({ type: 'session', version: 3, id: 'sess-1', cwd: WS }),
      JSON.stringify({ type: 'agent_start' }),
      JSON.stringify({ type: 'message_end', message: { role: 'user', content: [{ type: 'text', text: 'say hi' }] } }),
      JSON.stringify({ type: 'tool_execution_start', toolCallId: 'c1', toolName: 'read', args: { path: 'a' } }),
      assistant('', { input: 5, output: 2, cacheRead: 1, cacheWrite: 0, cost: { total: 0.01 } }),
      assistant('HELLO_FROM_FAKE', { input: 11, output: 3, cacheRead: 0, cacheWrite: 0, cost: { total: 0.02 } }),
      JSON.stringify({ type: 'agent_end', messages: [] }),
    ].join('\n');
    const r = parsePiOutput(stdout);
    expect(r).toMatchObject({ text: 'HELLO_FROM_FAKE', toolsCalled: ['read'], tokensIn: 5 + 1 + 11, tokensOut: 5, sessionId: 'sess-1', model: 'fake-model' });
    expect(r.costUsd).toBeCloseTo(0.03, 9);
    expect(r.error).toBeUndefined();
    const failed = parsePiOutput(assistant('', { input: 1, output: 0 }, { stopReason: 'error', errorMessage: '401 invalid api key' }));
    expect(failed.error).toBe('pi: 401 invalid api key');
    expect(parsePiOutput('').error).toMatch(/no agent_end/);
  });

  it('the private home links the login, copies models.json and only the model keys of settings.json', () => {
    const user = path.join(tmp, 'pi-user/.pi/agent');
    fs.mkdirSync(user, { recursive: true });
    fs.writeFileSync(path.join(user, 'auth.json'), '{"anthropic":{"type":"api_key","key":"k"}}');
    fs.writeFileSync(path.join(user, 'models.json'), '{"providers":{}}');
    fs.writeFileSync(path.join(user, 'settings.json'), JSON.stringify({ defaultProvider: 'fake', defaultModel: 'fake-model', packages: ['npm:evil'], extensions: ['x.ts'] }));
    const env = { HOME: path.join(tmp, 'pi-user') };
    expect(piExec.home.userHome(env)).toBe(user);
    const priv = path.join(tmp, 'pi-private');
    fs.mkdirSync(priv);
    const carried = piExec.home.carryLogin(user, priv, env);
    expect(fs.readlinkSync(path.join(priv, 'auth.json'))).toBe(path.join(user, 'auth.json'));
    expect(fs.readFileSync(path.join(priv, 'models.json'), 'utf8')).toBe('{"providers":{}}');
    expect(JSON.parse(fs.readFileSync(path.join(priv, 'settings.json'), 'utf8'))).toEqual({ enableInstallTelemetry: false, defaultProvider: 'fake', defaultModel: 'fake-model' });
    expect(carried).toMatchObject({ model: 'fake-model', env: { PI_CODING_AGENT_SESSION_DIR: path.join(priv, 'sessions') } });
    expect(piExec.home.billsApiKey({}, user)).toBe(true);
  });
});

describe('cursor agent', () => {
  it('every role runs in ask mode, trusted workspace, prompt on stdin', () => {
    const inv = buildCursorInvocation({ prompt: 'do the task', system: 'be brief', workspace: WS, mode: 'agent', model: 'gpt-5' });
    expect(inv.argv).toEqual(['-p', '--output-format', 'json', '--trust', '--workspace', WS, '--mode', 'ask', '--model', 'gpt-5']);
    expect(inv.stdin).toBe('be brief\n\ndo the task');
    expect(buildCursorInvocation({ prompt: 'p', workspace: WS, mode: 'text' }).argv).toContain('ask');
    expect(inv.argv).not.toContain('--force');
  });

  it('skills go to .cursor/skills, instruction files to AGENTS.md', () => {
    expect(cursorSkillPath(SKILL)).toBe('.cursor/skills/release-notes/SKILL.md');
    expect(cursorSkillPath(INSTRUCTIONS)).toBe('AGENTS.md');
  });

  it('parses the result object; is_error or no result is a failure', () => {
    const ok = parseCursorOutput(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: ' Use git tag. ', session_id: 'c-1', usage: { inputTokens: 10, outputTokens: 4 } }));
    expect(ok).toMatchObject({ text: 'Use git tag.', sessionId: 'c-1', tokensIn: 10, tokensOut: 4 });
    expect(ok.error).toBeUndefined();
    const lastLine = parseCursorOutput(`warning: something\n${JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'ok' })}\n`);
    expect(lastLine.text).toBe('ok');
    expect(parseCursorOutput(JSON.stringify({ type: 'result', subtype: 'error', is_error: true, result: 'Authentication required' })).error).toBe('cursor-agent: Authentication required');
    expect(parseCursorOutput('not json').error).toMatch(/no result object/);
  });

  it('the private config folder denies shell, writes and MCP; the login comes from CURSOR_API_KEY', () => {
    const priv = path.join(tmp, 'cursor-private');
    fs.mkdirSync(priv);
    const carried = cursorExec.home.carryLogin('/nowhere', priv, { CURSOR_API_KEY: 'k' });
    expect(JSON.parse(fs.readFileSync(path.join(priv, 'cli-config.json'), 'utf8')).permissions.deny).toEqual(['Shell(**)', 'Write(**)', 'Mcp(*:*)']);
    expect(carried).toMatchObject({ env: { CURSOR_DATA_DIR: path.join(priv, 'data') }, note: 'login from CURSOR_API_KEY' });
    expect(cursorExec.home.carryLogin('/nowhere', priv, {}).note).toMatch(/set CURSOR_API_KEY/);
    expect(cursorExec.home.envVar).toBe('CURSOR_CONFIG_DIR');
  });

  it('doctor says plainly that cursor-agent is not installed and how to get it', () => {
    const lines = backendChecks({ config: ConfigSchema.parse({}), env: { PATH: '' } });
    const line = lines.find((c) => c.name === 'backend cursor');
    expect(line).toMatchObject({ status: 'warn' });
    expect(line?.detail).toMatch(/^`cursor-agent` not on PATH \(Cursor Agent is not on the npm registry: install it from Cursor/);
    const bin = fs.mkdtempSync(path.join(tmp, 'bin-'));
    fs.writeFileSync(path.join(bin, 'cursor-agent'), '#!/bin/sh\n', { mode: 0o755 });
    const found = backendChecks({ config: ConfigSchema.parse({}), env: { PATH: bin } }).find((c) => c.name === 'backend cursor');
    expect(found).toMatchObject({ status: 'ok', detail: path.join(bin, 'cursor-agent') });
  });
});
