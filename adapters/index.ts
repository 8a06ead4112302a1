/**
 * The agent registry: the one list of agents the product knows. Each entry is an agent's record
 * (adapters/<agent>/index.ts); every per-agent list elsewhere — harvest adapters, skill
 * locations, CLI backends, display names, tool vocabularies — derives from AGENTS. Adding an
 * agent is its folder plus one line here.
 */
import type { AgentId } from '../src/core/records.js';
import type { Config } from '../src/core/config.js';
import { agentEnabled, type AgentRecord } from './agent.js';
import { claudeCode } from './claude-code/index.js';
import { codex } from './codex/index.js';
import { copilot } from './copilot/index.js';
import { cursor } from './cursor/index.js';
import { gemini } from './gemini/index.js';
import { pi } from './pi/index.js';
import { opencode } from './opencode/index.js';
import { antigravity } from './antigravity/index.js';
import type { ExecAdapter } from './exec-common.js';
import { rootEnvFrom } from './root-env.js';
import type { HarvestAdapter, TranscriptRoot } from './types.js';

export type { AgentRecord, AgentVocabulary, HomeContext } from './agent.js';
export type { HarvestAdapter, TranscriptRoot } from './types.js';

export const AGENTS: readonly AgentRecord[] = [claudeCode, codex, copilot, gemini, pi, cursor, opencode, antigravity];

export const AGENT_IDS: readonly AgentId[] = AGENTS.map((a) => a.id);

export const HARVEST_ADAPTERS: HarvestAdapter[] = AGENTS.map((a) => a.harvest);

export function getAgent(id: AgentId): AgentRecord {
  const a = AGENTS.find((x) => x.id === id);
  if (!a) throw new Error(`no agent "${id}" in the registry`);
  return a;
}

export function getAdapter(id: AgentId): HarvestAdapter {
  return getAgent(id).harvest;
}

/** An agent id from what a user typed: the id, an alias (`claude`) or a display name, any case. */
export function resolveAgentName(name: string): AgentId | null {
  const n = name.trim().toLowerCase();
  const a = AGENTS.find((x) => x.id === n || x.aliases.includes(n) || x.displayName.toLowerCase() === n);
  return a ? a.id : null;
}

export function agentDisplayName(id: string): string {
  return AGENTS.find((a) => a.id === id)?.displayName ?? id;
}

export function agentShortName(id: string): string {
  return AGENTS.find((a) => a.id === id)?.shortName ?? id;
}

/** The agent CLIs the `cli` backends drive, by backend name (`claude`, `codex`, …), in registry order. */
export function execAdapters(): ExecAdapter[] {
  return AGENTS.flatMap((a) => (a.exec ? [a.exec] : []));
}

export function execAdapterFor(backend: string): ExecAdapter | null {
  return execAdapters().find((e) => e.backend === backend) ?? null;
}

/** Backend names that are an agent CLI (their calls are billed by the agent's plan, not per token). */
export function cliBackendNames(): string[] {
  return execAdapters().map((e) => e.backend);
}

export function isCliBackend(name: string): boolean {
  return cliBackendNames().includes(name);
}

/** Every agent's command tools, lower-cased (tool names that run an arbitrary shell command). */
export function commandToolNames(): string[] {
  return [...new Set(AGENTS.flatMap((a) => a.vocabulary.commandTools.map((t) => t.toLowerCase())))];
}

/** Every agent's skill-loading tool names, as the agents write them. */
export function skillToolNames(): string[] {
  return [...new Set(AGENTS.flatMap((a) => a.vocabulary.skillTools))];
}

/** The union of every agent's envelope tags (blocks wrapped around what the user typed). */
export function envelopeTags(): string[] {
  return [...new Set(AGENTS.flatMap((a) => a.vocabulary.envelopeTags))];
}

/** The command tool each agent's transcripts name, by agent id. */
export function primaryCommandTools(): Record<string, string> {
  return Object.fromEntries(AGENTS.map((a) => [a.id, a.vocabulary.primaryCommandTool]));
}

/** Every env var that moves an agent's home (CLAUDE_CONFIG_DIR, CODEX_HOME, …). */
export function agentHomeEnvVars(): string[] {
  return AGENTS.flatMap((a) => a.homeEnv);
}

export { rootEnvFrom };

export function isAgentEnabled(config: Config, agent: AgentId): boolean {
  return agentEnabled(config, getAgent(agent));
}

/** Every transcript root of every enabled agent, existing or not (the daemon watches them all). */
export function discoverRoots(config: Config, env: NodeJS.ProcessEnv): Array<{ agent: AgentId; path: string; exists: boolean; kind: string }> {
  const rootEnv = rootEnvFrom(env);
  const out: TranscriptRoot[] = [];
  for (const a of AGENTS) if (agentEnabled(config, a)) out.push(...a.harvest.roots(config, rootEnv));
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

export { claudeCodeAdapter } from './claude-code/index.js';
export { codexAdapter } from './codex/index.js';
export { copilotAdapter } from './copilot/index.js';
