/** The words Cursor Agent's transcripts use: its shell tool and the block around what the user typed. */
import type { AgentVocabulary } from '../agent.js';

/** The user's own words sit in the last `<user_query>` block; attached files etc. precede it. */
export const CURSOR_USER_QUERY_TAG = 'user_query';
/** The block Cursor puts before the query (upstream-sleep §2.7's example); dropped with the envelope. */
export const CURSOR_ATTACHED_FILES_TAG = 'attached_files';
export const CURSOR_SHELL_TOOL = 'shell.execute';

export const cursorVocabulary: AgentVocabulary = {
  // the tool name of upstream's documented example (upstream-sleep §2.7); Cursor's CLI is closed source
  commandTools: [CURSOR_SHELL_TOOL],
  primaryCommandTool: CURSOR_SHELL_TOOL,
  skillTools: [],
  envelopeTags: [CURSOR_ATTACHED_FILES_TAG],
};
