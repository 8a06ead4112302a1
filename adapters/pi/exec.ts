/**
 * Pi headless: `pi -p --mode json --no-session`, prompt on stdin (print mode reads piped stdin as
 * the prompt), JSON lines on stdout (a `session` header, then agent events: message_end carries each
 * assistant message with its usage and cost, tool_execution_start each tool call).
 *
 * Pi has no permission system of its own, so the `target` role gets only its file tools (`--tools
 * read,edit,write,grep,find,ls`, no bash) and an extension of ours (`-e`, written into the
 * workspace's `.skillopt-pi/`) blocks any of them whose path resolves outside the workspace (Pi's
 * documented `tool_call` gate). `--no-extensions` keeps the user's and the project's extensions
 * out; `--no-skills --skill <workspace>/.pi/skills` loads the workspace's skills only (the skill under
 * test is installed there), not ~/.agents/skills nor the `.agents/skills` of the folders above the
 * workspace (verified: a marker skill in ~/.agents/skills reached the model without these flags, not
 * with them); context files still load, so an AGENTS.md skill is found as Pi would. Other roles run with `--no-tools`,
 * `--no-skills` and `--no-context-files`, our system prompt appended from a file in the workspace
 * (`--append-system-prompt` reads a file path; nothing of the prompt is in argv).
 *
 * Isolation: a private PI_CODING_AGENT_DIR per run (with `--no-session` no session file is written
 * at all), carrying only the login (auth.json, linked) and the model settings: models.json (custom
 * providers) and the default provider/model of settings.json. PI_OFFLINE=1 turns off every startup
 * network call (update check, install telemetry). Flags verified against `pi --help` of
 * @mariozechner/pi-coding-agent 0.73.1 (docs/replay-targets.md).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAgentSkill, num, obj, parseJsonLines, safeSkillName, type AgentHomeSpec, type ExecAdapter, type ExecInput, type ExecInvocation, type ExecResult, type ExecSkill } from '../exec-common.js';
import { PI_HOME_ENV, piHomes } from './home.js';

/** Our files for a run, relative to the workspace (excluded from what the agent changed). */
export const PI_RUN_DIR = '.skillopt-pi';
const CONFINE_FILE = `${PI_RUN_DIR}/confine.mjs`;
const SYSTEM_FILE = `${PI_RUN_DIR}/system.md`;
/** Where Pi loads a project's own skills, and where a replay installs the skill under test. */
const PI_PROJECT_SKILLS = '.pi/skills';

/** The target's tools: Pi's file tools, never its unsandboxed bash. */
export const PI_TARGET_TOOLS = ['read', 'edit', 'write', 'grep', 'find', 'ls'];

/** Replaces Pi's coding prompt for the text roles (the real instructions follow from SYSTEM_FILE). */
const TEXT_SYSTEM_PROMPT = 'Answer the request directly, in the format it asks for. You have no tools.';

/**
 * The extension that confines the file tools to the workspace: a path (Pi strips a leading `@` and
 * expands `~`) that resolves, through symlinks, outside the workspace is blocked with a reason the
 * model sees. Tools called without a path work in the cwd, the workspace.
 */
export function piConfineExtension(workspace: string): string {
  return `// written by skillopt-sleep for one replay: Pi's file tools may not leave the workspace
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const ROOT = ${JSON.stringify(workspace)};
function realLoose(p) {
  const tail = [];
  let cur = p;
  for (;;) {
    try { return path.join(fs.realpathSync(cur), ...tail.reverse()); } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return p;
      tail.push(path.basename(cur));
      cur = parent;
    }
  }
}
const rootReal = realLoose(ROOT);
export default function confine(pi) {
  pi.on('tool_call', async (event) => {
    if (event.toolName === 'bash') return { block: true, reason: 'the shell is not available in this replay' };
    const raw = event.input && typeof event.input.path === 'string' ? event.input.path : undefined;
    if (raw === undefined || raw === '') return undefined;
    let p = raw.startsWith('@') ? raw.slice(1) : raw;
    if (p === '~' || p.startsWith('~/')) p = path.join(os.homedir(), p.slice(1));
    const real = realLoose(path.resolve(ROOT, p));
    if (real === rootReal || real.startsWith(rootReal + path.sep)) return undefined;
    return { block: true, reason: 'Permission denied: ' + raw + ' is outside the workspace' };
  });
}
`;
}

