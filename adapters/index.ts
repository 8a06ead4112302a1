/**
 * The adapter registry (harvest side). Adding an agent = one folder under adapters/ and one entry
 * in HARVEST_ADAPTERS.
 */
import os from 'node:os';
import type { AgentId } from '../src/core/records.js';
import type { Config } from '../src/core/config.js';
import { claudeRoots, isClaudeTranscript, listClaudeFiles } from './claude-code/paths.js';
import { ClaudeParser, claudePrefilter, claudeShrinkable } from './claude-code/parse.js';
import { codexReadMode, codexRoots, isCodexTranscript, listCodexFiles } from './codex/paths.js';
import { CodexParser, codexPrefilter, codexShrinkable } from './codex/parse.js';
import { copilotRoots, isCopilotCliFile, isCopilotTranscript, listCopilotFiles } from './copilot/paths.js';
import { copilotCliPrefilter, copilotCliShrinkable, copilotReadMode, createCopilotParser } from './copilot/parse.js';
import type { HarvestAdapter, RootEnv, TranscriptRoot } from './types.js';

export type { HarvestAdapter, TranscriptRoot } from './types.js';

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

export const codexAdapter: HarvestAdapter = {
  id: 'codex',
  roots: codexRoots,
  listFiles: listCodexFiles,
  isTranscriptFile: isCodexTranscript,
  readMode: codexReadMode,
  createParser: (file, state) => new CodexParser(file, state),
  prefilter: codexPrefilter,
  shrinkable: codexShrinkable,
};

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
};

export const HARVEST_ADAPTERS: HarvestAdapter[] = [claudeCodeAdapter, codexAdapter, copilotAdapter];

export function getAdapter(id: AgentId): HarvestAdapter {
  const a = HARVEST_ADAPTERS.find((x) => x.id === id);
  if (!a) throw new Error(`no harvest adapter for agent "${id}"`);
  return a;
}

export function rootEnvFrom(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): RootEnv {
  return { env, platform, homedir: env.HOME && platform !== 'win32' ? env.HOME : (env.USERPROFILE ?? os.homedir()) };
}

export function isAgentEnabled(config: Config, agent: AgentId): boolean {
  if (agent === 'claude-code') return config.agents.claudeCode.enabled;
  if (agent === 'codex') return config.agents.codex.enabled;
  return config.agents.copilot.enabled;
}

/** Every transcript root of every enabled agent, existing or not (the daemon watches them all). */
export function discoverRoots(config: Config, env: NodeJS.ProcessEnv): Array<{ agent: AgentId; path: string; exists: boolean; kind: string }> {
  const rootEnv = rootEnvFrom(env);
  const out: TranscriptRoot[] = [];
  for (const a of HARVEST_ADAPTERS) if (isAgentEnabled(config, a.id)) out.push(...a.roots(config, rootEnv));
  return out;
}

export function isTranscriptFile(agent: AgentId, filePath: string): boolean {
  return getAdapter(agent).isTranscriptFile(filePath);
}

/** Which agent a transcript path belongs to (null when it is not a transcript). */
export function agentOfFile(filePath: string): AgentId | null {
  for (const a of HARVEST_ADAPTERS) if (a.isTranscriptFile(filePath)) return a.id;
  return null;
}
