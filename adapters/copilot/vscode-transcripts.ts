/**
 * VS Code Copilot Chat's transcripts store (Copilot Chat ≥ 0.51 / VS Code ≥ 1.123):
 * `<User>/workspaceStorage/<hash>/GitHub.copilot-chat/transcripts/<sessionId>.jsonl`, an
 * append-only log in the same typed event schema as the Copilot CLI's `events.jsonl`
 * (`session.start`, `user.message`, `assistant.message`, `tool.execution_*`, `assistant.turn_end`),
 * so ./cli-events.ts parses it. It is the agent's full record; `chatSessions/` (when still
 * written) is a sparse UI snapshot of the same session, so the transcript wins (./paths.ts).
 *
 * The project: the log's own cwd when it has one, else `workspace.json` of the workspace folder
 * (recent builds no longer write it), else the `sessions.cwd` column of Copilot Chat's
 * `globalStorage/github.copilot-chat/session-store.db`, else the common folder of the absolute
 * paths the session's tools touched.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { segments } from '../kit/walk.js';
import { CopilotCliParser } from './cli-events.js';
import { vscodeWorkspaceFolderOf } from './vscode.js';

export const COPILOT_CHAT_EXTENSION_DIR = 'github.copilot-chat';

/** `workspaceStorage/<hash>/GitHub.copilot-chat/transcripts/<id>.jsonl` (the extension folder's case varies). */
export function isVscodeTranscriptFile(filePath: string): boolean {
  if (!filePath.endsWith('.jsonl')) return false;
  const segs = segments(filePath);
  const n = segs.length;
  return n >= 5 && segs[n - 2] === 'transcripts' && segs[n - 3].toLowerCase() === COPILOT_CHAT_EXTENSION_DIR && segs[n - 5] === 'workspaceStorage';
}

/** The workspace folder (`workspaceStorage/<hash>`) a transcript belongs to. */
export function transcriptWorkspaceDir(filePath: string): string {
  return path.dirname(path.dirname(path.dirname(filePath)));
}

/** `<User>/globalStorage/github.copilot-chat/session-store.db` for a transcript under `<User>/workspaceStorage/…`. */
export function sessionStorePathFor(filePath: string): string {
  const user = path.dirname(transcriptWorkspaceDir(filePath));
  return path.join(path.dirname(user), 'globalStorage', COPILOT_CHAT_EXTENSION_DIR, 'session-store.db');
}

const storeCache = new Map<string, { mtimeMs: number; cwd: Map<string, string> }>();
// loaded on first use (as in ./vscdb.ts): every harvest worker thread loads this module, and few
// ever open a session store
let Database: typeof BetterSqlite3 | null = null;

/** `sessions.id → sessions.cwd` of a session-store.db (empty when absent, locked or of another shape). */
export function readSessionStoreCwds(dbPath: string): Map<string, string> {
  let mtimeMs: number;
  try {
    mtimeMs = fs.statSync(dbPath).mtimeMs;
  } catch {
    return new Map();
  }
  const hit = storeCache.get(dbPath);
  if (hit && hit.mtimeMs === mtimeMs) return hit.cwd;
  const cwd = new Map<string, string>();
  try {
    Database ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    try {
      const cols = (db.prepare(`PRAGMA table_info(sessions)`).all() as Array<{ name: string }>).map((c) => c.name);
      if (cols.includes('id') && cols.includes('cwd')) {
        for (const r of db.prepare(`SELECT id, cwd FROM sessions WHERE cwd IS NOT NULL AND cwd != ''`).all() as Array<{ id: unknown; cwd: unknown }>) {
          if (typeof r.id === 'string' && typeof r.cwd === 'string') cwd.set(r.id, r.cwd);
        }
      }
    } finally {
      db.close();
    }
  } catch {
    /* not a database we can read: fall through to the next source */
  }
  storeCache.set(dbPath, { mtimeMs, cwd });
  return cwd;
}

/** The deepest folder every touched folder is inside; null when that is only the root or the home. */
export function commonFolder(dirs: readonly string[]): string | null {
  if (dirs.length === 0) return null;
  let common = segments(dirs[0]);
  for (const d of dirs.slice(1)) {
    const s = segments(d);
    let i = 0;
    while (i < common.length && i < s.length && common[i] === s[i]) i++;
    common = common.slice(0, i);
  }
  if (common.length === 0) return null;
  const folder = (dirs[0].startsWith('/') ? '/' : '') + common.join('/');
  if (folder === os.homedir() || path.dirname(folder) === folder) return null;
  return folder;
}

export function vscodeTranscriptCwd(filePath: string, sessionId: string, touchedDirs: readonly string[]): string | null {
  return vscodeWorkspaceFolderOf(transcriptWorkspaceDir(filePath)) ?? readSessionStoreCwds(sessionStorePathFor(filePath)).get(sessionId) ?? commonFolder(touchedDirs);
}

export function createVscodeTranscriptParser(filePath: string, state: unknown): CopilotCliParser {
  return new CopilotCliParser(filePath, state, vscodeTranscriptCwd);
}

export function clearSessionStoreCache(): void {
  storeCache.clear();
}
