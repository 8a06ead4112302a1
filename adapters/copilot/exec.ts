/**
 * GitHub Copilot CLI in prompt mode: `copilot -p <prompt> --output-format json` (JSONL events).
 * The prompt goes in argv (spawned without a shell, so nothing is interpreted); Copilot's
 * prompt mode has no documented stdin form for the prompt.
 *
 * Isolation: `--allow-all-tools` is required in prompt mode, so the dangerous ones are denied by
 * name (`--deny-tool shell`, `--deny-tool url`), path verification stays on (no
 * --allow-all-paths, plus --disallow-temp-dir) so file tools are confined to the workspace (cwd),
 * `--trust-folder` trusts only this new workspace for this one session so its `.github/skills`
 * load, and updates/telemetry/ask-user are off.
 *
 * No trace: a private COPILOT_HOME per run (its session state, logs and history stay there and go
 * with the workspace), which also keeps the user's personal instructions and skills out of the
 * replay. The login is carried by the token variables (COPILOT_GITHUB_TOKEN, GH_TOKEN,
 * GITHUB_TOKEN) or BYOK provider variables as they are, else by a copy of the user's config.json
 * (where `copilot login` keeps the account when no keychain is used) — a copy, so nothing the
 * replay writes lands in the user's file.
 * Flags verified against `copilot --help` of @github/copilot 1.0.102.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copilotHomes } from './home.js';
import { isAgentSkill, type AgentHomeSpec, num, obj, parseJsonLines, safeSkillName, type ExecAdapter, type ExecInput, type ExecInvocation, type ExecResult, type ExecSkill } from '../exec-common.js';

/** File tools and skill loading only: no bash, no web, no sub-agents. */
export const COPILOT_TARGET_TOOLS = ['view', 'create', 'edit', 'grep', 'glob', 'skill'];
export const COPILOT_TEXT_TOOLS = ['view'];

export function buildCopilotInvocation(input: ExecInput): ExecInvocation {
  const prompt = input.system ? `${input.system}\n\n${input.prompt}` : input.prompt;
  const argv = [
    '-p',
    prompt,
    '--output-format',
    'json',
    '--allow-all-tools',
    `--available-tools=${(input.mode === 'agent' ? COPILOT_TARGET_TOOLS : COPILOT_TEXT_TOOLS).join(',')}`,
    '--deny-tool',
    'shell',
    '--deny-tool',
    'url',
    '--disallow-temp-dir',
    '--trust-folder',
    '--no-ask-user',
    '--no-auto-update',
    '--disable-client-telemetry',
    '--no-color',
  ];
  if (input.mode === 'text') argv.push('--deny-tool', 'write');
  if (input.model) argv.push('--model', input.model);
  return { argv, env: { COPILOT_AUTO_UPDATE: 'false', NO_COLOR: '1' } };
}

export function copilotSkillPath(skill: ExecSkill): string {
  return isAgentSkill(skill.content) ? `.github/skills/${safeSkillName(skill.name)}/SKILL.md` : '.github/copilot-instructions.md';
}

/**
 * Copilot CLI JSONL (as printed by 1.0.102): `assistant.message` {data.content}, `tool.execution_start`
 * {data.toolName}, `session.error`, and a final `result` {sessionId, exitCode, usage} — which reports
 * premium requests, not tokens: those are read from its session log (readCopilotSessionUsage).
 */
export function parseCopilotOutput(stdout: string): ExecResult {
  const events = parseJsonLines(stdout);
  const tools: string[] = [];
  let text = '';
  let tokensIn = 0;
  let tokensOut = 0;
  let sessionId: string | undefined;
  let model: string | undefined;
  let error: string | undefined;
  for (const ev of events) {
    const data = obj(ev.data);
    if (typeof data.sessionId === 'string') sessionId = data.sessionId;
    if (ev.type === 'result' && typeof ev.sessionId === 'string') sessionId = ev.sessionId;
    if (ev.type === 'result' && typeof ev.exitCode === 'number' && ev.exitCode !== 0) error = `copilot exited with ${ev.exitCode}`;
    if (ev.type === 'assistant.message' && typeof data.content === 'string' && data.content.trim() !== '') text = data.content;
    if (ev.type === 'tool.execution_start' && typeof data.toolName === 'string') tools.push(data.toolName);
    if (ev.type === 'assistant.usage' || ev.type === 'session.usage' || ev.type === 'result') {
      tokensIn += num(data.inputTokens) + num(obj(data.usage).inputTokens);
      tokensOut += num(data.outputTokens) + num(obj(data.usage).outputTokens);
      if (typeof data.model === 'string') model = data.model;
    }
    if (ev.type === 'session.error' || ev.type === 'error') error = `copilot: ${String(data.message ?? ev.message ?? 'error')}`;
  }
  if (!text && !error && events.length === 0 && stdout.trim() !== '') text = stdout.trim(); // plain-text output (older CLIs)
  return { text, tokensIn, tokensOut, toolsCalled: tools, sessionId, model, error: text ? undefined : error };
}

