/** Claude Code, as one record: everything the rest of the product may know of it (see ../agent.ts). */
import path from 'node:path';
import type { AgentRecord } from '../agent.js';
import type { HarvestAdapter } from '../types.js';
import { claudeExec } from './exec.js';
import { CLAUDE_HOME_ENV, claudeHomes } from './home.js';
import { ClaudeParser, claudePrefilter, claudeShrinkable } from './parse.js';
import { claudeRoots, isClaudeTranscript, listClaudeFiles } from './paths.js';
import { claudeConfigDirs, claudeInstructionFiles, claudeSkillRoots } from './skills.js';
import { claudeVocabulary } from './vocabulary.js';
import { claudeRetention } from './retention.js';
import { claudeIdentity } from './identity.js';

export { buildClaudeInvocation, claudeExec, claudeSkillPath, parseClaudeOutput, CLAUDE_QUIET_ENV, CLAUDE_TARGET_TOOLS } from './exec.js';

export const claudeCodeAdapter: HarvestAdapter = {
  id: 'claude-code',
  roots: claudeRoots,
  listFiles: listClaudeFiles,
  isTranscriptFile: isClaudeTranscript,
  readMode: () => 'append',
  createParser: (file, state) => new ClaudeParser(file, state),
  prefilter: claudePrefilter,
  shrinkable: claudeShrinkable,
};

export const claudeCode: AgentRecord = {
  ...claudeIdentity,
  homeEnv: [CLAUDE_HOME_ENV],
  homes: claudeHomes,
  harvest: claudeCodeAdapter,
  skills: {
    roots: claudeSkillRoots,
    instructionFiles: claudeInstructionFiles,
    projectManagedRoot: (project) => path.join(project, '.claude', 'skills'),
    personalManagedRoot: (ctx) => path.join(claudeConfigDirs(ctx)[0], 'skills'),
  },
  // the CLI reports its cost; when it does not and no model is set, Sonnet's price stands in
  exec: { ...claudeExec, defaultPriceModel: 'sonnet' },
  vocabulary: claudeVocabulary,
  transcriptRetention: claudeRetention,
  // Claude Code shows a hook's `systemMessage` to the user; its plain stdout would go to the model
  sessionStartHook: {
    file: (home, env) => path.join(claudeHomes({ env, home })[0] ?? path.join(home, '.claude'), 'settings.json'),
    event: 'SessionStart',
    matcher: 'startup',
  },
};
