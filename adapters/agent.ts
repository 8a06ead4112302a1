/**
 * What one agent is, as a single record: everything the rest of the product may know of an agent
 * (its ids and names, where it lives, how its transcripts are read, where it reads skills and
 * instructions, how it runs headless, and the words it uses). Each `adapters/<agent>/index.ts`
 * exports one; `adapters/index.ts` lists them. Code outside `adapters/` derives every per-agent
 * list from that registry, so adding an agent is its folder plus one line there.
 */
import type { AgentId } from '../src/core/records.js';
import type { Config } from '../src/core/config.js';
import type { ExecAdapter } from './exec-common.js';
import type { HomeContext, InstructionFile, SkillLocationContext, SkillRoot } from './skills-common.js';
import type { HarvestAdapter, RootEnv } from './types.js';
import type { SessionStartHookSpec } from './kit/session-hook.js';

/**
 * What the home resolver of an agent reads. One resolver per agent serves the harvest (which
 * passes the config's extra roots) and skill discovery and the write guard (which may not), so the
 * two sides always agree on an env var such as `CODEX_HOME=/a,/b`.
 */
export type { HomeContext } from './skills-common.js';

/** The words an agent's transcripts use, for the parts of the product that read across agents. */
export interface AgentVocabulary {
  /** tool names (as the agent writes them) that run an arbitrary shell command */
  commandTools: readonly string[];
  /** the command tool a check on "ran a command" shows for this agent */
  primaryCommandTool: string;
  /** tool names whose call loads a skill */
  skillTools: readonly string[];
  /** XML-ish blocks the agent or its IDE wraps around what the user typed (not the ask) */
  envelopeTags: readonly string[];
}

export interface AgentSkillLocations {
  /** folders whose children are `<name>/SKILL.md` */
  roots(ctx: SkillLocationContext): SkillRoot[];
  /** standing instruction files (existing or not) */
  instructionFiles(ctx: SkillLocationContext): InstructionFile[];
  /** instruction files named by a pattern rather than listed (Copilot's `*.instructions.md`) */
  isInstructionPath?(project: string, file: string): boolean;
  /** the project folder this agent would read a managed learned skill from */
  projectManagedRoot(project: string): string;
  /** the personal folder this agent would read a managed learned skill from */
  personalManagedRoot(ctx: SkillLocationContext): string;
}

/** A fact `doctor` reports about an agent's installation (beyond "transcripts found"). */
export interface AgentDoctorNote {
  status: 'ok' | 'warn';
  detail: string;
  fix?: string;
}

export interface AgentRecord {
  id: AgentId;
  /** how screens name it: `Claude Code` */
  displayName: string;
  /** the short form of compact lists: `claude` */
  shortName: string;
  /** other names accepted on the command line (`claude` for `claude-code`) */
  aliases: readonly string[];
  /** its section in the config file, `agents.<configKey>` */
  configKey: keyof Config['agents'];
  /** env vars that move the agent's home (the daemon's supervisor passes them on) */
  homeEnv: readonly string[];
  /** the agent's home folders (config roots, then its env var, else the default) */
  homes(ctx: HomeContext): string[];
  harvest: HarvestAdapter;
  skills: AgentSkillLocations;
  /** how the `cli` backend of the same name drives it headless (null: it has none) */
  exec: ExecAdapter | null;
  vocabulary: AgentVocabulary;
  /** extra installation facts for `doctor` (e.g. which transcript store an install writes) */
  doctorNotes?(config: Config, rootEnv: RootEnv): AgentDoctorNote[];
  /**
   * stores holding conversations whose content cannot be read (an undocumented binary payload):
   * `status` and the night report repeat these, so it must stay cheap (a few directory listings)
   */
  unreadableStores?(config: Config, rootEnv: RootEnv): AgentDoctorNote[];
  /**
   * where a user-level session-start hook goes, for the opt-in morning nudge (`hooks install`);
   * absent when the agent has none whose output the user sees
   */
  sessionStartHook?: SessionStartHookSpec;
  /**
   * the agent of the same vendor this one replaced for some of its users (Antigravity CLI for Gemini
   * CLI): when the older one's transcripts stop while this one is installed, `status` and the night
   * report say so and where the conversations now are (src/harvest/agent-moves.ts)
   */
  succeeds?: { agent: AgentId; why: string };
  /** how long the agent itself keeps transcripts before deleting them (absent: it does not delete) */
  transcriptRetention?(config: Config, rootEnv: RootEnv): TranscriptRetention;
}

export interface TranscriptRetention {
  days: number;
  /** the agent's own default applies (no setting found) or the setting equals it */
  isDefault: boolean;
  /** the setting that changes it, and where it was read */
  setting: string;
  source: string | null;
}

/** The config's `enabled` flag of the agent's section (an agent absent from the config is on). */
export function agentEnabled(config: Config, agent: Pick<AgentRecord, 'configKey'>): boolean {
  const section = (config.agents as Record<string, { enabled?: boolean } | undefined>)[agent.configKey];
  return section?.enabled !== false;
}

/** Splits a path-list env value (`CODEX_HOME=/a,/b`): trimmed, empty entries dropped. */
export function envList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
