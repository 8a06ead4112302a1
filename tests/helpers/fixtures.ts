/**
 * Where the repository's own transcript fixtures live (tests/fixtures/<agent>/, described in
 * tests/fixtures/README.md), and the facts about their fictional project that tests assert on.
 * Every path here is inside the repository: a clone with nothing beside it runs the whole suite.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './sandbox.js';

export const FIXTURES_DIR = path.join(REPO_ROOT, 'tests/fixtures');

/** One folder per agent format; `home` is laid out like the agent's own home directory. */
export type FixtureAgent = 'claude-code' | 'codex' | 'copilot-cli' | 'copilot-vscode';
export const FIXTURE_AGENTS: readonly FixtureAgent[] = ['claude-code', 'codex', 'copilot-cli', 'copilot-vscode'];

/** The folder to point CLAUDE_CONFIG_DIR / CODEX_HOME / COPILOT_HOME at (VS Code: the parent of `User/`). */
export function fixtureHome(agent: FixtureAgent): string {
  return path.join(FIXTURES_DIR, agent, 'home');
}

/** A file inside an agent's fixture home, e.g. fixtureFile('codex', 'sessions/2026/10/13/rollout-….jsonl'). */
export function fixtureFile(agent: FixtureAgent, rel: string): string {
  return path.join(fixtureHome(agent), rel);
}

/** The VS Code `User/` folder of the Copilot Chat fixtures. */
export const VSCODE_USER_FIXTURE = path.join(fixtureHome('copilot-vscode'), 'User');

/** Per-file oracle: prompts, finals, tool names in order, tool-error counts (keys relative to the agent's home). */
export type ExpectedTranscript = { skip?: unknown; sessionId?: string; thread_id?: string; prompts?: string[]; finals?: string[]; tools?: string[]; tool_errors?: number | string };
export function expectedFor(agent: FixtureAgent): Record<string, ExpectedTranscript> {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, agent, 'expected.json'), 'utf8')) as Record<string, ExpectedTranscript>;
}

/** The fictional checkout every fixture session ran in, and its Claude Code project-folder slug. */
export const FIXTURE_PROJECT = '/home/mika/src/tidemark';
export const FIXTURE_PROJECT_SLUG = FIXTURE_PROJECT.replace(/[^a-zA-Z0-9]/g, '-');
/** The Claude Code project folder of the fixtures, relative to CLAUDE_CONFIG_DIR. */
export const CLAUDE_PROJECT_DIR = `projects/${FIXTURE_PROJECT_SLUG}`;
/** The VS Code workspace-storage folder of the Copilot Chat fixtures. */
export const VSCODE_WORKSPACE = '6f1c3e9a0b2d4c5e8f7a1b2c3d4e5f60';

/** Compressed (.jsonl.zst) Codex rollouts, kept apart from the home so they are read only when a test asks. */
export const CODEX_COMPRESSED_DIR = path.join(FIXTURES_DIR, 'codex', 'compressed');
