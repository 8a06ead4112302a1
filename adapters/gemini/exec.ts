/**
 * Gemini CLI headless: `gemini -p … --output-format stream-json`, prompt on stdin (the CLI appends
 * the `-p` text to stdin; ours is empty), JSONL events on stdout (init, message (assistant deltas),
 * tool_use, tool_result, error, result {stats}).
 *
 * Isolation: `GEMINI_CLI_HOME` points the CLI's home — settings, extensions, OAuth cache, the
 * chat recordings under `.gemini/tmp/` — at a folder inside the temporary workspace, so no session
 * is written to the user's ~/.gemini and neither their settings nor their extensions load; the
 * settings file written there switches off usage statistics, telemetry and auto-update.
 * Authentication therefore comes from the environment only (GEMINI_API_KEY, Vertex variables, or
 * GOOGLE_GEMINI_BASE_URL for a gateway). `--skip-trust` trusts the workspace for this run only, so
 * its `.gemini/skills` load. For the `target` role `--approval-mode auto_edit` approves edits and
 * leaves everything that would ask (the shell, web fetches) denied in headless mode; other roles
 * run in `plan` mode (read-only tools) with our system prompt ahead of the prompt, since the CLI
 * takes a replacement system prompt only from a file (GEMINI_SYSTEM_MD).
 * Flags verified against `gemini --help` of @google/gemini-cli 0.61.0.
 */
import os from 'node:os';
import { geminiHomes } from './home.js';
import { GEMINI_SKILL_TOOL } from './vocabulary.js';
import { isAgentSkill, num, obj, parseJsonLines, safeSkillName, type AgentHomeSpec, type ExecAdapter, type ExecInput, type ExecInvocation, type ExecResult, type ExecSkill } from '../exec-common.js';

/** The CLI's home for our runs, relative to the workspace (removed with it). */
export const GEMINI_ISOLATED_HOME = '.skillopt-gemini-home';

export const GEMINI_QUIET_SETTINGS = {
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, checkpointing: { enabled: false } },
};

/**
 * The auth type the isolated settings select, from the environment: without a selected type the
 * CLI takes GOOGLE_GEMINI_BASE_URL as a "gateway" login, which 0.61 refuses in headless mode.
 */
export function geminiAuthType(env: NodeJS.ProcessEnv = {}): string | undefined {
  if (env.GOOGLE_GENAI_USE_VERTEXAI === 'true') return 'vertex-ai';
  if (env.GEMINI_API_KEY) return 'gemini-api-key';
  return undefined;
}

export function buildGeminiInvocation(input: ExecInput): ExecInvocation {
  const argv = ['-p', '', '--output-format', 'stream-json', '--skip-trust'];
  if (input.model) argv.push('--model', input.model);
  argv.push('--approval-mode', input.mode === 'agent' ? 'auto_edit' : 'plan');
  const prompt = input.system ? `${input.system}\n\n${input.prompt}` : input.prompt;
  const auth = geminiAuthType(input.env);
  const settings = auth ? { ...GEMINI_QUIET_SETTINGS, security: { auth: { selectedType: auth } } } : GEMINI_QUIET_SETTINGS;
  const home = `${input.workspace.replace(/[\\/]+$/, '')}/${GEMINI_ISOLATED_HOME}`;
  return {
    argv,
    stdin: prompt,
    env: { GEMINI_CLI_HOME: home, GEMINI_TELEMETRY_ENABLED: 'false', GEMINI_CLI_NO_RELAUNCH: 'true' },
    files: { [`${GEMINI_ISOLATED_HOME}/.gemini/settings.json`]: `${JSON.stringify(settings, null, 2)}\n` },
  };
}

/** A skill goes where Gemini loads workspace skills; an instruction file becomes the workspace's GEMINI.md. */
export function geminiSkillPath(skill: ExecSkill): string {
  return isAgentSkill(skill.content) ? `.gemini/skills/${safeSkillName(skill.name)}/SKILL.md` : 'GEMINI.md';
}

export function parseGeminiOutput(stdout: string): ExecResult {
  const out: ExecResult = { text: '', tokensIn: 0, tokensOut: 0, toolsCalled: [] };
  let text = '';
  for (const ev of parseJsonLines(stdout)) {
    switch (ev.type) {
      case 'init':
        if (typeof ev.session_id === 'string') out.sessionId = ev.session_id;
        if (typeof ev.model === 'string') out.model = ev.model;
        break;
      case 'message':
        if (ev.role === 'assistant' && typeof ev.content === 'string') text = ev.delta === true ? text + ev.content : ev.content;
        break;
      case 'tool_use':
        if (typeof ev.tool_name === 'string') out.toolsCalled.push(ev.tool_name);
        break;
      case 'error':
        if (ev.severity === 'error' && typeof ev.message === 'string') out.error = ev.message;
        break;
      case 'result': {
        const stats = obj(ev.stats);
        out.tokensIn = num(stats.input_tokens);
        out.tokensOut = num(stats.output_tokens);
        if (ev.status === 'error') out.error = typeof obj(ev.error).message === 'string' ? (obj(ev.error).message as string) : 'gemini reported an error';
        break;
      }
    }
  }
  out.text = text.trim();
  return out;
}

/**
 * The replay home: the invocation itself already points GEMINI_CLI_HOME inside the workspace (and
 * that wins over this folder), so nothing of the user's is copied: the login comes from the
 * environment (GEMINI_API_KEY or the Vertex variables), never from their ~/.gemini OAuth cache.
 */
export const geminiHome: AgentHomeSpec = {
  envVar: 'GEMINI_CLI_HOME',
  // the agent record's own resolver (./home.ts): harvest, skills and replays agree on the home
  userHome: (env) => geminiHomes({ env, home: env.HOME || os.homedir() })[0],
  carryLogin: (_userHome, _privateHome, env) => ({ env: {}, note: geminiAuthType(env) ? 'login from the environment' : 'no login in the environment: set GEMINI_API_KEY (or the Vertex AI variables)' }),
  billsApiKey: (env) => Boolean(env.GEMINI_API_KEY),
};

export const geminiExec: ExecAdapter = {
  backend: 'gemini',
  binary: 'gemini',
  buildInvocation: buildGeminiInvocation,
  skillPath: geminiSkillPath,
  parseOutput: parseGeminiOutput,
  home: geminiHome,
  skillTools: [GEMINI_SKILL_TOOL],
};