export function buildPiInvocation(input: ExecInput): ExecInvocation {
  const argv = ['-p', '--mode', 'json', '--no-session', '--no-extensions', '--no-prompt-templates', '--no-themes'];
  const files: Record<string, string> = {};
  const ws = input.workspace.replace(/[\\/]+$/, '');
  let stdin = input.prompt;
  if (input.mode === 'agent') {
    files[CONFINE_FILE] = piConfineExtension(ws);
    // only the workspace's skills: Pi would also load ~/.agents/skills and every `.agents/skills` above
    // the workspace (the state dir sits under the user's home), i.e. the user's personal skills
    argv.push('--tools', PI_TARGET_TOOLS.join(','), '-e', `${ws}/${CONFINE_FILE}`, '--no-skills', '--skill', `${ws}/${PI_PROJECT_SKILLS}`);
    // the target keeps Pi's own coding prompt: our instructions go ahead of the task, as for codex
    if (input.system) stdin = `${input.system}\n\n${input.prompt}`;
  } else {
    argv.push('--no-tools', '--no-skills', '--no-context-files', '--system-prompt', TEXT_SYSTEM_PROMPT);
    if (input.system) {
      files[SYSTEM_FILE] = input.system;
      argv.push('--append-system-prompt', `${ws}/${SYSTEM_FILE}`);
    }
  }
  if (input.model) argv.push('--model', input.model);
  return { argv, stdin, env: { PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' }, files };
}

/** An Agent Skill goes where Pi loads project skills; an instruction file becomes the workspace's AGENTS.md. */
export function piSkillPath(skill: ExecSkill): string {
  return isAgentSkill(skill.content) ? `${PI_PROJECT_SKILLS}/${safeSkillName(skill.name)}/SKILL.md` : 'AGENTS.md';
}

function messageText(message: Record<string, unknown>): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => obj(c))
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('');
}

export function parsePiOutput(stdout: string): ExecResult {
  const out: ExecResult = { text: '', tokensIn: 0, tokensOut: 0, cacheReadTokens: 0, toolsCalled: [] };
  let cost = 0;
  let ended = false;
  for (const ev of parseJsonLines(stdout)) {
    if (ev.type === 'session' && typeof ev.id === 'string') out.sessionId = ev.id;
    if (ev.type === 'tool_execution_start' && typeof ev.toolName === 'string') out.toolsCalled.push(ev.toolName);
    if (ev.type === 'agent_end') ended = true;
    if (ev.type !== 'message_end') continue;
    const m = obj(ev.message);
    if (m.role !== 'assistant') continue;
    const u = obj(m.usage);
    out.tokensIn += num(u.input) + num(u.cacheRead) + num(u.cacheWrite);
    out.tokensOut += num(u.output);
    out.cacheReadTokens = (out.cacheReadTokens ?? 0) + num(u.cacheRead);
    cost += num(obj(u.cost).total);
    if (typeof m.model === 'string') out.model = m.model;
    const text = messageText(m);
    if (text.trim()) out.text = text.trim();
    if (m.stopReason === 'error' || m.stopReason === 'aborted') out.error = `pi: ${typeof m.errorMessage === 'string' ? m.errorMessage : `the model call ended with ${String(m.stopReason)}`}`;
  }
  if (cost > 0) out.costUsd = cost;
  if (!ended && !out.error) out.error = 'pi printed no agent_end event';
  return out;
}

/** The keys of the user's settings.json that pick the model; nothing else (no packages, extensions, hooks). */
const CARRIED_SETTINGS = ['defaultProvider', 'defaultModel', 'defaultThinkingLevel'] as const;

function readJson(file: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export const piHome: AgentHomeSpec = {
  envVar: PI_HOME_ENV,
  // the agent record's own resolver (./home.ts): harvest, skills and replays agree on the home
  userHome: (env) => piHomes({ env, home: env.HOME || os.homedir() })[0],
  carryLogin(userHome, privateHome) {
    const notes: string[] = [];
    const auth = path.join(userHome, 'auth.json');
    if (fs.existsSync(auth)) {
      // linked, not copied: a token refresh must land in the user's own file
      fs.symlinkSync(auth, path.join(privateHome, 'auth.json'));
      notes.push('login from auth.json');
    }
    const models = path.join(userHome, 'models.json');
    if (fs.existsSync(models)) {
      fs.copyFileSync(models, path.join(privateHome, 'models.json'));
      fs.chmodSync(path.join(privateHome, 'models.json'), 0o600);
      notes.push('custom providers from models.json');
    }
    const user = readJson(path.join(userHome, 'settings.json')) ?? {};
    const settings: Record<string, unknown> = { enableInstallTelemetry: false };
    for (const k of CARRIED_SETTINGS) if (user[k] !== undefined) settings[k] = user[k];
    fs.writeFileSync(path.join(privateHome, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
    const model = typeof user.defaultModel === 'string' ? user.defaultModel : undefined;
    if (model) notes.push('default model from settings.json');
    return {
      // a session folder of the user's environment would win over the private home's
      env: { PI_CODING_AGENT_SESSION_DIR: path.join(privateHome, 'sessions') },
      model,
      note: notes.join('; ') || 'no login carried (run `pi` and /login once, or set the provider key in the environment)',
    };
  },
  billsApiKey(env, userHome) {
    if (env.ANTHROPIC_API_KEY || env.OPENAI_API_KEY || env.GEMINI_API_KEY) return true;
    const auth = readJson(path.join(userHome, 'auth.json')) ?? {};
    return Object.values(auth).some((v) => obj(v).type === 'api_key');
  },
};

export const piExec: ExecAdapter = {
  backend: 'pi',
  binary: 'pi',
  buildInvocation: buildPiInvocation,
  skillPath: piSkillPath,
  parseOutput: parsePiOutput,
  home: piHome,
  // Pi reads a skill with its `read` tool (no skill tool): loading cannot be told from tool names
  skillTools: [],
};
