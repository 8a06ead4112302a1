/** OpenCode, as one record: everything the rest of the product may know of it (see ../agent.ts). */
import path from 'node:path';
import type { AgentRecord } from '../agent.js';
import type { HarvestAdapter, RecordStore, SourceStamp } from '../types.js';
import { opencodeExec } from './exec.js';
import { createOpencodeParser } from './parse.js';
import { OPENCODE_DB_ENV, isOpencodeTranscript, listOpencodeSessions, opencodeHomes, opencodeReadMode, opencodeRoots, splitSessionPath } from './paths.js';
import { opencodeConfigDir, opencodeInstructionFiles, opencodeSkillRoots } from './skills.js';
import { readSession, stampSessions } from './store.js';
import { opencodeVocabulary } from './vocabulary.js';

/** Sessions are stamped one database at a time (one query each), read one session at a time. */
const opencodeStore: RecordStore = {
  stampAll(paths) {
    const byDb = new Map<string, Map<string, SourceStamp>>();
    return paths.map((p) => {
      const s = splitSessionPath(p);
      if (!s) return null;
      let stamps = byDb.get(s.db);
      if (!stamps) byDb.set(s.db, (stamps = stampSessions(s.db)));
      return stamps.get(s.sessionId) ?? null;
    });
  },
  read(p) {
    const s = splitSessionPath(p);
    return s ? readSession(s.db, s.sessionId) : null;
  },
};

export { buildOpencodeInvocation, opencodeExec, opencodeSkillPath, parseOpencodeOutput } from './exec.js';

export const opencodeAdapter: HarvestAdapter = {
  id: 'opencode',
  roots: opencodeRoots,
  listFiles: listOpencodeSessions,
  isTranscriptFile: isOpencodeTranscript,
  readMode: opencodeReadMode,
  createParser: () => createOpencodeParser(),
  store: opencodeStore,
};

export const opencode: AgentRecord = {
  id: 'opencode',
  displayName: 'OpenCode',
  shortName: 'opencode',
  aliases: ['open-code'],
  configKey: 'opencode',
  homeEnv: [OPENCODE_DB_ENV, 'XDG_DATA_HOME'],
  homes: opencodeHomes,
  harvest: opencodeAdapter,
  skills: {
    roots: opencodeSkillRoots,
    instructionFiles: opencodeInstructionFiles,
    projectManagedRoot: (project) => path.join(project, '.opencode', 'skills'),
    personalManagedRoot: (ctx) => path.join(opencodeConfigDir(ctx), 'skills'),
  },
  exec: opencodeExec,
  vocabulary: opencodeVocabulary,
};
