/** The words Codex's rollouts use: its command tools and the context blocks it injects as user items. */
import type { AgentVocabulary } from '../agent.js';

/** Whole user items that are harness context, never typed by the human. */
export const CODEX_INJECTED_TAGS = [
  'environment_context',
  'INSTRUCTIONS',
  'user_instructions',
  'permissions instructions',
  'collaboration_mode',
  'multi_agent_mode',
  'apps_instructions',
  'skill',
  'turn_aborted',
  'subagent_notification',
  'goal_context',
  'codex_internal_context',
  'recommended_plugins',
  'user_shell_command',
] as const;

export const codexVocabulary: AgentVocabulary = {
  // `command_execution` is what `codex exec --json` reports for a shell item
  commandTools: ['shell', 'shell_command', 'exec_command', 'local_shell', 'command_execution'],
  primaryCommandTool: 'shell',
  skillTools: [],
  envelopeTags: CODEX_INJECTED_TAGS,
};
