/** Codex, as one record: everything the rest of the product may know of it (see ../agent.ts). */
import path from 'node:path';
import type { AgentRecord } from '../agent.js';
import { homeOf } from '../skills-common.js';
import type { HarvestAdapter } from '../types.js';
import { codexExec } from './exec.js';
import { CODEX_HOME_ENV, codexHomes } from './home.js';
import { CodexParser, codexPrefilter, codexShrinkable } from './parse.js';
import { codexPreferFile, codexReadMode, codexRoots, isCodexTranscript, listCodexFiles } from './paths.js';
import { codexInstructionFiles, codexSkillRoots } from './skills.js';
import { codexVocabulary } from './vocabulary.js';
import { codexHookNotes } from './hook-note.js';

export { buildCodexInvocation, codexExec, codexSkillPath, parseCodexOutput } from './exec.js';

export const codexAdapter: HarvestAdapter = {
  id: 'codex',
  roots: codexRoots,
  listFiles: listCodexFiles,
  isTranscriptFile: isCodexTranscript,
  readMode: codexReadMode,
  createParser: (file, state) => new CodexParser(file, state),
  prefilter: codexPrefilter,
  shrinkable: codexShrinkable,
  preferFile: codexPreferFile,
};

export const codex: AgentRecord = {
  id: 'codex',
  displayName: 'Codex',
  shortName: 'codex',
  aliases: [],
  configKey: 'codex',
  homeEnv: [CODEX_HOME_ENV],
  homes: codexHomes,
  harvest: codexAdapter,
  skills: {
    roots: codexSkillRoots,
    instructionFiles: codexInstructionFiles,
    projectManagedRoot: (project) => path.join(project, '.agents', 'skills'),
    personalManagedRoot: (ctx) => path.join(homeOf(ctx), '.agents', 'skills'),
  },
  exec: codexExec,
  vocabulary: codexVocabulary,
  doctorNotes: codexHookNotes,
  // user-level hooks live in $CODEX_HOME/hooks.json (the same shape as Claude Code's)
  sessionStartHook: {
    file: (home, env) => path.join(codexHomes({ env, home })[0] ?? path.join(home, '.codex'), 'hooks.json'),
    event: 'SessionStart',
    matcher: 'startup',
    caveat: 'Codex runs hooks only with `codex_hooks = true` under `[features]` in its config.toml, and asks you to trust a new hook once',
  },
};
