/**
 * The words GitHub Copilot's chats use (Copilot CLI and VS Code agent mode): command tools, the
 * skill tool, and the context blocks VS Code and the CLI wrap around a prompt.
 */
import type { AgentVocabulary } from '../agent.js';

/** User messages of the Copilot CLI event log that start with one of these are injected, not typed. */
export const COPILOT_HIDDEN_CONTENT = ['<skill-context', '<reminder>', '<system_notification>', '<system-reminder>'];

export const copilotVocabulary: AgentVocabulary = {
  commandTools: ['bash', 'powershell', 'run_in_terminal'],
  primaryCommandTool: 'bash',
  skillTools: ['skill'],
  envelopeTags: [
    'system-reminder',
    'system_reminder',
    'reminder',
    'system_notification',
    'skill-context',
    'environment_info',
    'workspace_info',
    'context',
    'editorContext',
    'reminderInstructions',
    'attachments',
    'attachment',
    'current_datetime',
  ],
};
