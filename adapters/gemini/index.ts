/** Gemini CLI, as one record: everything the rest of the product may know of it (see ../agent.ts). */
import path from 'node:path';
import type { AgentRecord } from '../agent.js';
import type { HarvestAdapter } from '../types.js';
import { geminiExec } from './exec.js';
import { GEMINI_HOME_ENV, geminiHomes } from './home.js';
import { createGeminiParser } from './parse.js';
import { geminiPreferFile, geminiReadMode, geminiRoots, isGeminiTranscript, isGeminiWholeJson, listGeminiFiles } from './paths.js';
import { geminiHomeDirs, geminiInstructionFiles, geminiSkillRoots } from './skills.js';
import { geminiVocabulary } from './vocabulary.js';

export { buildGeminiInvocation, geminiExec, geminiSkillPath, parseGeminiOutput } from './exec.js';

export const geminiAdapter: HarvestAdapter = {
  id: 'gemini',
  roots: geminiRoots,
  listFiles: listGeminiFiles,
  isTranscriptFile: isGeminiTranscript,
  readMode: geminiReadMode,
  createParser: (file) => createGeminiParser(file),
  isWholeJson: isGeminiWholeJson,
  preferFile: geminiPreferFile,
};

export const gemini: AgentRecord = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  shortName: 'gemini',
  aliases: ['gemini-cli'],
  configKey: 'gemini',
  homeEnv: [GEMINI_HOME_ENV],
  homes: geminiHomes,
  harvest: geminiAdapter,
  skills: {
    roots: geminiSkillRoots,
    instructionFiles: geminiInstructionFiles,
    projectManagedRoot: (project) => path.join(project, '.gemini', 'skills'),
    personalManagedRoot: (ctx) => path.join(geminiHomeDirs(ctx)[0], 'skills'),
  },
  exec: geminiExec,
  vocabulary: geminiVocabulary,
};
