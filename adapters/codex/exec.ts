/**
 * Codex in exec mode: `codex exec --json -`, prompt on stdin, JSONL events on stdout
 * (thread.started, item.completed {agent_message | command_execution | file_change | mcp_tool_call
 * | web_search}, turn.completed {usage}, turn.failed, error).
 *
 * Isolation: Codex's sandbox limits writes, not reads, so for our runs the shell tools are switched
 * off (`--disable shell_tool --disable unified_exec`) and the sandbox is read-only: the agent can
 * answer from its context but cannot open or change files anywhere (verified against the real CLI
 * in tests/integration/llm-codex-cli.test.ts). Because it cannot open a skill's SKILL.md on
 * demand, the skill is installed as the workspace's AGENTS.md, which Codex injects whole.
 * Flags verified against `codex exec --help` of @openai/codex 0.169.0.
 */
import { num, obj, parseJsonLines, type ExecAdapter, type ExecInput, type ExecInvocation, type ExecResult, type ExecSkill } from '../exec-common.js';

export function buildCodexInvocation(input: ExecInput): ExecInvocation {
  const argv = [
    'exec',
    '--json',
    '--skip-git-repo-check',
    '--sandbox',
    'read-only',
    '--disable',
    'shell_tool',
    '--disable',
    'unified_exec',
    '--color',
    'never',
    '-C',
    input.workspace,
  ];
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
    }
    if (ev.type === 'turn.failed') error = `codex turn failed: ${String(obj(ev.error).message ?? 'unknown error')}`;
    if (ev.type === 'error' && typeof ev.message === 'string') error = `codex: ${ev.message}`;
  }
  if (!completed && !error) error = 'codex printed no turn.completed event';
  return { text, tokensIn, tokensOut, toolsCalled: tools, sessionId, error: completed ? undefined : error };
}

export const codexExec: ExecAdapter = {
  backend: 'codex',
  binary: 'codex',
  buildInvocation: buildCodexInvocation,
  skillPath: codexSkillPath,
  parseOutput: parseCodexOutput,
};
