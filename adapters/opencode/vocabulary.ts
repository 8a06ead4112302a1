/** The words OpenCode's sessions use (tool names as its parts record them). */
import type { AgentVocabulary } from '../agent.js';

/** its skill-loading tool (opencode.ai/docs/skills: "loaded on-demand via the native skill tool") */
export const OPENCODE_SKILL_TOOL = 'skill';

export const opencodeVocabulary: AgentVocabulary = {
  commandTools: ['bash'],
  primaryCommandTool: 'bash',
  skillTools: [OPENCODE_SKILL_TOOL],
  envelopeTags: [],
};
