/**
 * Where Gemini CLI records chats: `<gemini dir>/tmp/<project-slug>/chats/session-<time>-<id8>.jsonl`
 * (append-only JSONL, current) or `session-….json` (one whole document, older releases; a resumed
 * old session is rewritten as `.jsonl` beside it). Sub-agents: `chats/<parentSessionId>/<id>.jsonl`.
 * `<slug>/.project_root` holds the project's absolute path. `*.tmp-<pid>` (an atomic rewrite in
 * flight) and `*.unreadable-<ts>` (a file the CLI set aside) are never read.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../src/core/config.js';
import { dirExists, segments, walkFiles } from '../kit/walk.js';
import type { DirReader, ReadMode, RootEnv, TranscriptRoot } from '../types.js';
import { geminiHomes } from './home.js';

function isChatName(name: string): boolean {
  return name.endsWith('.jsonl') || name.endsWith('.json');
}

export function geminiRoots(config: Config, { env, homedir }: RootEnv): TranscriptRoot[] {
  return geminiHomes({ env, home: homedir, config }).map((h) => {
    const p = path.join(h, 'tmp');
    return { agent: 'gemini' as const, path: p, exists: dirExists(p), kind: 'gemini-tmp' };
  });
}

/** Index of the `chats` segment of a chat file path (`tmp/<slug>/chats/[<parent>/]<file>`), or -1. */
function chatsIndex(segs: string[]): number {
  const n = segs.length;
  if (n >= 4 && segs[n - 2] === 'chats' && segs[n - 4] === 'tmp') return n - 2;
  if (n >= 5 && segs[n - 3] === 'chats' && segs[n - 5] === 'tmp') return n - 3;
  return -1;
}

export function isGeminiTranscript(filePath: string): boolean {
  const segs = segments(filePath);
  const base = segs[segs.length - 1] ?? '';
  if (!isChatName(base)) return false;
  const i = chatsIndex(segs);
  if (i < 0) return false;
  // a main session file is `session-*.json[l]`; a sub-agent's is `<id>.jsonl` inside its parent's folder
  return i === segs.length - 2 ? base.startsWith('session-') : base.endsWith('.jsonl');
}

export function listGeminiFiles(root: TranscriptRoot, readDir?: DirReader): string[] {
  // tmp/<slug>/chats/<file> is depth 2; a sub-agent's tmp/<slug>/chats/<parent>/<file> depth 3
  const base = path.normalize(root.path);
  const prune = (p: string, name: string) => {
    const depth = segments(p.slice(base.length)).length;
    return depth === 2 && name !== 'chats';
  };
  return walkFiles(base, (p) => isGeminiTranscript(p), 3, prune, readDir);
}

/** Every record may be re-appended (a message updated in place), rewound or checkpointed: read whole. */
export function geminiReadMode(_filePath: string): ReadMode {
  return 'whole';
}

export function isGeminiWholeJson(filePath: string): boolean {
  return filePath.endsWith('.json');
}

/** A resumed old session is rewritten as `.jsonl` beside its `.json`: the `.jsonl` is the session. */
export function geminiPreferFile(candidate: string, owner: string): boolean {
  return owner.endsWith('.json') && candidate.endsWith('.jsonl');
}

/** `tmp/<slug>` of a chat file. */
export function geminiProjectTempDir(filePath: string): string | null {
  const segs = segments(filePath);
  const i = chatsIndex(segs);
  if (i < 0) return null;
  let dir = path.dirname(filePath);
  for (let k = segs.length - 2; k >= i; k--) dir = path.dirname(dir);
  return dir;
}

/** The project a chat belongs to, from `<slug>/.project_root`. */
export function geminiProjectRoot(filePath: string): string | null {
  const dir = geminiProjectTempDir(filePath);
  if (!dir) return null;
  try {
    const p = fs.readFileSync(path.join(dir, '.project_root'), 'utf8').trim();
    return p && path.isAbsolute(p) ? p : null;
  } catch {
    return null;
  }
}

/** For a sub-agent file `chats/<parent>/<id>.jsonl`: the parent session id. */
export function geminiParentSessionId(filePath: string): string | null {
  const segs = segments(filePath);
  const i = chatsIndex(segs);
  return i >= 0 && i === segs.length - 3 ? segs[segs.length - 2] : null;
}
