/**
 * The words Antigravity CLI's transcripts use. `run_command` is its shell tool (the migration guide's
 * tool table and the captured session nizos/probity test/fixtures/antigravity-cli/real-session.jsonl).
 * No skill-loading tool name is documented (skills "become slash commands", per the guide): none is
 * claimed. The blocks the CLI wraps around what the user typed are taken apart by parse.ts.
 */
import type { AgentVocabulary } from '../agent.js';

export const ANTIGRAVITY_SHELL_TOOL = 'run_command';
/** What the user typed sits inside this block of a USER_INPUT step. */
export const ANTIGRAVITY_REQUEST_TAG = 'USER_REQUEST';
/** Blocks the CLI appends after the request: the local time, and a paragraph on the model picked. */
export const ANTIGRAVITY_APPENDED_TAGS = ['ADDITIONAL_METADATA', 'USER_SETTINGS_CHANGE'] as const;

export const antigravityVocabulary: AgentVocabulary = {
  commandTools: [ANTIGRAVITY_SHELL_TOOL],
  primaryCommandTool: ANTIGRAVITY_SHELL_TOOL,
  skillTools: [],
  envelopeTags: [],
};
