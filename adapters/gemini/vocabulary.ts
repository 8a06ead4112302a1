/** The words Gemini CLI's chats use: its shell and skill tools, and the context block it injects. */
import type { AgentVocabulary } from '../agent.js';

/** The first user message of a session is this injected block (date, OS, folder listing). */
export const GEMINI_SESSION_CONTEXT_TAG = 'session_context';
export const GEMINI_SKILL_TOOL = 'activate_skill';

export const geminiVocabulary: AgentVocabulary = {
  commandTools: ['run_shell_command'],
  primaryCommandTool: 'run_shell_command',
  skillTools: [GEMINI_SKILL_TOOL],
  envelopeTags: [GEMINI_SESSION_CONTEXT_TAG],
};
