/** Cursor Agent, as one record: everything the rest of the product may know of it (see ../agent.ts). */
import path from 'node:path';
import type { AgentRecord } from '../agent.js';
import { homeOf } from '../skills-common.js';
import type { HarvestAdapter } from '../types.js';
import { cursorExec } from './exec.js';
import { CURSOR_HOME_ENV, cursorHomes } from './home.js';
import { createCursorParser } from './parse.js';
import { cursorReadMode, cursorRoots, isCursorTranscript, listCursorFiles } from './paths.js';
import { cursorInstructionFiles, cursorSkillRoots, isCursorRulePath } from './skills.js';
import { cursorVocabulary } from './vocabulary.js';

export { buildCursorInvocation, cursorExec, cursorSkillPath, parseCursorOutput } from './exec.js';

export const cursorAdapter: HarvestAdapter = {
  id: 'cursor',
  roots: cursorRoots,
  listFiles: listCursorFiles,
  isTranscriptFile: isCursorTranscript,
  readMode: cursorReadMode,
  createParser: createCursorParser,
};

export const cursor: AgentRecord = {
  id: 'cursor',
  displayName: 'Cursor Agent',
  shortName: 'cursor',
  aliases: ['cursor-agent'],
  configKey: 'cursor',
  homeEnv: [CURSOR_HOME_ENV],
  homes: cursorHomes,
  harvest: cursorAdapter,
  // from Cursor's docs (cursor.com/docs/skills, cursor.com/docs/rules): ./skills.ts
  skills: {
    roots: cursorSkillRoots,
    instructionFiles: cursorInstructionFiles,
    isInstructionPath: isCursorRulePath,
    // the cross-agent folder Cursor also reads: one learned skill serves Cursor, Codex, Copilot, Gemini CLI, Pi and OpenCode
    projectManagedRoot: (project) => path.join(project, '.agents', 'skills'),
    personalManagedRoot: (ctx) => path.join(homeOf(ctx), '.agents', 'skills'),
  },
  exec: cursorExec,
  vocabulary: cursorVocabulary,
};
