/**
 * Which of the user's skills a turn used, as the transcripts show it, recorded as `meta.skill` on
 * the event that carries the signal (the prompt or the tool call). Mining reads it to route a
 * recurring ask to the skill it already uses (src/mine/outcome.ts `skillsOf`).
 *
 * - Claude Code: a `Skill` tool call (`input.skill`, older `input.command`), the retired
 *   `SlashCommand` tool (`input.command: "/name args"`), and a slash-command echo
 *   (`<command-name>/name</command-name>…<command-args>…</command-args>`) for a command that is
 *   not one of Claude Code's own.
 * - Copilot CLI: a `skill` tool call (`arguments.skill`), and `skill.invoked` after a user-typed
 *   invocation.
 * - Codex: a `<skill><name>…</name>…</skill>` item injected right after the prompt that named it.
 */
import { isObj, str } from './kit.js';

/** Tool names whose call input names a skill (Claude Code `Skill`/`SlashCommand`, Copilot CLI `skill`). */
export const SKILL_TOOL_NAMES: readonly string[] = ['Skill', 'skill', 'SlashCommand'];

/** A skill name as vendors write it: a plain identifier (no spaces, no paths). */
const NAME_RE = /^[A-Za-z0-9][\w.:-]{0,99}$/;

export function cleanSkillName(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  // "/name args" (slash form) → name
  const name = raw.trim().replace(/^\//, '').split(/\s/, 1)[0] ?? '';
  return NAME_RE.test(name) ? name : null;
}

/** The skill a skill-loading tool call names (`{skill}`, `{command}`, `{name}`), or null. */
export function skillFromToolInput(input: unknown): string | null {
  if (typeof input === 'string') return cleanSkillName(input);
  if (!isObj(input)) return null;
  return cleanSkillName(str(input.skill) ?? str(input.command) ?? str(input.name));
}

/**
 * Claude Code's own slash commands: their echo is harness chatter, not a skill (and their
 * arguments, `/model opus` or `/rename x`, are not an ask).
 */
const CLAUDE_BUILTIN_COMMANDS = new Set(
  (
    'add-dir agents allowed-tools approved-tools bashes btw bug chrome clear color compact config context copy cost desktop doctor ' +
    'effort exit export extra-usage fast feedback fork help hooks ide init insights install-github-app keybindings login logout mcp ' +
    'memory migrate-installer mobile model output-style passes permissions plan plugin plugins pr-comments privacy-settings quit ' +
    'release-notes reload-plugins remote-control rename resume review rewind sandbox security-review session skills stats status ' +
    'statusline stickers tasks teleport terminal-setup theme think-back todos upgrade usage vim voice'
  ).split(' '),
);

/**
 * A Claude Code slash-command echo naming a user command or skill: its name and what the user
 * typed after it. Null for built-in commands, MCP prompts and anything that is not an echo.
 */
export function claudeSlashCommand(text: string): { name: string; args: string } | null {
  // only a row that is an echo (a prompt quoting the tags mid-text is not one)
  if (!/^\s*<command-(name|message|args)>/.test(text)) return null;
  const m = /<command-name>\s*\/?([^<\s]+)\s*<\/command-name>/.exec(text);
  if (!m) return null;
  const name = cleanSkillName(m[1]);
  if (!name || CLAUDE_BUILTIN_COMMANDS.has(name.toLowerCase()) || name.startsWith('mcp__')) return null;
  const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1]?.trim() ?? '';
  return { name, args };
}

/** Names of the skills in Codex `<skill>` injection blocks of one user item. */
export function codexInjectedSkills(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/<skill>\s*<name>\s*([^<]+?)\s*<\/name>/g)) {
    const n = cleanSkillName(m[1]);
    if (n && !out.includes(n)) out.push(n);
  }
  return out;
}

/** Adds skill names to an event's meta: `skill` is a string for one, an array for several. */
export function addSkillMeta(meta: Record<string, unknown>, names: string[]): void {
  const have = Array.isArray(meta.skill) ? (meta.skill as string[]) : typeof meta.skill === 'string' ? [meta.skill] : [];
  const all = [...have];
  for (const n of names) if (!all.includes(n)) all.push(n);
  if (all.length) meta.skill = all.length === 1 ? all[0] : all;
}
