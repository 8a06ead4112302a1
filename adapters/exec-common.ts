/**
 * What every agent CLI adapter (adapters/<agent>/exec.ts) provides to the `cli` backends in
 * src/llm/cli.ts: how to build the command line for one call, where the agent reads a skill from
 * inside a workspace, and how to read the CLI's JSON output. Pure: no spawning here.
 */
export interface ExecSkill {
  name: string;
  content: string;
}

export interface ExecInput {
  prompt: string;
  /** replaces the agent's system prompt where the CLI allows it (non-agent roles only) */
  system?: string;
  model?: string;
  /** absolute workspace the agent runs in (cwd) */
  workspace: string;
  /** 'agent' = perform a task with file tools confined to the workspace; 'text' = plain completion, no tools */
  mode: 'agent' | 'text';
  /** agent mode: the workspace was not seeded from a repository (holds only what we installed): nothing to search */
  emptyWorkspace?: boolean;
  /** the environment the CLI will inherit (read-only: for adapters whose isolated settings depend on it) */
  env?: NodeJS.ProcessEnv;
}

/**
 * The agent's own home (config, transcripts, state databases) for a replay: a private folder that
 * replaces the user's, so a replay leaves no trace there and loads none of their personal
 * instructions, skills or settings — but keeps their login.
 */
export interface AgentHomeSpec {
  /** the environment variable that moves the agent's home */
  envVar: string;
  /** the user's real home for this agent (read only, to carry the login over) */
  userHome(env: NodeJS.ProcessEnv): string;
  /**
   * Fills the private home from the user's (login only) and returns what to add to the child's
   * environment; `note` says in words how the login was carried (or why it could not be).
   */
  carryLogin(userHome: string, privateHome: string, env: NodeJS.ProcessEnv): { env: Record<string, string>; note?: string; model?: string };
  /** the run is paid per token from an API key (its reported cost counts against budget.maxUsd) */
  billsApiKey(env: NodeJS.ProcessEnv, userHome: string): boolean;
}

export interface ExecInvocation {
  argv: string[];
  /** written to the child's stdin, then closed */
  stdin?: string;
  /** added to the inherited environment */
  env: Record<string, string>;
  /** files the CLI needs in the workspace before it starts (relative path → content), e.g. its isolated settings */
  files?: Record<string, string>;
}

export interface ExecResult {
  text: string;
  tokensIn: number;
  tokensOut: number;
  /** of tokensIn: prompt tokens served from the provider's cache */
  cacheReadTokens?: number;
  /** cost the CLI itself reported, when it does */
  costUsd?: number;
  model?: string;
  toolsCalled: string[];
  sessionId?: string;
  /** the CLI reported a failure inside otherwise well-formed output */
  error?: string;
}

export interface ExecAdapter {
  /** backend name in config (`roles.*.backend`), e.g. claude */
  readonly backend: string;
  /** the model whose price stands in when the CLI reports no cost and no model is configured */
  readonly defaultPriceModel?: string;
  /** executable looked up on PATH */
  readonly binary: string;
  buildInvocation(input: ExecInput): ExecInvocation;
  /** where the skill goes inside the workspace (relative path), by the way this agent loads it */
  skillPath(skill: ExecSkill): string;
  parseOutput(stdout: string): ExecResult;
  /**
   * For CLIs whose stdout carries no token counts: the counts the CLI wrote to its own home
   * (`home` is the one the run used, private or the user's; read only). Undefined: none found.
   */
  readUsage?(home: string, parsed: ExecResult): Partial<ExecResult> | undefined;
  /** the private home replays run with (no trace in the user's agent) */
  readonly home: AgentHomeSpec;
  /** the tool names that mean "the agent loaded a skill" from a skills folder (instruction files are injected whole) */
  readonly skillTools: string[];
  /** how to install the CLI, for `doctor` when it is not on PATH (absent: the binary name says enough) */
  readonly installHint?: string;
}

/** Front matter with a `name:` marks an Agent Skill; anything else is an instruction file. */
export { isAgentSkill } from '../src/skilldoc/document.js';

/** Skill folder names are lowercase-hyphenated (Agent Skills convention); never a path. */
export function safeSkillName(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return s || 'skill';
}

/** Parses JSON Lines, skipping lines that are not JSON (banners, warnings). */
export function parseJsonLines(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      const v: unknown = JSON.parse(t);
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      /* not an event line */
    }
  }
  return out;
}

export function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

export function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
