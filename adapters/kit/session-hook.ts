/**
 * A session-start hook in the shape Claude Code's `settings.json` and Codex's `hooks.json` share:
 * `{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": …}]}]}}`.
 * Pure transforms of the parsed document: adding ours (marked by a tag in the command, so it is
 * found again), removing ours, finding ours. The file I/O and the exact-restore bookkeeping are
 * the caller's (src/cli/commands/hooks.ts).
 */
import { isObj } from './json.js';

/** Present in our hook's command line, so `hooks remove` can tell ours from the user's. */
export const HOOK_TAG = '--from-hook';

export interface SessionStartHookSpec {
  /** the user-level file that holds the agent's hooks (it may not exist yet) */
  file(home: string, env: NodeJS.ProcessEnv): string;
  /** the event name in that file */
  event: string;
  /** which starts the hook runs on (a matcher on the start source) */
  matcher: string;
  /** what the user still has to do for the agent to run it (e.g. a feature flag) */
  caveat?: string;
}

type Doc = Record<string, unknown>;

function isOurs(entry: unknown): boolean {
  if (!isObj(entry) || !Array.isArray(entry.hooks)) return false;
  return entry.hooks.some((h) => isObj(h) && typeof h.command === 'string' && h.command.includes(HOOK_TAG));
}

export function hasSessionHook(doc: unknown, spec: SessionStartHookSpec): boolean {
  if (!isObj(doc) || !isObj(doc.hooks)) return false;
  const list = doc.hooks[spec.event];
  return Array.isArray(list) && list.some(isOurs);
}

/** The document with our hook added (or replaced, when an older one of ours is there). */
export function withSessionHook(doc: unknown, spec: SessionStartHookSpec, command: string): Doc {
  const base: Doc = isObj(doc) ? structuredClone(doc) : {};
  const hooks: Doc = isObj(base.hooks) ? base.hooks : {};
  const list = Array.isArray(hooks[spec.event]) ? (hooks[spec.event] as unknown[]).filter((e) => !isOurs(e)) : [];
  list.push({ matcher: spec.matcher, hooks: [{ type: 'command', command, timeout: 10 }] });
  hooks[spec.event] = list;
  base.hooks = hooks;
  return base;
}

/** The document without our hook; an event list or `hooks` object left empty goes too. */
export function withoutSessionHook(doc: unknown, spec: SessionStartHookSpec): Doc {
  const base: Doc = isObj(doc) ? structuredClone(doc) : {};
  if (!isObj(base.hooks)) return base;
  const hooks = base.hooks;
  const list = hooks[spec.event];
  if (Array.isArray(list)) {
    const kept = list.filter((e) => !isOurs(e));
    if (kept.length) hooks[spec.event] = kept;
    else delete hooks[spec.event];
  }
  if (!Object.keys(hooks).length) delete base.hooks;
  return base;
}
