/**
 * Shared vocabulary of the per-agent skill-location modules (adapters/<agent>/skills.ts):
 * a skill root is a folder whose children are `<name>/SKILL.md` skills; an instruction file is a
 * single Markdown file the agent loads as standing instructions (CLAUDE.md, AGENTS.md, ...).
 * Only the adapters know these paths (docs/ARCHITECTURE.md, "One record per agent").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentId, SkillTarget } from '../src/core/records.js';
import type { Config } from '../src/core/config.js';

export interface SkillLocationContext {
  /** absolute project root (git root or cwd); null = personal roots only */
  project: string | null;
  /** where the agent runs from, for Codex's "cwd up to the repo root" walk; defaults to project */
  cwd?: string | null;
  env: NodeJS.ProcessEnv;
  /** home directory; defaults to env.HOME, then os.homedir() */
  home?: string;
  /** the config's extra agent homes (agents.*.roots), when the caller has a config */
  config?: Config;
}

export interface SkillRoot {
  /** absolute folder whose children are `<name>/SKILL.md` */
  dir: string;
  scope: 'project' | 'personal';
  agent: AgentId;
  /** child folder names inside this root that belong to the agent itself and are never trained */
  reserved?: string[];
}

export interface InstructionFile {
  path: string;
  scope: 'project' | 'personal';
  agent: AgentId;
  kind: Exclude<SkillTarget['kind'], 'skill' | 'managed'>;
}

export function homeOf(ctx: SkillLocationContext): string {
  return ctx.home ?? (ctx.env.HOME && ctx.env.HOME.trim() !== '' ? ctx.env.HOME : os.homedir());
}

/** The home context of an agent's home resolver, from a skill-location context. */
export function homeContextOf(ctx: SkillLocationContext): HomeContext {
  return { env: ctx.env, home: homeOf(ctx), config: ctx.config };
}

/** Splits a path-list env value (CLAUDE_CONFIG_DIR may hold a comma-separated list). */
export function envDirs(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => path.resolve(s));
}

/** Nearest ancestor of `start` (inclusive) holding `.git`; null when none. */
export function findRepoRoot(start: string): string | null {
  let dir = path.resolve(start);
  for (;;) {
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * Folders from `cwd` up to the repository root (inclusive), nearest first. Outside a repo, only
 * `cwd` itself: walking to `/` would pick up unrelated folders.
 */
export function dirsUpToRepoRoot(cwd: string, project: string | null): string[] {
  const start = path.resolve(cwd);
  const stop = findRepoRoot(start) ?? (project ? path.resolve(project) : start);
  const rel = path.relative(stop, start);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return [start];
  const out: string[] = [];
  let dir = start;
  for (;;) {
    out.push(dir);
    if (dir === stop) break;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return out;
}

/** What an agent's home resolver reads (harvest and skills share one resolver per agent). */
export interface HomeContext {
  env: NodeJS.ProcessEnv;
  /** the user's home directory */
  home: string;
  config?: Config;
}
