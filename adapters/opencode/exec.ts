/**
 * OpenCode headless: `opencode run --pure --format json`, prompt on stdin, JSONL events on stdout
 * (step_start, text, reasoning, tool_use, step_finish {tokens, cost}, error), one session per run.
 *
 * Each run selects an agent of our own, defined in OPENCODE_CONFIG_CONTENT (which OpenCode merges
 * over every config file): for the `target` role `skillopt-sleep-target`, whose permission denies
 * everything (`"*": "deny"`) but the file tools (read, edit/write, glob, grep, list), the skill tool
 * and the todo list — no shell, no web fetch, no sub-agents, and `external_directory` denied, so a
 * read or edit outside the workspace is refused (verified: a read of a file outside it returns
 * OpenCode's "prevents you from using this specific tool call"). Other roles run
 * `skillopt-sleep-text`: every tool denied (none is offered to the model) and our system prompt as
 * the agent's prompt. `--pure` loads no external plugin (without it OpenCode runs `npm install` of
 * its plugin package in the config folder at start-up), `--title` skips the title-generation call,
 * `snapshot: false` keeps it from shadowing the workspace in a git store of its own.
 *
 * Isolation: the private home is XDG_DATA_HOME (OpenCode's database, logs and auth live in
 * `<data>/opencode`), with XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_STATE_HOME and HOME beside it (OpenCode
 * reads `~/.opencode/` as a global config folder: its skills and instructions reached the model until
 * HOME moved; ~/.aws and ~/.config/gcloud are linked in for the cloud providers' logins) and
 * OPENCODE_DB pointed inside it, so no session lands in the user's opencode.db and neither their
 * global AGENTS.md, skills, plugins nor MCP servers load; OPENCODE_DISABLE_EXTERNAL_SKILLS and
 * OPENCODE_DISABLE_CLAUDE_CODE keep the `.agents`/`.claude` skills and ~/.claude/CLAUDE.md of their real
 * home out too (verified against 1.18.33: none reaches the model, `.opencode/skills` still does). Only the login (auth.json, linked) and
 * the model settings of their global config (`provider`, `model`, `small_model`,
 * `enabled_providers`, `disabled_providers`) are carried over. OPENCODE_CONFIG, OPENCODE_CONFIG_DIR
 * and OPENCODE_PERMISSION of the user's environment are emptied for the run.
 * Flags verified against `opencode run --help` of opencode-ai 1.18.33 (docs/replay-targets.md).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jsonrepair } from 'jsonrepair';
import { isAgentSkill, num, obj, parseJsonLines, safeSkillName, type AgentHomeSpec, type ExecAdapter, type ExecInput, type ExecInvocation, type ExecResult, type ExecSkill } from '../exec-common.js';
import { opencodeDataDirs } from './paths.js';
import { OPENCODE_SKILL_TOOL } from './vocabulary.js';

export const OPENCODE_TARGET_AGENT = 'skillopt-sleep-target';
export const OPENCODE_TEXT_AGENT = 'skillopt-sleep-text';

/** What the target may do: the file tools inside the workspace, its skills and its todo list. */
export const OPENCODE_TARGET_PERMISSION: Record<string, string> = {
  '*': 'deny',
  read: 'allow',
  edit: 'allow',
  glob: 'allow',
  grep: 'allow',
  list: 'allow',
  skill: 'allow',
  todowrite: 'allow',
  todoread: 'allow',
  external_directory: 'deny',
};

/** The prompt of the text agent when the request brings no system prompt (it replaces OpenCode's coding prompt). */
const TEXT_AGENT_PROMPT = 'Answer the request directly, in the format it asks for. You have no tools.';

