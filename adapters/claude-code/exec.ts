/**
 * Claude Code in print mode: `claude -p --output-format stream-json --verbose`, prompt on stdin.
 * stream-json (not json) because only the event stream names the tools the agent used.
 *
 * Isolation for the `target` role: `--tools` leaves only file tools (no Bash, no web);
 * `--setting-sources project` ignores the user's settings (whose allow rules could open their
 * files) and user-level skills, while still loading the workspace's `.claude/skills`;
 * `--permission-mode acceptEdits` lets edits inside the working directory (the temp workspace; no
 * --add-dir) through, and `--permission-prompts none` denies everything that would ask — reads and
 * writes outside the workspace included (verified against the real CLI in
 * tests/integration/llm-claude-cli.test.ts). `--restricted` is NOT used: it also stops project
 * skills from loading. Other roles run with no tools at all and our own system prompt.
 *
 * No trace: `--no-session-persistence` (no transcript in the projects folder, nothing in
 * `claude --resume`) and a private CLAUDE_CONFIG_DIR per run, so `.claude.json` (its startup and
 * skill-usage counters), settings and user-level skills of the user are neither written nor read.
 * The login is carried by environment only: an API key in the environment as is, else the
 * subscription's current access token read from the user's `.credentials.json` and passed as
 * CLAUDE_CODE_OAUTH_TOKEN (never copied, so a token refresh can never rotate the user's login).
 * Lean requests: `--strict-mcp-config`, no bundled skills or built-in plugin skills (CLAUDE_LEAN_ENV,
 * CLAUDE_LEAN_SETTINGS below), and in a workspace not seeded from a repository only the tools that
 * can act there (EMPTY_WORKSPACE_TOOLS).
 * Flags verified against `claude --help` of @anthropic-ai/claude-code 2.1.328.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { claudeHomes } from './home.js';
import { isAgentSkill, type AgentHomeSpec, num, obj, parseJsonLines, safeSkillName, type ExecAdapter, type ExecInput, type ExecInvocation, type ExecResult, type ExecSkill } from '../exec-common.js';

/** File tools only, plus Skill so the agent can load the installed skill on demand. */
export const CLAUDE_TARGET_TOOLS = ['Read', 'Write', 'Edit', 'Glob', 'Grep', 'Skill'];
/**
 * A workspace not seeded from a repository holds nothing but the skill we installed: there is
 * nothing to search (Glob, Grep: ~1,000 tokens of schemas), and nothing to read or edit but that
 * skill, which the Skill tool loads, and the files the agent writes itself (Read, Edit: ~720
 * tokens). Each schema rides along on every request of the replay: measured against the real CLI
 * 2.1.328, 3,715 → 2,994 tokens a request (bench/tokens.ts). Write stays, so a task whose answer
 * is a file still gets its file; Skill stays, so the skill under training loads as it would.
 */
export const EMPTY_WORKSPACE_TOOLS = ['Write', 'Skill'];

/** Keeps the CLI quiet: no auto-update, telemetry or error reporting traffic during replays. */
export const CLAUDE_QUIET_ENV: Record<string, string> = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_BUG_COMMAND: '1',
};

/**
 * What a replay does not need, and every request of it would carry (measured against the real CLI
 * 2.1.328 and a scripted server, bench/tokens.ts): the CLI's bundled skills (dataviz, claude-api,
 * code-review, loop, …: ~1,500 tokens of descriptions in the skill listing of each request, beside
 * the one skill under training, which stays listed and loadable) and MCP servers (a seeded
 * repository's `.mcp.json` would add its servers' tool schemas to each request, and start them).
 */
export const CLAUDE_LEAN_ENV: Record<string, string> = { CLAUDE_CODE_DISABLE_BUNDLED_SKILLS: '1' };
/**
 * The CLI's built-in `plugin-authoring` plugin lists its skill in every request of a replay beside
 * the one under training (~70 tokens a request, 2.1.328); the bundled-skills switch above leaves it.
 * A settings value given on the command line: no file of the user's is read or written for it.
 */
export const CLAUDE_LEAN_SETTINGS = JSON.stringify({ enabledPlugins: { 'plugin-authoring@builtin': false } });

