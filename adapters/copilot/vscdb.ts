/**
 * VS Code chat titles from `state.vscdb` (docs/transcript-formats.md §3.1, §3.5): a chat file carries a
 * title only when the user renamed it (`customTitle`); the title VS Code shows is in the SQLite
 * key-value store next to the chat folder, table `ItemTable`, key `chat.ChatSessionStore.index`,
 * JSON `{version, entries: {<sessionId>: {sessionId, title, lastMessageDate, isEmpty…}}}`.
 * Workspace chats: `workspaceStorage/<ws>/chatSessions/<id>.json[l]` → `workspaceStorage/<ws>/state.vscdb`;
 * empty-window chats keep their index in the application store, `globalStorage/state.vscdb`, which
 * is the same two levels up from `globalStorage/emptyWindowChatSessions/<id>.json[l]`.
 *
 * VS Code owns the database and may be writing it: it is opened read-only (`fileMustExist`, a short
 * busy timeout), and a missing, locked or corrupt database just means "no title". The index is read
 * once per database and kept while the database's size and mtime stay the same, so the chat files
 * of one workspace share one read per pass (and later passes re-read only a changed index).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { isObj, str } from '../kit/json.js';

export const CHAT_INDEX_KEY = 'chat.ChatSessionStore.index';
/** A busy database (VS Code mid-write) is given this long before the title is skipped. */
const BUSY_TIMEOUT_MS = 50;
const MAX_CACHED = 64;

interface Cached {
  stamp: string;
  titles: Map<string, string>;
}
const cache = new Map<string, Cached>();

// loaded on first use: a harvest worker that never meets a VS Code chat does not load the addon
let Database: typeof BetterSqlite3 | null = null;
function openReadOnly(file: string): BetterSqlite3.Database {
  Database ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
}

/** The state.vscdb that indexes a VS Code chat file (two directories up). */
export function vscdbPathFor(chatFile: string): string {
  return path.join(path.dirname(path.dirname(chatFile)), 'state.vscdb');
}

/** size + mtime of the database and of its WAL (a WAL write leaves the main file untouched). */
function stampOf(dbPath: string): string | null {
  const st = fs.statSync(dbPath, { throwIfNoEntry: false });
  if (!st?.isFile()) return null;
  const wal = fs.statSync(`${dbPath}-wal`, { throwIfNoEntry: false });
  return `${st.size}:${st.mtimeMs}:${wal ? `${wal.size}:${wal.mtimeMs}` : '-'}`;
}

/** `entries` of the index as sessionId → non-empty title; tolerant of shape changes. */
export function parseChatIndex(value: unknown): Map<string, string> {
  const titles = new Map<string, string>();
  let j: unknown = value;
  if (typeof value === 'string') {
    try {
      j = JSON.parse(value);
    } catch {
      return titles;
    }
  }
  if (!isObj(j)) return titles;
  const entries = j.entries;
  const list = Array.isArray(entries) ? entries : isObj(entries) ? Object.entries(entries).map(([k, v]) => (isObj(v) ? { sessionId: k, ...v } : null)) : [];
  for (const e of list) {
    if (!isObj(e)) continue;
    const id = str(e.sessionId);
    const title = str(e.title)?.trim();
    if (id && title) titles.set(id, title);
  }
  return titles;
}

/** Reads the chat index of one database; never throws (missing, locked or corrupt → empty). */
export function readChatIndexTitles(dbPath: string): Map<string, string> {
  let db: BetterSqlite3.Database | null = null;
  try {
    db = openReadOnly(dbPath);
    const row = db.prepare('SELECT value FROM ItemTable WHERE key = ?').get(CHAT_INDEX_KEY) as { value?: unknown } | undefined;
    const v = row?.value;
    return parseChatIndex(Buffer.isBuffer(v) ? v.toString('utf8') : v);
  } catch {
    // SQLITE_BUSY, SQLITE_NOTADB, no ItemTable, unreadable file: the chat simply has no index title
    return new Map();
  } finally {
    try {
      db?.close();
    } catch {
      // closing a connection that failed half-way must not turn "no title" into an error
    }
  }
}

/** The title VS Code's index gives a chat session, or null. */
export function vscodeIndexTitle(chatFile: string, sessionId: string | null): string | null {
  if (!sessionId) return null;
  const dbPath = vscdbPathFor(chatFile);
  let stamp: string | null;
  try {
    stamp = stampOf(dbPath);
  } catch {
    return null;
  }
  if (stamp === null) return null;
  let hit = cache.get(dbPath);
  if (!hit || hit.stamp !== stamp) {
    hit = { stamp, titles: readChatIndexTitles(dbPath) };
    cache.delete(dbPath);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string); // oldest first
    cache.set(dbPath, hit);
  }
  return hit.titles.get(sessionId) ?? null;
}

/** For tests: forget cached indexes. */
export function clearVscdbCache(): void {
  cache.clear();
}