export function buildOpencodeInvocation(input: ExecInput): ExecInvocation {
  const agent = input.mode === 'agent' ? OPENCODE_TARGET_AGENT : OPENCODE_TEXT_AGENT;
  const config = {
    autoupdate: false,
    share: 'disabled',
    snapshot: false,
    agent: {
      [OPENCODE_TARGET_AGENT]: { mode: 'primary', description: 'skillopt-sleep replay', permission: OPENCODE_TARGET_PERMISSION },
      [OPENCODE_TEXT_AGENT]: { mode: 'primary', description: 'skillopt-sleep completion', prompt: input.system || TEXT_AGENT_PROMPT, permission: { '*': 'deny' } },
    },
  };
  const argv = ['run', '--pure', '--format', 'json', '--agent', agent, '--title', 'skillopt-sleep', '--dir', input.workspace];
  if (input.model) argv.push('--model', input.model);
  // the target keeps OpenCode's own coding prompt: our instructions go ahead of the task, as for codex
  const stdin = input.mode === 'agent' && input.system ? `${input.system}\n\n${input.prompt}` : input.prompt;
  return {
    argv,
    stdin,
    env: {
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      OPENCODE_CONFIG: '',
      OPENCODE_CONFIG_DIR: '',
      OPENCODE_PERMISSION: '',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_SHARE: '1',
      OPENCODE_DISABLE_TERMINAL_TITLE: '1',
      // the user's ~/.agents and ~/.claude skills and ~/.claude/CLAUDE.md would load from their real
      // home (HOME is not moved): ours sits in .opencode/skills, which stays on
      OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
      OPENCODE_DISABLE_CLAUDE_CODE: '1',
      NO_COLOR: '1',
    },
  };
}

/** An Agent Skill goes where OpenCode loads project skills; an instruction file becomes the workspace's AGENTS.md. */
export function opencodeSkillPath(skill: ExecSkill): string {
  return isAgentSkill(skill.content) ? `.opencode/skills/${safeSkillName(skill.name)}/SKILL.md` : 'AGENTS.md';
}

export function parseOpencodeOutput(stdout: string): ExecResult {
  const out: ExecResult = { text: '', tokensIn: 0, tokensOut: 0, cacheReadTokens: 0, toolsCalled: [] };
  // the answer is the text of the last step that wrote any (earlier steps narrate tool calls)
  let stepText = '';
  let answer = '';
  let finished = false;
  let cost = 0;
  for (const ev of parseJsonLines(stdout)) {
    if (typeof ev.sessionID === 'string') out.sessionId = ev.sessionID;
    const part = obj(ev.part);
    switch (ev.type) {
      case 'step_start':
        stepText = '';
        break;
      case 'text':
        if (typeof part.text === 'string') stepText += part.text;
        break;
      case 'tool_use':
        if (typeof part.tool === 'string') out.toolsCalled.push(part.tool);
        break;
      case 'step_finish': {
        finished = true;
        if (stepText.trim()) answer = stepText;
        const tokens = obj(part.tokens);
        const cache = obj(tokens.cache);
        out.tokensIn += num(tokens.input) + num(cache.read) + num(cache.write);
        out.tokensOut += num(tokens.output) + num(tokens.reasoning);
        out.cacheReadTokens = (out.cacheReadTokens ?? 0) + num(cache.read);
        cost += num(part.cost);
        break;
      }
      case 'error': {
        const e = obj(ev.error);
        const data = obj(e.data);
        out.error = `opencode: ${String(data.message ?? e.message ?? e.name ?? 'unknown error')}`;
        break;
      }
    }
  }
  if (stepText.trim() && !answer) answer = stepText;
  out.text = answer.trim();
  if (cost > 0) out.costUsd = cost;
  if (!finished && !out.error) out.error = 'opencode printed no step_finish event';
  return out;
}

/** The model settings of an OpenCode config: the keys that say which provider and model, nothing else. */
const CARRIED_CONFIG_KEYS = ['provider', 'model', 'small_model', 'enabled_providers', 'disabled_providers'] as const;

/** Reads a JSONC config (comments and trailing commas allowed, as OpenCode's are); null when absent or unreadable. */
function readJsonc(file: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(jsonrepair(fs.readFileSync(file, 'utf8')));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The user's global config folder (`$XDG_CONFIG_HOME/opencode`, else ~/.config/opencode). */
export function opencodeUserConfigDir(env: NodeJS.ProcessEnv): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config'), 'opencode');
}

/** The model part of the user's global config files (later files win, as in OpenCode), or null. */
export function opencodeModelConfig(configDir: string): Record<string, unknown> | null {
  const merged: Record<string, unknown> = {};
  for (const name of ['config.json', 'opencode.json', 'opencode.jsonc']) {
    const c = readJsonc(path.join(configDir, name));
    if (!c) continue;
    for (const k of CARRIED_CONFIG_KEYS) if (c[k] !== undefined) merged[k] = c[k];
  }
  return Object.keys(merged).length ? merged : null;
}

