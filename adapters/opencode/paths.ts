/**
 * Where OpenCode keeps its sessions: one SQLite database, `<data dir>/opencode.db` (another release
 * channel: `opencode-<channel>.db`), the data dir
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

/**
 * OpenCode names its database per release channel: `opencode.db` (latest, beta), else
 * `opencode-<channel>.db` (packages/opencode/src/storage/db.ts `Database.Path`).
 */
const DB_NAME = /^opencode(?:-[A-Za-z0-9._-]+)?\.db$/;

/**
 * Where to look: config roots (a data folder, or a `.db` file), then OPENCODE_DB (a file), else
 * every data dir (each database in it). A root is `opencode-db` (one file) or `opencode-data`.
 */
function opencodeSources(ctx: HomeContext, platform?: NodeJS.Platform): Array<{ path: string; kind: 'opencode-db' | 'opencode-data' }> {
  const dataDirs = opencodeDataDirs(ctx, platform);
  const of = (p: string) => ({ path: path.resolve(p), kind: p.endsWith('.db') ? ('opencode-db' as const) : ('opencode-data' as const) });
  const out = (ctx.config?.agents.opencode.roots ?? []).map(of);
  const envDb = ctx.env[OPENCODE_DB_ENV];
  if (envDb !== undefined && envDb !== '') {
    for (const p of envList(envDb)) if (p !== ':memory:') out.push({ path: path.resolve(path.isAbsolute(p) ? p : path.join(dataDirs[0], p)), kind: 'opencode-db' });
  } else {
    out.push(...dataDirs.map((d) => ({ path: d, kind: 'opencode-data' as const })));
  }
  const seen = new Set<string>();
  return out.filter((s) => !seen.has(s.path) && seen.add(s.path));
}

/** The database files there are now (tests, doctor). */
export function opencodeDatabases(ctx: HomeContext, platform?: NodeJS.Platform): string[] {
  return opencodeSources(ctx, platform).flatMap((s) => (s.kind === 'opencode-db' ? [s.path] : databasesIn(s.path)));
}

function databasesIn(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && DB_NAME.test(e.name))
      .map((e) => path.join(dir, e.name))
      .sort();
  } catch {
    return [];
  }
}

export function opencodeHomes(ctx: HomeContext): string[] {
  return [...new Set(opencodeSources(ctx).map((s) => (s.kind === 'opencode-db' ? path.dirname(s.path) : s.path)))];
}

export function opencodeRoots(config: Config, { env, homedir, platform }: RootEnv): TranscriptRoot[] {
  return opencodeSources({ env, home: homedir, config }, platform).map((s) => ({ agent: 'opencode' as const, path: s.path, exists: fs.existsSync(s.path), kind: s.kind }));
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
  const dbs = root.kind === 'opencode-db' ? [root.path] : root.kind === 'opencode-data' ? databasesIn(root.path) : [];
  return dbs.flatMap((db) => listRootSessionIds(db).map((id) => sessionPath(db, id)));
}

/** A session's rows change in place (a streaming part is rewritten): always read whole. */
export function opencodeReadMode(_p: string): ReadMode {
  return 'whole';
}
