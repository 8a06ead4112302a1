/** Pi (`@mariozechner/pi-coding-agent`), as one record: everything the rest of the product may know of it (see ../agent.ts). */
import path from 'node:path';
import type { AgentRecord } from '../agent.js';
import { homeOf } from '../skills-common.js';
import type { HarvestAdapter } from '../types.js';
import { piExec } from './exec.js';
import { PI_HOME_ENV, piHomes } from './home.js';
import { createPiParser } from './parse.js';
import { isPiTranscript, listPiFiles, piReadMode, piRoots } from './paths.js';
import { piInstructionFiles, piSkillRoots } from './skills.js';
import { piVocabulary } from './vocabulary.js';

export { buildPiInvocation, parsePiOutput, piExec, piSkillPath } from './exec.js';

export const piAdapter: HarvestAdapter = {
  id: 'pi',
  roots: piRoots,
  listFiles: listPiFiles,
  isTranscriptFile: isPiTranscript,
  readMode: piReadMode,
  createParser: () => createPiParser(),
};

export const pi: AgentRecord = {
  id: 'pi',
  displayName: 'Pi',
  shortName: 'pi',
  aliases: ['pi-coding-agent'],
  configKey: 'pi',
  homeEnv: [PI_HOME_ENV],
  homes: piHomes,
  harvest: piAdapter,
  skills: {
    roots: piSkillRoots,
    instructionFiles: piInstructionFiles,
    // the cross-agent folders Pi also reads: one learned skill serves Pi, Codex, Copilot and Gemini CLI
    projectManagedRoot: (project) => path.join(project, '.agents', 'skills'),
    personalManagedRoot: (ctx) => path.join(homeOf(ctx), '.agents', 'skills'),
  },
  exec: piExec,
  vocabulary: piVocabulary,
};