export function buildClaudeInvocation(input: ExecInput): ExecInvocation {
  const argv = ['-p', '--output-format', 'stream-json', '--verbose', '--no-session-persistence', '--setting-sources', 'project', '--permission-prompts', 'none', '--strict-mcp-config'];
  if (input.model) argv.push('--model', input.model);
  if (input.mode === 'agent') {
    const tools = input.emptyWorkspace ? EMPTY_WORKSPACE_TOOLS : CLAUDE_TARGET_TOOLS;
    argv.push('--permission-mode', 'acceptEdits', '--tools', tools.join(','), '--settings', CLAUDE_LEAN_SETTINGS);
    if (input.system) argv.push('--append-system-prompt', input.system);
  } else {
    argv.push('--tools', '', '--disable-slash-commands');
    if (input.system) argv.push('--system-prompt', input.system);
  }
  return { argv, stdin: input.prompt, env: { ...CLAUDE_QUIET_ENV, ...CLAUDE_LEAN_ENV } };
}

export function claudeSkillPath(skill: ExecSkill): string {
  return isAgentSkill(skill.content) ? `.claude/skills/${safeSkillName(skill.name)}/SKILL.md` : 'CLAUDE.md';
}

/** Reads the stream-json events: assistant messages (text, tool_use) and the final `result`. */
export function parseClaudeOutput(stdout: string): ExecResult {
  const events = parseJsonLines(stdout);
  const tools: string[] = [];
  let lastAssistantText = '';
  let result: Record<string, unknown> | undefined;
  let model: string | undefined;
  let sessionId: string | undefined;
  for (const ev of events) {
    if (typeof ev.session_id === 'string') sessionId = ev.session_id;
    if (ev.type === 'system' && ev.subtype === 'init' && typeof ev.model === 'string') model = ev.model;
    if (ev.type === 'assistant') {
      const content = obj(ev.message).content;
      if (Array.isArray(content)) {
        const texts: string[] = [];
        for (const block of content as Array<Record<string, unknown>>) {
          if (block.type === 'tool_use' && typeof block.name === 'string') tools.push(block.name);
          if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
        }
        if (texts.length) lastAssistantText = texts.join('');
      }
    }
    if (ev.type === 'result') result = ev;
  }
  if (!result) {
    return { text: lastAssistantText, tokensIn: 0, tokensOut: 0, toolsCalled: tools, model, sessionId, error: 'claude printed no result event' };
  }
  const usage = obj(result.usage);
  const cacheReadTokens = num(usage.cache_read_input_tokens);
  const tokensIn = num(usage.input_tokens) + cacheReadTokens + num(usage.cache_creation_input_tokens);
  const isError = result.is_error === true || (typeof result.subtype === 'string' && result.subtype !== 'success');
  const text = typeof result.result === 'string' ? result.result : lastAssistantText;
  return {
    text,
    tokensIn,
    tokensOut: num(usage.output_tokens),
    cacheReadTokens,
    costUsd: typeof result.total_cost_usd === 'number' ? result.total_cost_usd : undefined,
    model,
    toolsCalled: tools,
    sessionId,
    error: isError ? `claude reported ${String(result.subtype ?? 'an error')}: ${text.slice(0, 300)}` : undefined,
  };
}

/** Credentials that make the CLI bill an API account rather than a subscription. */
const CLAUDE_API_KEY_ENV = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'];
const CLAUDE_ANY_AUTH_ENV = [...CLAUDE_API_KEY_ENV, 'CLAUDE_CODE_OAUTH_TOKEN', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'CLAUDE_CODE_USE_FOUNDRY'];

export const claudeHome: AgentHomeSpec = {
  envVar: 'CLAUDE_CONFIG_DIR',
  // the agent record's own resolver (./home.ts): harvest, skills and replays agree on the home
  userHome: (env) => claudeHomes({ env, home: env.HOME || os.homedir() })[0],
  carryLogin(userHome, _privateHome, env): { env: Record<string, string>; note?: string } {
    if (CLAUDE_ANY_AUTH_ENV.some((k) => env[k])) return { env: {}, note: 'login from the environment' };
    try {
      const creds = JSON.parse(fs.readFileSync(path.join(userHome, '.credentials.json'), 'utf8')) as { claudeAiOauth?: { accessToken?: unknown } };
      const token = creds.claudeAiOauth?.accessToken;
      if (typeof token === 'string' && token) return { env: { CLAUDE_CODE_OAUTH_TOKEN: token }, note: 'subscription login (current access token)' };
    } catch {
      /* no readable credentials file (macOS keeps them in the keychain) */
    }
    return { env: {}, note: 'no login found for the private config dir: set ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN (`claude setup-token`)' };
  },
  billsApiKey: (env) => CLAUDE_API_KEY_ENV.some((k) => env[k]) && !env.CLAUDE_CODE_OAUTH_TOKEN,
};

export const claudeExec: ExecAdapter = {
  backend: 'claude',
  binary: 'claude',
  buildInvocation: buildClaudeInvocation,
  skillPath: claudeSkillPath,
  parseOutput: parseClaudeOutput,
  home: claudeHome,
  skillTools: ['Skill'],
};
