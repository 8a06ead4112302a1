/** The words Claude Code's transcripts use: its tools and the blocks it wraps around prompts. */
import type { AgentVocabulary } from '../agent.js';

/** Blocks Claude Code puts before what the user typed (IDE context, reminders). */
export const CLAUDE_LEADING_ENVELOPES = ['system-reminder', 'ide_opened_file', 'ide_selection', 'ide_diagnostics'] as const;

/** Tools whose call loads a skill: `Skill`, and `SlashCommand` (a /name skill invoked by the model). */
export const CLAUDE_SKILL_TOOLS = ['Skill', 'SlashCommand'] as const;

export const claudeVocabulary: AgentVocabulary = {
  commandTools: ['Bash', 'PowerShell'],
  primaryCommandTool: 'Bash',
  skillTools: CLAUDE_SKILL_TOOLS,
  envelopeTags: [
    ...CLAUDE_LEADING_ENVELOPES,
    'command-name',
    'command-message',
    'command-args',
    'local-command-stdout',
    'local-command-stderr',
    'local-command-caveat',
    'task-notification',
    'bash-input',
    'bash-stdout',
    'bash-stderr',
    'user-prompt-submit-hook',
    'persisted-output',
  ],
};
