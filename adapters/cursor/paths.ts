/**
 * Where Cursor Agent records chats: `<cursor dir>/projects/<slug>/agent-transcripts/<session>/*.jsonl`,
 * append-only JSONL read by byte offset. `<slug>/.workspace-trusted` holds JSON
 * `{"workspacePath": "/abs"}`, the project the chats belong to (the slug itself is lossy: every run
 * of non-alphanumerics became `-`).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../src/core/config.js';
import { storableEpochMs } from '../../src/core/timestamps.js';
import { dirExists, segments, walkFiles } from '../kit/walk.js';
import type { DirReader, ReadMode, RootEnv, TranscriptRoot } from '../types.js';
import { cursorHomes } from './home.js';

const TRANSCRIPTS_DIR = 'agent-transcripts';

export function cursorRoots(config: Config, { env, homedir }: RootEnv): TranscriptRoot[] {
  return cursorHomes({ env, home: homedir, config }).map((h) => {
    const p = path.join(h, 'projects');
    return { agent: 'cursor' as const, path: p, exists: dirExists(p), kind: 'cursor-projects' };
  });
}

/** `projects/<slug>/agent-transcripts/<session>/<file>.jsonl` */
export function isCursorTranscript(filePath: string): boolean {
  const segs = segments(filePath);
  const n = segs.length;
  return n >= 5 && segs[n - 1].endsWith('.jsonl') && segs[n - 3] === TRANSCRIPTS_DIR && segs[n - 5] === 'projects';
}

export function listCursorFiles(root: TranscriptRoot, readDir?: DirReader): string[] {
  // projects/<slug>/agent-transcripts/<session>/<file>: the file is at depth 3 below the root
  const base = path.normalize(root.path);
  const prune = (p: string, name: string) => segments(p.slice(base.length)).length === 2 && name !== TRANSCRIPTS_DIR;
  return walkFiles(base, (p) => isCursorTranscript(p), 3, prune, readDir);
}

export function cursorReadMode(_filePath: string): ReadMode {
  return 'append';
}

/** The session of a transcript: its folder name, plus the file's stem when a folder holds another file. */
export function cursorSessionId(filePath: string): string {
  const segs = segments(filePath);
  const folder = segs[segs.length - 2];
  const stem = segs[segs.length - 1].replace(/\.jsonl$/, '');
  return stem === folder ? folder : `${folder}/${stem}`;
}

/** The workspace of a transcript from `<slug>/.workspace-trusted`, or null (missing, unreadable, not absolute). */
export function cursorWorkspace(filePath: string): string | null {
  const slugDir = path.dirname(path.dirname(path.dirname(filePath)));
  try {
    const j = JSON.parse(fs.readFileSync(path.join(slugDir, '.workspace-trusted'), 'utf8')) as unknown;
    const p = j && typeof j === 'object' ? (j as { workspacePath?: unknown }).workspacePath : undefined;
    return typeof p === 'string' && path.isAbsolute(p) ? p : null;
  } catch {
    return null;
  }
}

/** When the file was last written, in whole ms: the only time a Cursor transcript carries (see parse.ts). */
export function cursorFileTime(filePath: string): number | null {
  try {
    // mtimeMs has a fraction; a stored time is an integer within range
    return storableEpochMs(Math.floor(fs.statSync(filePath).mtimeMs));
  } catch {
    return null;
  }
}
