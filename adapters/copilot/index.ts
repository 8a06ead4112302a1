/** GitHub Copilot (CLI and VS Code), as one record: everything the rest of the product may know of it (see ../agent.ts). */
import path from 'node:path';
import type { AgentRecord } from '../agent.js';
import { homeOf } from '../skills-common.js';
import type { HarvestAdapter } from '../types.js';
import { copilotExec } from './exec.js';
import { COPILOT_HOME_ENV, copilotHomes } from './home.js';
import { copilotCliPrefilter, copilotCliShrinkable, copilotReadMode, createCopilotParser } from './parse.js';
import { copilotPreferFile, copilotRoots, isCopilotCliFile, isCopilotTranscript, listCopilotFiles } from './paths.js';
import { copilotInstructionFiles, copilotSkillRoots, isCopilotInstructionsPath } from './skills.js';
import { copilotStoreNotes } from './store-notes.js';
import { copilotVocabulary } from './vocabulary.js';

export { buildCopilotInvocation, copilotExec, copilotSkillPath, parseCopilotOutput, COPILOT_TARGET_TOOLS, COPILOT_TEXT_TOOLS } from './exec.js';

export const copilotAdapter: HarvestAdapter = {
  id: 'copilot',
  roots: copilotRoots,
  listFiles: listCopilotFiles,
  isTranscriptFile: isCopilotTranscript,
  readMode: copilotReadMode,
  createParser: createCopilotParser,
  prefilter: (line) => copilotCliPrefilter(line),
  shrinkable: (line) => copilotCliShrinkable(line),
  isWholeJson: (file) => file.endsWith('.json') && !isCopilotCliFile(file),
  preferFile: copilotPreferFile,
};

export const copilot: AgentRecord = {
  id: 'copilot',
  displayName: 'Copilot',
  shortName: 'copilot',
  aliases: [],
  configKey: 'copilot',
  homeEnv: [COPILOT_HOME_ENV],
  homes: copilotHomes,
  harvest: copilotAdapter,
  skills: {
    roots: copilotSkillRoots,
    instructionFiles: copilotInstructionFiles,
    isInstructionPath: isCopilotInstructionsPath,
    projectManagedRoot: (project) => path.join(project, '.claude', 'skills'),
    personalManagedRoot: (ctx) => path.join(homeOf(ctx), '.claude', 'skills'),
  },
  exec: copilotExec,
  vocabulary: copilotVocabulary,
  // no sessionStartHook: Copilot CLI reads hooks only from a repository's .github/hooks/ and ignores
  // what a sessionStart hook prints (docs: "Output: Ignored"), so a morning nudge there is never seen
  doctorNotes: copilotStoreNotes,
};
