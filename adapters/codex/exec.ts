/**
 * Codex in exec mode: `codex exec --json -`, prompt on stdin, JSONL events on stdout
 * (thread.started, item.completed {agent_message | command_execution | file_change | mcp_tool_call
 * | web_search}, turn.completed {usage}, turn.failed, error).
 *
 * The `target` role works on the seeded workspace like the user's own Codex would: its shell and
 * apply_patch are on, under the `workspace-write` sandbox with /tmp and $TMPDIR taken out of its
 * writable roots (writes only inside the workspace, no network). Codex's sandbox limits writes, not reads: a command may still read files outside the
 * workspace (said in docs/REFERENCE.md, Replays). Other roles keep the shell off and a read-only sandbox.
 * The skill is installed as the workspace's AGENTS.md, which Codex injects whole.
 *
 * No trace: `--ephemeral` (no rollout files) and a private CODEX_HOME per run, because Codex also
 * writes state, log, memory and thread databases and system skills into its home on every run; a
 * private home also keeps the user's personal AGENTS.md, skills, rules and MCP servers out of the
 * replay. Only the login (auth.json, linked) and the model provider settings of the user's
 * config.toml (model, model_provider and its [model_providers.*] table) are carried over.
 * Flags verified against `codex exec --help` of @openai/codex 0.169.0.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { codexHomes } from './home.js';
import { num, obj, parseJsonLines, type AgentHomeSpec, type ExecAdapter, type ExecInput, type ExecInvocation, type ExecResult, type ExecSkill } from '../exec-common.js';

export function buildCodexInvocation(input: ExecInput): ExecInvocation {
  const argv = ['exec', '--json', '--ephemeral', '--skip-git-repo-check'];
  // workspace-write also opens /tmp and $TMPDIR by default: only the workspace stays writable
  if (input.mode === 'agent') {
    argv.push('--sandbox', 'workspace-write', '-c', 'sandbox_workspace_write.exclude_slash_tmp=true', '-c', 'sandbox_workspace_write.exclude_tmpdir_env_var=true', '-c', 'sandbox_workspace_write.network_access=false');
  }
  else argv.push('--sandbox', 'read-only', '--disable', 'shell_tool', '--disable', 'unified_exec');
  argv.push('--color', 'never', '-C', input.workspace);
  if (input.model) argv.push('--model', input.model);
  argv.push('-'); // prompt from stdin: no argv length limit, nothing in `ps`
  // codex exec has no system-prompt flag; the instructions go first in the prompt
  const stdin = input.system ? `${input.system}\n\n${input.prompt}` : input.prompt;
  return { argv, stdin, env: {} };
}

export function codexSkillPath(_skill: ExecSkill): string {
  return 'AGENTS.md';
}

const TOOL_OF_ITEM: Record<string, string> = {
  command_execution: 'shell',
  file_change: 'apply_patch',
  web_search: 'web_search',
};

export function parseCodexOutput(stdout: string): ExecResult {
  const events = parseJsonLines(stdout);
  const tools: string[] = [];
  let text = '';
  let tokensIn = 0;
  let tokensOut = 0;
  let cacheReadTokens = 0;
  let sessionId: string | undefined;
  let error: string | undefined;
  let completed = false;
  for (const ev of events) {
    if (ev.type === 'thread.started' && typeof ev.thread_id === 'string') sessionId = ev.thread_id;
    if (ev.type === 'item.completed') {
      const item = obj(ev.item);
      if (item.type === 'agent_message' && typeof item.text === 'string') text = item.text;
      else if (item.type === 'mcp_tool_call') tools.push(typeof item.tool === 'string' ? item.tool : 'mcp');
      else if (typeof item.type === 'string' && TOOL_OF_ITEM[item.type]) tools.push(TOOL_OF_ITEM[item.type]);
    }
    if (ev.type === 'turn.completed') {
      completed = true;
      const u = obj(ev.usage);
      tokensIn += num(u.input_tokens);
      tokensOut += num(u.output_tokens);
      cacheReadTokens += num(u.cached_input_tokens);
    }
    if (ev.type === 'turn.failed') error = `codex turn failed: ${String(obj(ev.error).message ?? 'unknown error')}`;
    if (ev.type === 'error' && typeof ev.message === 'string') error = `codex: ${ev.message}`;
  }
  if (!completed && !error) error = 'codex printed no turn.completed event';
  return { text, tokensIn, tokensOut, cacheReadTokens, toolsCalled: tools, sessionId, error: completed ? undefined : error };
}

/**
 * The model-provider part of a Codex config.toml: the top-level `model`, `model_provider` and
 * `model_reasoning_effort` keys and the `[model_providers.<id>]` tables, nothing else (no MCP
 * servers, profiles, instructions, trust or sandbox settings). Line-based: TOML tables and
 * top-level keys each start on their own line.
 */
export function codexProviderConfig(toml: string): string {
  const keep: string[] = [];
  let table: string | null = null;
  for (const line of toml.split(/\r?\n/)) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (header) {
      table = header[1];
      if (/^model_providers\./.test(table)) keep.push(line);
      continue;
    }
    if (table === null) {
      if (/^\s*(model|model_provider|model_reasoning_effort)\s*=/.test(line)) keep.push(line);
    } else if (/^model_providers\./.test(table) && line.trim() !== '') keep.push(line);
  }
  return keep.length ? keep.join('\n') + '\n' : '';
}

export const codexHome: AgentHomeSpec = {
  envVar: 'CODEX_HOME',
  // the agent record's own resolver (./home.ts): harvest, skills and replays agree on the home
  userHome: (env) => codexHomes({ env, home: env.HOME || os.homedir() })[0],
  carryLogin(userHome, privateHome) {
    const notes: string[] = [];
    const auth = path.join(userHome, 'auth.json');
    if (fs.existsSync(auth)) {
      // linked, not copied: a token refresh must land in the user's own file
      fs.symlinkSync(auth, path.join(privateHome, 'auth.json'));
      notes.push('login from auth.json');
    }
    const userConfig = path.join(userHome, 'config.toml');
    let model: string | undefined;
    if (fs.existsSync(userConfig)) {
      const provider = codexProviderConfig(fs.readFileSync(userConfig, 'utf8'));
      model = /^\s*model\s*=\s*"([^"]+)"/m.exec(provider)?.[1];
      if (provider) {
        fs.writeFileSync(path.join(privateHome, 'config.toml'), provider, { mode: 0o600 });
        notes.push('model provider from config.toml');
      }
    }
    return { env: {}, model, note: notes.join('; ') || 'no login carried (set CODEX_API_KEY or run `codex login`)' };
  },
  billsApiKey(env, userHome) {
    if (env.CODEX_API_KEY || env.OPENAI_API_KEY) return true;
    try {
      const a = JSON.parse(fs.readFileSync(path.join(userHome, 'auth.json'), 'utf8')) as { OPENAI_API_KEY?: unknown; auth_mode?: unknown };
      return a.auth_mode === 'apikey' || (typeof a.OPENAI_API_KEY === 'string' && a.OPENAI_API_KEY !== '');
    } catch {
      return false;
    }
  },
};

export const codexExec: ExecAdapter = {
  backend: 'codex',
  binary: 'codex',
  buildInvocation: buildCodexInvocation,
  skillPath: codexSkillPath,
  parseOutput: parseCodexOutput,
  home: codexHome,
  skillTools: [],
};
