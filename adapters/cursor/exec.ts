/**
 * Cursor Agent headless: `cursor-agent -p --output-format json --trust --workspace <ws> --mode ask`,
 * prompt on stdin (appended to the prompt; ours is all of it), one JSON result object on stdout
 * (`{type: "result", subtype, is_error, result, session_id, usage?}`).
 *
 * Cursor Agent is not on the npm registry (it installs from Cursor's own site) and is closed
 * source, so nothing here could be run against the real CLI in this project's tests: the flags are
 * those of Cursor's CLI docs and of the upstream Sleep's Cursor backend (upstream-sleep §7.7). As
 * upstream does, every role runs in **ask mode** (Cursor's read-only mode: the agent answers and
 * changes nothing), with a private config folder whose permissions deny the shell, writes and MCP
 * tools besides. A replay of a task that needs file edits therefore fails on Cursor: its replays
 * measure answers, not edits (docs/replay-targets.md).
 *
 * Isolation: CURSOR_CONFIG_DIR and CURSOR_DATA_DIR point into the private home, so the user's
 * cli-config.json (permissions, MCP servers) and chats stay out of the run and no chat is written
 * there. The login comes from the environment only (CURSOR_API_KEY, Cursor's documented key for
 * scripts); nothing is copied from the user's Cursor folders.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAgentSkill, num, obj, parseJsonLines, safeSkillName, type AgentHomeSpec, type ExecAdapter, type ExecInput, type ExecInvocation, type ExecResult, type ExecSkill } from '../exec-common.js';
import { cursorHomes } from './home.js';

export const CURSOR_BINARY = 'cursor-agent';
export const CURSOR_API_KEY_ENV = 'CURSOR_API_KEY';

/** The private cli-config.json: nothing may run or be written; Cursor self-repairs the fields it misses. */
export const CURSOR_REPLAY_CONFIG = {
  version: 1,
  editor: { vimMode: false },
  permissions: { allow: [] as string[], deny: ['Shell(**)', 'Write(**)', 'Mcp(*:*)'] },
};

export function buildCursorInvocation(input: ExecInput): ExecInvocation {
  const argv = ['-p', '--output-format', 'json', '--trust', '--workspace', input.workspace, '--mode', 'ask'];
  if (input.model) argv.push('--model', input.model);
  // Cursor has no system-prompt flag: our instructions go first in the prompt
  const stdin = input.system ? `${input.system}\n\n${input.prompt}` : input.prompt;
  return { argv, stdin, env: { NO_COLOR: '1' } };
}

/** An Agent Skill goes to `.cursor/skills/<name>/SKILL.md`; an instruction file becomes the workspace's AGENTS.md. */
export function cursorSkillPath(skill: ExecSkill): string {
  return isAgentSkill(skill.content) ? `.cursor/skills/${safeSkillName(skill.name)}/SKILL.md` : 'AGENTS.md';
}

/** The terminal result object: the whole stdout, or its last JSON line. */
export function parseCursorOutput(stdout: string): ExecResult {
  const out: ExecResult = { text: '', tokensIn: 0, tokensOut: 0, toolsCalled: [] };
  const events = parseJsonLines(stdout);
  let result: Record<string, unknown> | undefined;
  try {
    const whole: unknown = JSON.parse(stdout.trim());
    if (whole && typeof whole === 'object' && !Array.isArray(whole)) result = whole as Record<string, unknown>;
  } catch {
    result = [...events].reverse().find((e) => e.type === 'result');
  }
  if (!result || result.type !== 'result') {
    out.error = 'cursor-agent printed no result object';
    return out;
  }
  if (typeof result.session_id === 'string') out.sessionId = result.session_id;
  if (typeof result.result === 'string') out.text = result.result.trim();
  const u = obj(result.usage);
  out.tokensIn = num(u.inputTokens) + num(u.input_tokens) + num(u.cacheReadTokens);
  out.tokensOut = num(u.outputTokens) + num(u.output_tokens);
  if (result.is_error === true || (typeof result.subtype === 'string' && result.subtype !== 'success')) {
    out.error = `cursor-agent: ${out.text || String(result.subtype ?? 'error')}`;
  }
  return out;
}

export const cursorHome: AgentHomeSpec = {
  envVar: 'CURSOR_CONFIG_DIR',
  userHome: (env) => cursorHomes({ env, home: env.HOME || os.homedir() })[0],
  carryLogin(_userHome, privateHome, env) {
    fs.writeFileSync(path.join(privateHome, 'cli-config.json'), `${JSON.stringify(CURSOR_REPLAY_CONFIG, null, 2)}\n`, { mode: 0o600 });
    return {
      env: { CURSOR_DATA_DIR: path.join(privateHome, 'data') },
      note: env[CURSOR_API_KEY_ENV] ? `login from ${CURSOR_API_KEY_ENV}` : `no login in the environment: set ${CURSOR_API_KEY_ENV} (a Cursor API key)`,
    };
  },
  // a Cursor API key bills the user's Cursor plan, not per token at a list price we know
  billsApiKey: () => false,
};

export const cursorExec: ExecAdapter = {
  backend: 'cursor',
  binary: CURSOR_BINARY,
  buildInvocation: buildCursorInvocation,
  skillPath: cursorSkillPath,
  parseOutput: parseCursorOutput,
  home: cursorHome,
  skillTools: [],
  installHint: 'Cursor Agent is not on the npm registry: install it from Cursor (`curl https://cursor.com/install -fsS | bash`), then set CURSOR_API_KEY',
};
