/**
 * VS Code chat titles from `state.vscdb` (docs/transcript-formats.md §3.1/§3.5): a chat that was
 * never renamed has no title in its file; VS Code's index (`ItemTable`, key
 * `chat.ChatSessionStore.index`) has it. Real SQLite files are made here with better-sqlite3;
 * missing, corrupt and locked databases must give "no title", never an error or a stall.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearVscdbCache, parseChatIndex, readChatIndexTitles, vscdbPathFor, vscodeIndexTitle } from '../../adapters/copilot/vscdb.js';
import { processFile } from '../../src/harvest/process-file.js';
import { makeTempDir } from '../helpers/sandbox.js';
import { VSCODE_USER_FIXTURE, VSCODE_WORKSPACE } from '../helpers/fixtures.js';

const WS = VSCODE_WORKSPACE;
const RENAMED = '4c2a9e71-0d3b-4f5a-8e6c-7b1d2e3f4a5b'; // has customTitle "Changelog entry for #287"
const PLAIN = '9e5d3c1b-7a2f-4d6e-b8c0-1f2e3d4c5b6a'; // no title in the file
const ROUND_MTIME = new Date('2026-10-01T00:00:00.000Z');

function writeIndex(dbPath: string, entries: Record<string, { title: string; lastMessageDate?: number }>): void {
  const db = new Database(dbPath);
  try {
    // VS Code's own schema for state.vscdb
    db.exec('CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
    const value = {
      version: 1,
      entries: Object.fromEntries(Object.entries(entries).map(([id, e]) => [id, { sessionId: id, title: e.title, lastMessageDate: e.lastMessageDate ?? 1765294216008, isEmpty: false, initialLocation: 'panel' }])),
    };
    db.prepare('INSERT INTO ItemTable (key, value) VALUES (?, ?)').run('chat.ChatSessionStore.index', JSON.stringify(value));
    db.prepare('INSERT INTO ItemTable (key, value) VALUES (?, ?)').run('workbench.panel.chat.numberOfVisibleViews', '1');
  } finally {
    db.close();
  }
}

function harvestTitle(file: string): { title: string | null | undefined; error: string | undefined } {
  const r = processFile({ path: file, agent: 'copilot', offset: 0, state: null, headHash: null, headLen: 0, maxLineBytes: 1 << 20 });
  return { title: r.output?.session?.title, error: r.error };
}

describe('VS Code chat titles from state.vscdb', () => {
  let user: string;
  let wsDir: string;
  let dbPath: string;
  const chat = (id: string, ext = '.jsonl') => path.join(wsDir, 'chatSessions', `${id}${ext}`);

  beforeEach(() => {
    clearVscdbCache();
    user = makeTempDir();
    wsDir = path.join(user, 'workspaceStorage', WS);
    fs.cpSync(path.join(VSCODE_USER_FIXTURE, 'workspaceStorage', WS), wsDir, { recursive: true });
    for (const f of fs.readdirSync(path.join(wsDir, 'chatSessions'))) fs.chmodSync(path.join(wsDir, 'chatSessions', f), 0o644);
    dbPath = path.join(wsDir, 'state.vscdb');
  });
  afterEach(() => fs.rmSync(user, { recursive: true, force: true }));

  it('gives an untitled chat its index title; a custom title wins; unknown ids stay untitled', () => {
    expect(harvestTitle(chat(PLAIN)).title).toBeNull(); // no database yet: no title, no error
    writeIndex(dbPath, { [PLAIN]: { title: 'Add parseDuration unit tests' }, [RENAMED]: { title: 'Index title (older)' } });
    const plain = harvestTitle(chat(PLAIN));
    expect(plain.error).toBeUndefined();
    expect(plain.title).toBe('Add parseDuration unit tests');
    expect(harvestTitle(chat(RENAMED, '.json')).title).toBe('Changelog entry for #287');
    expect(vscodeIndexTitle(chat('00000000-0000-4000-8000-000000000000'), '00000000-0000-4000-8000-000000000000')).toBeNull();
  });

  it('reads a database once while it is unchanged, and again when it changes', () => {
    writeIndex(dbPath, { [PLAIN]: { title: 'First title' } });
    fs.utimesSync(dbPath, ROUND_MTIME, ROUND_MTIME);
    expect(vscodeIndexTitle(chat(PLAIN), PLAIN)).toBe('First title');
    // same size and mtime: the cached index answers (one read per workspace database per pass)
    writeIndex(dbPath, { [PLAIN]: { title: 'Other title' } }); // same length, REPLACE in place
    fs.utimesSync(dbPath, ROUND_MTIME, ROUND_MTIME);
    expect(fs.statSync(dbPath).mtimeMs).toBe(ROUND_MTIME.getTime());
    expect(vscodeIndexTitle(chat(PLAIN), PLAIN)).toBe('First title');
    fs.utimesSync(dbPath, new Date(), new Date()); // VS Code wrote it: re-read
    expect(vscodeIndexTitle(chat(PLAIN), PLAIN)).toBe('Other title');
  });

  it('reads the application index for empty-window chats', () => {
    const global = path.join(user, 'globalStorage');
    const empty = path.join(global, 'emptyWindowChatSessions', `${PLAIN}.jsonl`);
    fs.mkdirSync(path.dirname(empty), { recursive: true });
    fs.copyFileSync(chat(PLAIN), empty);
    expect(vscdbPathFor(empty)).toBe(path.join(global, 'state.vscdb'));
    writeIndex(path.join(global, 'state.vscdb'), { [PLAIN]: { title: 'Scratch chat' } });
    expect(harvestTitle(empty).title).toBe('Scratch chat');
  });

  it('tolerates corrupt, empty and schema-less databases and odd index JSON', () => {
    fs.writeFileSync(dbPath, Buffer.from('this is not an sqlite database, just bytes '.repeat(200)));
    const corrupt = harvestTitle(chat(PLAIN));
    expect(corrupt.error).toBeUndefined();
    expect(corrupt.title).toBeNull();

    fs.rmSync(dbPath);
    new Database(dbPath).close(); // a valid database without ItemTable
    clearVscdbCache();
    expect(readChatIndexTitles(dbPath).size).toBe(0);
    expect(harvestTitle(chat(PLAIN)).title).toBeNull();

    expect(parseChatIndex('{not json').size).toBe(0);
    expect(parseChatIndex({ version: 1, entries: { a: { title: '  ' }, b: 5, c: { title: 'C' } } })).toEqual(new Map([['c', 'C']]));
    expect(parseChatIndex(JSON.stringify({ entries: [{ sessionId: 'x', title: 'X' }] }))).toEqual(new Map([['x', 'X']]));
  });

  it('gives up quickly on a database locked by a writer, and reads it once the write is done', () => {
    writeIndex(dbPath, { [PLAIN]: { title: 'Before the write' } });
    const writer = new Database(dbPath);
    try {
      writer.exec('BEGIN EXCLUSIVE');
      writer.prepare('INSERT INTO ItemTable (key, value) VALUES (?, ?)').run('chat.ChatSessionStore.index', JSON.stringify({ version: 1, entries: { [PLAIN]: { sessionId: PLAIN, title: 'After the write' } } }));
      const t0 = performance.now();
      const locked = harvestTitle(chat(PLAIN));
      expect(performance.now() - t0).toBeLessThan(2000); // a short busy timeout, not better-sqlite3's 5 s default
      expect(locked.error).toBeUndefined();
      expect(locked.title).toBeNull();
      writer.exec('COMMIT');
    } finally {
      writer.close();
    }
    fs.utimesSync(dbPath, new Date(Date.now() + 5000), new Date(Date.now() + 5000)); // (mtime granularity)
    expect(harvestTitle(chat(PLAIN)).title).toBe('After the write');
  });
});
