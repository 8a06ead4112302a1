import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/core/config.js';
import { detectBackends } from '../../src/llm/detect.js';
import { createRoleBackends } from '../../src/llm/registry.js';
import { BudgetTracker } from '../../src/llm/budget.js';
import { listEgress } from '../../src/llm/ledger.js';
import { openDb } from '../../src/store/db.js';
import { parseClaudeOutput, buildClaudeInvocation, claudeSkillPath } from '../../adapters/claude-code/exec.js';
import { parseCodexOutput, buildCodexInvocation } from '../../adapters/codex/exec.js';
import { parseCopilotOutput } from '../../adapters/copilot/exec.js';
import { isAgentSkill, safeSkillName } from '../../adapters/exec-common.js';
import { classifyCliFailure } from '../../src/llm/cli.js';
import { installFile } from '../../src/llm/workspace.js';
import { makeTempDir } from '../helpers/sandbox.js';

const tmp = makeTempDir();
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function binDir(...names: string[]): string {
  const dir = fs.mkdtempSync(path.join(tmp, 'bin-'));
  for (const n of names) fs.writeFileSync(path.join(dir, n), '#!/bin/sh\n', { mode: 0o755 });
  return dir;
}

describe('detectBackends', () => {
  const cfg = ConfigSchema.parse({});
  it('follows claude → codex → copilot → ANTHROPIC_API_KEY → OPENAI_API_KEY', () => {
    expect(detectBackends(cfg, { PATH: binDir('codex', 'claude', 'copilot') }).chosen?.name).toBe('claude');
    expect(detectBackends(cfg, { PATH: binDir('copilot', 'codex') }).chosen?.name).toBe('codex');
    expect(detectBackends(cfg, { PATH: binDir('copilot'), ANTHROPIC_API_KEY: 'k' }).chosen?.name).toBe('copilot');
    const api = detectBackends(cfg, { PATH: '', ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k' });
    expect(api.chosen?.name).toBe('anthropic');
    expect(api.roles.judge.model).toBe('claude-sonnet-4-6');
    expect(detectBackends(cfg, { PATH: '', OPENAI_API_KEY: 'k' }).roles.optimizer).toMatchObject({ backend: 'openai', model: 'gpt-5-mini' });
  });

  it('a configured backend wins, with its model; a missing one is reported', () => {
    const c = ConfigSchema.parse({ roles: { judge: { backend: 'openai', model: 'gpt-4o-mini' } } });
    const d = detectBackends(c, { PATH: binDir('claude') });
    expect(d.roles.target.backend).toBe('claude');
    expect(d.roles.judge).toMatchObject({ backend: 'openai', model: 'gpt-4o-mini' });
    expect(d.roles.judge.reason).toMatch(/configured, but OPENAI_API_KEY is not set/);
  });

  it('never picks sim silently; only when the caller allows it, and says so', () => {
    const none = detectBackends(cfg, { PATH: '' });
    expect(none.chosen).toBeNull();
    expect(none.roles.target.reason).toMatch(/no backend found/);
    expect(() => createRoleBackends(cfg, { env: { PATH: '' } })).toThrow(/no backend for the target role/);
    const sim = detectBackends(cfg, { PATH: '' }, { simAllowed: true });
    expect(sim.chosen?.name).toBe('sim');
    expect(sim.roles.target.reason).toMatch(/simulated/);
  });

  it('sim through the wrapper: budget applies, nothing is written to the egress ledger', async () => {
    const db = openDb(path.join(tmp, 'sim.db'));
    const c = ConfigSchema.parse({ roles: { target: { backend: 'sim' }, optimizer: { backend: 'sim' }, judge: { backend: 'sim' }, miner: { backend: 'sim' } } });
    const budget = new BudgetTracker({ maxUsd: 1, maxTokens: 1e6, maxCalls: 2 });
    const rb = createRoleBackends(c, { db, env: { PATH: '' }, budget });
    const req = { role: 'judge' as const, operation: 'judge_rubric' as const, prompt: 'p', payload: { rubric: 'must mention tests', intent: 'i', response: 'we ran the tests' } };
    await rb.judge.complete(req);
    await rb.judge.complete(req);
    await expect(rb.judge.complete(req)).rejects.toMatchObject({ code: 'BUDGET_EXCEEDED' });
    expect(listEgress(db)).toHaveLength(0);
    expect(rb.judge.destination).toBe('local');
    db.close();
  });
});

describe('CLI adapters', () => {
  it('claude: builds a print-mode argv with no shell metacharacter handling needed, prompt on stdin', () => {
    const inv = buildClaudeInvocation({ prompt: 'do $(x)', workspace: '/w', mode: 'agent', model: 'sonnet' });
    expect(inv.stdin).toBe('do $(x)');
    expect(inv.argv).toEqual(expect.arrayContaining(['-p', '--output-format', 'stream-json', '--setting-sources', 'project', '--permission-prompts', 'none', '--model', 'sonnet']));
    expect(inv.argv).not.toContain('--add-dir');
    expect(inv.argv).not.toContain('--dangerously-skip-permissions');
    expect(inv.env.DISABLE_AUTOUPDATER).toBe('1');
    // lean requests: no MCP server of a seeded repository, no bundled skills listed beside ours
    expect(inv.argv).toContain('--strict-mcp-config');
    expect(inv.env.CLAUDE_CODE_DISABLE_BUNDLED_SKILLS).toBe('1');
    // the built-in plugin's skill is not listed beside ours either (a settings value, no file)
    expect(JSON.parse(inv.argv[inv.argv.indexOf('--settings') + 1])).toEqual({ enabledPlugins: { 'plugin-authoring@builtin': false } });
    // file and skill tools; in a workspace holding only the skill, only the tools that can act there
    expect(inv.argv[inv.argv.indexOf('--tools') + 1]).toBe('Read,Write,Edit,Glob,Grep,Skill');
    const empty = buildClaudeInvocation({ prompt: 'p', workspace: '/w', mode: 'agent', emptyWorkspace: true });
    expect(empty.argv[empty.argv.indexOf('--tools') + 1]).toBe('Write,Skill');
    const text = buildClaudeInvocation({ prompt: 'p', system: 'S', workspace: '/w', mode: 'text' });
    expect(text.argv).toEqual(expect.arrayContaining(['--tools', '', '--system-prompt', 'S']));
  });

  it('claude: parses stream-json (tools, usage, cost) and flags error results', () => {
    const out = [
      JSON.stringify({ type: 'system', subtype: 'init', model: 'claude-sonnet-4-5', session_id: 's1' }),
      'not json at all',
      JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'hi' }, { type: 'tool_use', name: 'Read', input: {} }] } }),
      JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'final', total_cost_usd: 0.012, usage: { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 5 } }),
    ].join('\n');
    expect(parseClaudeOutput(out)).toMatchObject({ text: 'final', tokensIn: 100, tokensOut: 5, costUsd: 0.012, toolsCalled: ['Read'], model: 'claude-sonnet-4-5', sessionId: 's1', error: undefined });
    const err = parseClaudeOutput(JSON.stringify({ type: 'result', subtype: 'error_max_turns', is_error: true, result: '' }));
    expect(err.error).toMatch(/error_max_turns/);
    expect(parseClaudeOutput('garbage').error).toMatch(/no result/);
  });

  it('codex: stdin prompt with system first; parses items and usage; a failed turn is an error', () => {
    const inv = buildCodexInvocation({ prompt: 'p', system: 'S', workspace: '/w', mode: 'text' });
    expect(inv.argv.slice(0, 2)).toEqual(['exec', '--json']);
    expect(inv.argv).toEqual(expect.arrayContaining(['--sandbox', 'read-only', '--disable', 'shell_tool', '-C', '/w']));
    expect(inv.argv.at(-1)).toBe('-');
    expect(inv.stdin).toBe('S\n\np');
    const ok = [
      { type: 'thread.started', thread_id: 't1' },
      { type: 'item.completed', item: { type: 'command_execution' } },
      { type: 'item.completed', item: { type: 'agent_message', text: 'answer' } },
      { type: 'turn.completed', usage: { input_tokens: 100, output_tokens: 7 } },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n');
    expect(parseCodexOutput(ok)).toMatchObject({ text: 'answer', tokensIn: 100, tokensOut: 7, toolsCalled: ['shell'], sessionId: 't1', error: undefined });
    const failed = parseCodexOutput(JSON.stringify({ type: 'turn.failed', error: { message: 'unexpected status 401 Unauthorized' } }));
    expect(failed.error).toMatch(/401/);
    expect(classifyCliFailure('codex', '/bin/codex', failed.error!).code).toBe('BACKEND_AUTH');
  });

  it('copilot: reads assistant.message and tool.execution_start; plain text fallback', () => {
    const out = [
      { type: 'tool.execution_start', data: { toolName: 'view' } },
      { type: 'assistant.message', data: { content: 'done' } },
      { type: 'result', sessionId: 'c1', exitCode: 0 },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n');
    expect(parseCopilotOutput(out)).toMatchObject({ text: 'done', toolsCalled: ['view'], sessionId: 'c1' });
    expect(parseCopilotOutput('just text').text).toBe('just text');
  });

  it('classifies CLI failures: auth (no retry), rate limit and transient (retry), other (no retry)', () => {
    expect(classifyCliFailure('claude', 'c', 'Invalid API key · Please run /login')).toMatchObject({ code: 'BACKEND_AUTH', details: { retryable: false } });
    expect(classifyCliFailure('claude', 'c', 'API Error: 529 Overloaded')).toMatchObject({ code: 'BACKEND_RATE_LIMIT', details: { retryable: true } });
    expect(classifyCliFailure('claude', 'c', 'API Error: 500 internal')).toMatchObject({ code: 'BACKEND_UNAVAILABLE', details: { retryable: true } });
    expect(classifyCliFailure('claude', 'c', 'unknown option --foo')).toMatchObject({ code: 'BACKEND_UNAVAILABLE', details: { retryable: false } });
  });

  it('skill placement: Agent Skills by front matter, safe folder names, no path escape', () => {
    expect(isAgentSkill('---\nname: a\ndescription: b\n---\nx')).toBe(true);
    expect(isAgentSkill('# CLAUDE.md\nname: x')).toBe(false);
    expect(safeSkillName('../../etc/Passwd')).toBe('etc-passwd');
    expect(claudeSkillPath({ name: 'My Skill', content: '---\nname: my-skill\n---\n' })).toBe('.claude/skills/my-skill/SKILL.md');
    expect(claudeSkillPath({ name: 'x', content: 'plain' })).toBe('CLAUDE.md');
    const ws = fs.mkdtempSync(path.join(tmp, 'ws-'));
    expect(() => installFile(ws, '../outside.md', 'x')).toThrow(/outside the workspace/);
  });
});