/**
 * `{file:…}` references of a carried config, made absolute: OpenCode resolves `~/` against HOME (which
 * the replay moves) and a relative path against the config file's folder (which the replay moves too).
 */
export function absoluteFileRefs(config: Record<string, unknown>, userHome: string, configDir: string): Record<string, unknown> {
  const text = JSON.stringify(config).replace(/\{file:([^}]+)\}/g, (_m, ref: string) => {
    const p = ref === '~' || ref.startsWith('~/') ? path.join(userHome, ref.slice(1)) : path.isAbsolute(ref) ? ref : path.resolve(configDir, ref);
    return `{file:${p.replace(/\\/g, '/')}}`;
  });
  return JSON.parse(text) as Record<string, unknown>;
}

/** Cloud logins the provider SDKs read from the home folder (Bedrock, Vertex AI): linked into the private HOME. */
const HOME_LOGINS = ['.aws', path.join('.config', 'gcloud')];

export const opencodeHome: AgentHomeSpec = {
  // OpenCode's database, auth and logs live in $XDG_DATA_HOME/opencode: the private home replaces it
  envVar: 'XDG_DATA_HOME',
  userHome: (env) => opencodeDataDirs({ env, home: env.HOME || os.homedir() })[0],
  carryLogin(userHome, privateHome, env) {
    const notes: string[] = [];
    const realHome = env.HOME || os.homedir();
    const data = path.join(privateHome, 'opencode');
    const config = path.join(privateHome, 'config');
    // OpenCode also reads ~/.opencode/ (config, skills, instructions) as a global folder: HOME moves too
    const home = path.join(privateHome, 'home');
    fs.mkdirSync(data, { recursive: true, mode: 0o700 });
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    for (const rel of HOME_LOGINS) {
      if (!fs.existsSync(path.join(realHome, rel))) continue;
      fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true, mode: 0o700 });
      fs.symlinkSync(path.join(realHome, rel), path.join(home, rel));
    }
    const auth = path.join(userHome, 'auth.json');
    if (fs.existsSync(auth)) {
      // linked, not copied: a token refresh must land in the user's own file
      fs.symlinkSync(auth, path.join(data, 'auth.json'));
      notes.push('login from auth.json');
    }
    const userConfigDir = opencodeUserConfigDir(env);
    const found = opencodeModelConfig(userConfigDir);
    const carried = found ? absoluteFileRefs(found, realHome, userConfigDir) : null;
    if (carried) {
      fs.mkdirSync(path.join(config, 'opencode'), { recursive: true, mode: 0o700 });
      fs.writeFileSync(path.join(config, 'opencode', 'opencode.json'), `${JSON.stringify(carried, null, 2)}\n`, { mode: 0o600 });
      notes.push('model settings from opencode.json');
    }
    return {
      env: {
        HOME: home,
        XDG_CONFIG_HOME: config,
        XDG_CACHE_HOME: path.join(privateHome, 'cache'),
        XDG_STATE_HOME: path.join(privateHome, 'state'),
        OPENCODE_DB: path.join(data, 'opencode.db'),
      },
      model: typeof carried?.model === 'string' ? carried.model : undefined,
      note: notes.join('; ') || 'no login carried (run `opencode auth login`, or set the provider key in the environment)',
    };
  },
  billsApiKey(env, userHome) {
    if (env.ANTHROPIC_API_KEY || env.OPENAI_API_KEY) return true;
    try {
      const a = JSON.parse(fs.readFileSync(path.join(userHome, 'auth.json'), 'utf8')) as Record<string, { type?: unknown }>;
      return Object.values(a).some((v) => v && v.type === 'api');
    } catch {
      return false;
    }
  },
};

export const opencodeExec: ExecAdapter = {
  backend: 'opencode',
  binary: 'opencode',
  buildInvocation: buildOpencodeInvocation,
  skillPath: opencodeSkillPath,
  parseOutput: parseOpencodeOutput,
  home: opencodeHome,
  skillTools: [OPENCODE_SKILL_TOOL],
};
