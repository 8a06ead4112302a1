/** The words Pi's sessions use: its shell tool (`bash`). Skills are read with its `read` tool, no skill tool. */
import type { AgentVocabulary } from '../agent.js';

export const piVocabulary: AgentVocabulary = {
  commandTools: ['bash'],
  primaryCommandTool: 'bash',
  skillTools: [],
  envelopeTags: [],
};
