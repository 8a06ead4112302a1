/** Antigravity CLI (`agy`), as one record: everything the rest of the product may know of it (see ../agent.ts). */
import path from 'node:path';
import type { AgentRecord } from '../agent.js';
import type { HarvestAdapter } from '../types.js';
import { antigravityHomes } from './home.js';
import { createAntigravityParser } from './parse.js';
import { antigravityPreferFile, antigravityReadMode, antigravityRoots, isAntigravityTranscript, listAntigravityFiles } from './paths.js';
import { antigravityHomeDirs, antigravityInstructionFiles, antigravityProjectSkillRoot, antigravitySkillRoots } from './skills.js';
import { antigravityStoreNotes, antigravityUnreadableStores } from './store-notes.js';
import { antigravityVocabulary } from './vocabulary.js';

export const antigravityAdapter: HarvestAdapter = {
  id: 'antigravity',
  roots: antigravityRoots,
  listFiles: listAntigravityFiles,
  isTranscriptFile: isAntigravityTranscript,
  readMode: antigravityReadMode,
  createParser: (file) => createAntigravityParser(file),
  preferFile: antigravityPreferFile,
};

export const antigravity: AgentRecord = {
  id: 'antigravity',
  displayName: 'Antigravity CLI',
  shortName: 'agy',
  aliases: ['agy', 'antigravity-cli'],
  configKey: 'antigravity',
  // no env var is documented to move its home (home.ts)
  homeEnv: [],
  homes: antigravityHomes,
  harvest: antigravityAdapter,
  skills: {
    roots: antigravitySkillRoots,
    instructionFiles: antigravityInstructionFiles,
    projectManagedRoot: antigravityProjectSkillRoot,
    personalManagedRoot: (ctx) => path.join(antigravityHomeDirs(ctx)[0], 'skills'),
  },
  // headless `agy -p` exists, but no private home can be given to it (store-notes.ts): no replay backend
  exec: null,
  vocabulary: antigravityVocabulary,
  doctorNotes: antigravityStoreNotes,
  unreadableStores: antigravityUnreadableStores,
  // Google moved Gemini CLI's individual, AI Pro and AI Ultra accounts to Antigravity CLI (Gemini CLI's
  // guide "Migrating to Antigravity CLI", cited in docs/transcript-formats.md; API-key and
  // Standard/Enterprise users keep Gemini CLI)
  succeeds: { agent: 'gemini', why: "Google moved Gemini CLI's individual, AI Pro and AI Ultra accounts to Antigravity CLI" },
};
