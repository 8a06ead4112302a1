/**
 * Where GitHub Copilot keeps chats.
 * VS Code (chat persistence is VS Code core's): `<User>/workspaceStorage/<ws>/chatSessions/<id>.jsonl`
 * (≥ 1.109 mutation log) or `.json` (older), empty-window chats in
 * `<User>/globalStorage/emptyWindowChatSessions/`. User dirs: stable, Insiders, VSCodium, Code - OSS
 * per OS, `$VSCODE_PORTABLE/user-data/User`, ~/.vscode-server/data/User, plus config
 * `agents.copilot.vscodeUserDirs`.
 * Copilot CLI: `<home>/session-state/<id>/events.jsonl` and the older flat `<home>/session-state/<id>.jsonl`;
 * before those (≤ Oct 2025) one JSON document per session in `<home>/history-session-state/`
 * (`session_<id>_<ts>.json`, see ./legacy.ts); home = config `agents.copilot.cliRoots`, `COPILOT_HOME`
 * or ~/.copilot.
 */
import path from 'node:path';
import type { Config } from '../../src/core/config.js';
import { dirExists, readDirEntries, segments, walkFiles } from '../kit/walk.js';
import type { DirReader, RootEnv, TranscriptRoot } from '../types.js';
import { copilotLegacyName } from './legacy.js';

const FLAVOURS = ['Code', 'Code - Insiders', 'VSCodium', 'Code - OSS'];

export function vscodeUserDirs(config: Config, { env, platform, homedir }: RootEnv): string[] {
  const p = platform === 'win32' ? path.win32 : path.posix;
  let base: string;
  if (platform === 'win32') base = env.APPDATA || p.join(homedir, 'AppData', 'Roaming');
  else if (platform === 'darwin') base = p.join(homedir, 'Library', 'Application Support');
  else base = env.XDG_CONFIG_HOME && p.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : p.join(homedir, '.config');
  const dirs = [...config.agents.copilot.vscodeUserDirs, ...FLAVOURS.map((f) => p.join(base, f, 'User'))];
  if (env.VSCODE_PORTABLE) dirs.push(p.join(env.VSCODE_PORTABLE, 'user-data', 'User'));
  dirs.push(p.join(homedir, '.vscode-server', 'data', 'User'));
  return [...new Set(dirs.map((d) => p.resolve(d)))];
}

export function copilotCliHomes(config: Config, { env, homedir }: RootEnv): string[] {
  const fromEnv = (env.COPILOT_HOME ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const list = [...config.agents.copilot.cliRoots, ...(fromEnv.length ? fromEnv : [path.join(homedir, '.copilot')])];
  return [...new Set(list.map((d) => path.resolve(d)))];
}

export function copilotRoots(config: Config, rootEnv: RootEnv): TranscriptRoot[] {
  const out: TranscriptRoot[] = [];
  for (const u of vscodeUserDirs(config, rootEnv)) {
    const ws = path.join(u, 'workspaceStorage');
    out.push({ agent: 'copilot', path: ws, exists: dirExists(ws), kind: 'vscode-workspace-storage' });
    const empty = path.join(u, 'globalStorage', 'emptyWindowChatSessions');
    out.push({ agent: 'copilot', path: empty, exists: dirExists(empty), kind: 'vscode-empty-window' });
  }
  for (const h of copilotCliHomes(config, rootEnv)) {
    const s = path.join(h, 'session-state');
    out.push({ agent: 'copilot', path: s, exists: dirExists(s), kind: 'copilot-cli-sessions' });
    const legacy = path.join(h, 'history-session-state');
    out.push({ agent: 'copilot', path: legacy, exists: dirExists(legacy), kind: 'copilot-cli-history' });
  }
  return out;
}

export function isVscodeChatFile(filePath: string): boolean {
  if (!filePath.endsWith('.jsonl') && !filePath.endsWith('.json')) return false;
  const segs = segments(filePath);
  const parent = segs[segs.length - 2];
  if (parent === 'emptyWindowChatSessions') return true;
  return parent === 'chatSessions' && segs[segs.length - 4] === 'workspaceStorage';
}

export function isCopilotCliFile(filePath: string): boolean {
  const segs = segments(filePath);
  const base = segs[segs.length - 1];
  if (base === 'events.jsonl') return segs[segs.length - 3] === 'session-state';
  return base.endsWith('.jsonl') && segs[segs.length - 2] === 'session-state';
}

/** A legacy Copilot CLI session document: `<home>/history-session-state/<name>.json`. */
export function isCopilotLegacyFile(filePath: string): boolean {
  if (!filePath.endsWith('.json')) return false;
  const segs = segments(filePath);
  return segs[segs.length - 2] === 'history-session-state';
}

export function isCopilotTranscript(filePath: string): boolean {
  return isVscodeChatFile(filePath) || isCopilotCliFile(filePath) || isCopilotLegacyFile(filePath);
}

export function listCopilotFiles(root: TranscriptRoot, readDir: DirReader = readDirEntries): string[] {
  switch (root.kind) {
    case 'vscode-workspace-storage':
      return walkFiles(root.path, isVscodeChatFile, 2, (_p, name) => !/^[0-9a-zA-Z_-]+$/.test(name) && name !== 'chatSessions', readDir);
    case 'vscode-empty-window':
      return walkFiles(root.path, isVscodeChatFile, 0, undefined, readDir);
    case 'copilot-cli-history':
      return listLegacySessions(root.path, readDir);
    default:
      return listCliSessions(root.path, readDir);
  }
}

/**
 * `session-state/<id>/events.jsonl` for each session dir (not read: one readdir per session would
 * dominate an unchanged pass; a dir without the file is dropped by the caller's stat) and the
 * older flat `session-state/<id>.jsonl` files.
 */
function listCliSessions(dir: string, readDir: DirReader): string[] {
  const entries = readDir(dir);
  if (!entries) return [];
  const out: string[] = [];
  for (const e of entries) {
    if (e.isDirectory()) out.push(path.join(dir, e.name, 'events.jsonl'));
    else if (e.name.endsWith('.jsonl')) out.push(path.join(dir, e.name));
  }
  return out;
}

/**
 * `history-session-state/*.json`, one per session: when several files name one session
 * (`session_<id>_<ts>.json`), only the newest is listed — the others are taken as earlier saves of
 * it, as other readers of this directory do (they read the last of the sorted matches).
 */
function listLegacySessions(dir: string, readDir: DirReader): string[] {
  const newest = new Map<string, { file: string; ts: number }>();
  for (const file of walkFiles(dir, (_p, name) => name.endsWith('.json'), 0, undefined, readDir)) {
    const { id, ts } = copilotLegacyName(file);
    const had = newest.get(id);
    if (!had || ts > had.ts) newest.set(id, { file, ts });
  }
  return [...newest.values()].map((v) => v.file);
}
