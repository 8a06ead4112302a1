/**
 * Where GitHub Copilot keeps chats.
 * VS Code: the Copilot Chat extension's own transcripts store,
 * `<User>/workspaceStorage/<ws>/GitHub.copilot-chat/transcripts/<id>.jsonl` (≥ 0.51, ./vscode-transcripts.ts),
 * and VS Code core's chat persistence `<User>/workspaceStorage/<ws>/chatSessions/<id>.jsonl`
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
import { copilotHomes } from './home.js';
import { COPILOT_CHAT_EXTENSION_DIR, isVscodeTranscriptFile } from './vscode-transcripts.js';

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
  return copilotHomes({ env, home: homedir, config });
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
  return isVscodeChatFile(filePath) || isVscodeTranscriptFile(filePath) || isCopilotCliFile(filePath) || isCopilotLegacyFile(filePath);
}

export function listCopilotFiles(root: TranscriptRoot, readDir: DirReader = readDirEntries): string[] {
  switch (root.kind) {
    case 'vscode-workspace-storage':
      return listWorkspaceStorage(root.path, readDir);
    case 'vscode-empty-window':
      return walkFiles(root.path, isVscodeChatFile, 0, undefined, readDir);
    case 'copilot-cli-history':
      return listLegacySessions(root.path, readDir);
    default:
      return listCliSessions(root.path, readDir);
  }
}

/**
 * Both VS Code stores of every workspace: `<hash>/chatSessions/*.json[l]` and
 * `<hash>/GitHub.copilot-chat/transcripts/*.jsonl`. Only those folders are opened below a
 * workspace (a workspace folder holds every extension's storage).
 */
function listWorkspaceStorage(dir: string, readDir: DirReader): string[] {
  const base = path.normalize(dir);
  const depthOf = (p: string) => segments(p.slice(base.length)).length;
  const keep = (p: string, name: string): boolean => {
    const depth = depthOf(p);
    if (depth === 1) return /^[0-9a-zA-Z_-]+$/.test(name); // <hash>
    if (depth === 2) return name === 'chatSessions' || name.toLowerCase() === COPILOT_CHAT_EXTENSION_DIR;
    return depth === 3 && name === 'transcripts' && path.basename(path.dirname(p)).toLowerCase() === COPILOT_CHAT_EXTENSION_DIR;
  };
  return walkFiles(base, (p) => isVscodeChatFile(p) || isVscodeTranscriptFile(p), 3, (p, name) => !keep(p, name), readDir);
}

/**
 * When two files claim one session: the transcripts store beats `chatSessions/` (its sparse UI
 * snapshot), VS Code's `.jsonl` beats its `.json`, the Copilot CLI directory layout beats the
 * older flat file (and both beat a legacy history-session-state `.json`).
 */
export function copilotPreferFile(candidate: string, owner: string): boolean {
  if (isVscodeTranscriptFile(candidate) && !isVscodeTranscriptFile(owner)) return true;
  if (isVscodeTranscriptFile(owner)) return false;
  if (owner.endsWith('.json') && candidate.endsWith('.jsonl')) return true;
  return path.basename(candidate) === 'events.jsonl' && path.basename(owner) !== 'events.jsonl' && owner.endsWith('.jsonl');
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
