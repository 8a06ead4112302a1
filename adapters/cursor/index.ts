/** Cursor Agent, as one record: everything the rest of the product may know of it (see ../agent.ts). */
import path from 'node:path';
import type { AgentRecord } from '../agent.js';
import { homeOf } from '../skills-common.js';
import type { HarvestAdapter } from '../types.js';
import { cursorExec } from './exec.js';
import { CURSOR_HOME_ENV, cursorHomes } from './home.js';
import { createCursorParser } from './parse.js';
import { cursorReadMode, cursorRoots, isCursorTranscript, listCursorFiles } from './paths.js';
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
  // Cursor's `.cursor/rules/*.mdc` and `AGENTS.md` are not verified from Cursor's own docs here (only
  // third-party pages were found), so no location is claimed: nothing is listed or staged for it
  skills: {
    roots: () => [],
    instructionFiles: () => [],
    // the cross-agent folder: a managed skill is never placed here for Cursor's sake (readBy stays without it)
    projectManagedRoot: (project) => path.join(project, '.agents', 'skills'),
    personalManagedRoot: (ctx) => path.join(homeOf(ctx), '.agents', 'skills'),
  },
  exec: cursorExec,
  vocabulary: cursorVocabulary,
};
