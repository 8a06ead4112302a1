/**
 * Where OpenCode keeps its sessions: one SQLite database, `<data dir>/opencode.db`, the data dir
 * being `$XDG_DATA_HOME/opencode` (default ~/.local/share/opencode; on Windows also
 * %LOCALAPPDATA%\opencode and %APPDATA%\opencode). `OPENCODE_DB` names the database instead
 * (absolute, or relative to the data dir; `:memory:` means none). Config `agents.opencode.roots`
 * adds data folders or database files.
 *
 * A database holds many sessions, so a "transcript path" here is virtual: `<db path>#<session id>`,
 * one per root session (sub-agent sessions have a parent and are not harvested). The harvest stamps
 * and reads those through the adapter's RecordStore (./store.ts), never with `stat` or the line reader.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../src/core/config.js';
import { envList, type HomeContext } from '../agent.js';
import type { ReadMode, RootEnv, TranscriptRoot } from '../types.js';
import { listRootSessionIds } from './store.js';

export const OPENCODE_DB_ENV = 'OPENCODE_DB';
export const OPENCODE_DB_FILE = 'opencode.db';
const SESSION_SEPARATOR = '#';

/** OpenCode's data folders, in the order it would look (the first one holding the database wins for it; we read them all). */
export function opencodeDataDirs({ env, home }: Pick<HomeContext, 'env' | 'home'>, platform: NodeJS.Platform = process.platform): string[] {
  const dirs: string[] = [];
  if (env.XDG_DATA_HOME) dirs.push(path.join(env.XDG_DATA_HOME, 'opencode'));
  if (platform === 'win32') {
    if (env.LOCALAPPDATA) dirs.push(path.join(env.LOCALAPPDATA, 'opencode'));
    if (env.APPDATA) dirs.push(path.join(env.APPDATA, 'opencode'));
  }
  dirs.push(path.join(home, '.local', 'share', 'opencode'));
  return [...new Set(dirs.map((d) => path.resolve(d)))];
}

/** The database files to read: config roots, then OPENCODE_DB, else `opencode.db` in each data dir. */
export function opencodeDatabases(ctx: HomeContext, platform?: NodeJS.Platform): string[] {
  const dataDirs = opencodeDataDirs(ctx, platform);
  const asDb = (p: string) => (p.endsWith('.db') ? p : path.join(p, OPENCODE_DB_FILE));
  const fromConfig = (ctx.config?.agents.opencode.roots ?? []).map((p) => path.resolve(asDb(p)));
  const fromEnv = envList(ctx.env[OPENCODE_DB_ENV])
    .filter((p) => p !== ':memory:')
    .map((p) => (path.isAbsolute(p) ? p : path.join(dataDirs[0], p)));
  const defaults = ctx.env[OPENCODE_DB_ENV] !== undefined && ctx.env[OPENCODE_DB_ENV] !== '' ? [] : dataDirs.map((d) => path.join(d, OPENCODE_DB_FILE));
  return [...new Set([...fromConfig, ...fromEnv, ...defaults].map((p) => path.resolve(p)))];
}

export function opencodeHomes(ctx: HomeContext): string[] {
  return [...new Set(opencodeDatabases(ctx).map((db) => path.dirname(db)))];
}

export function opencodeRoots(config: Config, { env, homedir, platform }: RootEnv): TranscriptRoot[] {
  return opencodeDatabases({ env, home: homedir, config }, platform).map((db) => ({
    agent: 'opencode' as const,
    path: db,
    exists: fs.existsSync(db),
    kind: 'opencode-db',
  }));
}

export function sessionPath(dbPath: string, sessionId: string): string {
  return `${dbPath}${SESSION_SEPARATOR}${sessionId}`;
}

/** `<db>#<session id>` → its parts, or null for any other path. */
export function splitSessionPath(p: string): { db: string; sessionId: string } | null {
  const i = p.lastIndexOf(SESSION_SEPARATOR);
  if (i <= 0) return null;
  const db = p.slice(0, i);
  const sessionId = p.slice(i + 1);
  if (!db.endsWith('.db') || !sessionId || /[\\/]/.test(sessionId)) return null;
  return { db, sessionId };
}

export function isOpencodeTranscript(p: string): boolean {
  return splitSessionPath(p) !== null;
}

export function listOpencodeSessions(root: TranscriptRoot): string[] {
  if (root.kind !== 'opencode-db') return [];
  return listRootSessionIds(root.path).map((id) => sessionPath(root.path, id));
}

/** A session's rows change in place (a streaming part is rewritten): always read whole. */
export function opencodeReadMode(_p: string): ReadMode {
  return 'whole';
}
