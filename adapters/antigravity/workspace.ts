/**
 * The project of a conversation. No transcript record names it, so it comes from the two files in
 * the CLI's home that pair a workspace with a conversation id:
 * - `cache/last_conversations.json`, `{"<workspace>": "<conversation id>"}`: the last conversation of
 *   each workspace, written when a session exits (codeaholicguy/ai-devkit PR #133; receptron/
 *   mulmoterminal plans/feat-1096-antigravity-sessions-api.md, agy 1.1.9);
 * - `history.jsonl` rows `{display, timestamp, workspace, conversationId}` (edison7009/Coffee-CLI
 *   src/tools/antigravity.rs, May 2026 builds; agy 1.1.9 writes rows without the id, which name
 *   no conversation and are skipped).
 * A conversation neither names has no project: it is stored without one, never guessed (tool
 * arguments such as `run_command`'s `Cwd` say where the model acted, not where the user worked).
 * Both files are read once per change (cached by size and mtime), not once per transcript.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isObj, str } from '../kit/json.js';

const LAST_CONVERSATIONS = path.join('cache', 'last_conversations.json');
const HISTORY = 'history.jsonl';
/** A prompt history larger than this is not read for projects (it is a side file; the cost must stay bounded). */
const HISTORY_MAX_BYTES = 32 * 1024 * 1024;

interface Cached {
  stamp: string;
  byConversation: Map<string, string>;
}
const cache = new Map<string, Cached>();

function stampOf(file: string): string | null {
  try {
    const st = fs.statSync(file);
    return st.isFile() ? `${st.size}:${st.mtimeMs}` : null;
  } catch {
    return null;
  }
}

/** An absolute folder path from a path or a `file://` URI; null otherwise. */
export function workspacePath(v: unknown): string | null {
  const s = str(v)?.trim();
  if (!s) return null;
  let p = s;
  if (s.startsWith('file://')) {
    try {
      p = fileURLToPath(s);
    } catch {
      return null;
    }
  }
  return path.isAbsolute(p) ? p : null;
}

function readLastConversations(file: string): Map<string, string> {
  const out = new Map<string, string>();
  try {
    const j = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    if (!isObj(j)) return out;
    for (const [ws, id] of Object.entries(j)) {
      const p = workspacePath(ws);
      if (p && typeof id === 'string' && id) out.set(id, p);
    }
  } catch {
    // missing or damaged: no project from it
  }
  return out;
}

function readHistory(file: string): Map<string, string> {
  const out = new Map<string, string>();
  try {
    if (fs.statSync(file).size > HISTORY_MAX_BYTES) return out;
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      let o: unknown;
      try {
        o = JSON.parse(line);
      } catch {
        continue;
      }
      if (!isObj(o)) continue;
      const id = str(o.conversationId);
      const p = workspacePath(o.workspace);
      if (id && p) out.set(id, p);
    }
  } catch {
    // missing or unreadable
  }
  return out;
}

function lookup(file: string, read: (f: string) => Map<string, string>): Map<string, string> {
  const stamp = stampOf(file);
  if (stamp === null) {
    cache.delete(file);
    return new Map();
  }
  const hit = cache.get(file);
  if (hit && hit.stamp === stamp) return hit.byConversation;
  const byConversation = read(file);
  cache.set(file, { stamp, byConversation });
  return byConversation;
}

/** The workspace of conversation `id` in the CLI home `home`, or null when no file names it. */
export function antigravityWorkspace(home: string, id: string): string | null {
  return lookup(path.join(home, LAST_CONVERSATIONS), readLastConversations).get(id) ?? lookup(path.join(home, HISTORY), readHistory).get(id) ?? null;
}