/**
 * Copilot prints no token counts on stdout (its `result` event reports premium requests), but it
 * writes them to its own session log: `<COPILOT_HOME>/session-state/<sessionId>/events.jsonl` has a
 * `session.usage_record` per model call ({usage: {model, inputTokens, outputTokens, cacheReadTokens}})
 * and, at a clean exit, `session.shutdown` with the totals per model (`modelMetrics`). The totals
 * win; the per-call records stand in when the process was cut before its shutdown event.
 * (Seen in @github/copilot 1.0.102; inputTokens counts the cached prompt tokens too, as OpenAI's do.)
 */
export function readCopilotSessionUsage(home: string, parsed: ExecResult): Partial<ExecResult> | undefined {
  if (!parsed.sessionId || !/^[\w-]+$/.test(parsed.sessionId)) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(path.join(home, 'session-state', parsed.sessionId, 'events.jsonl'), 'utf8');
  } catch {
    return undefined;
  }
  const perCall = { in: 0, out: 0, cache: 0, n: 0, model: undefined as string | undefined };
  let totals: { in: number; out: number; cache: number; model?: string } | undefined;
  for (const ev of parseJsonLines(text)) {
    const data = obj(ev.data);
    if (ev.type === 'session.usage_record') {
      const u = obj(data.usage);
      perCall.in += num(u.inputTokens);
      perCall.out += num(u.outputTokens);
      perCall.cache += num(u.cacheReadTokens);
      perCall.n++;
      if (typeof u.model === 'string') perCall.model = u.model;
    }
    if (ev.type === 'session.shutdown') {
      const metrics = obj(data.modelMetrics ?? obj(data.accountingSnapshot).modelMetrics);
      const t = { in: 0, out: 0, cache: 0, model: undefined as string | undefined };
      for (const [model, m] of Object.entries(metrics)) {
        const u = obj(obj(m).usage);
        t.in += num(u.inputTokens);
        t.out += num(u.outputTokens);
        t.cache += num(u.cacheReadTokens);
        t.model = model;
      }
      if (t.in || t.out) totals = t;
    }
  }
  const use = totals ?? (perCall.n ? perCall : undefined);
  if (!use || (!use.in && !use.out)) return undefined;
  return { tokensIn: use.in, tokensOut: use.out, ...(use.cache ? { cacheReadTokens: use.cache } : {}), ...(use.model && !parsed.model ? { model: use.model } : {}) };
}

const COPILOT_TOKEN_ENV = ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN', 'COPILOT_PROVIDER_BASE_URL'];

export const copilotHome: AgentHomeSpec = {
  envVar: 'COPILOT_HOME',
  // the agent record's own resolver (./home.ts): harvest, skills and replays agree on the home
  userHome: (env) => copilotHomes({ env, home: env.HOME || os.homedir() })[0],
  carryLogin(userHome, privateHome, env) {
    if (COPILOT_TOKEN_ENV.some((k) => env[k])) return { env: {}, note: 'login from the environment' };
    const config = path.join(userHome, 'config.json');
    if (fs.existsSync(config)) {
      fs.copyFileSync(config, path.join(privateHome, 'config.json'));
      fs.chmodSync(path.join(privateHome, 'config.json'), 0o600);
      return { env: {}, note: 'login from a copy of config.json' };
    }
    return { env: {}, note: 'no login carried (set COPILOT_GITHUB_TOKEN)' };
  },
  billsApiKey: (env) => !!env.COPILOT_PROVIDER_BASE_URL && !!(env.COPILOT_PROVIDER_API_KEY || env.COPILOT_PROVIDER_BEARER_TOKEN),
};

export const copilotExec: ExecAdapter = {
  backend: 'copilot',
  binary: 'copilot',
  buildInvocation: buildCopilotInvocation,
  skillPath: copilotSkillPath,
  parseOutput: parseCopilotOutput,
  readUsage: readCopilotSessionUsage,
  home: copilotHome,
  skillTools: ['skill'],
};
