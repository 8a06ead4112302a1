/**
 * Where Pi writes sessions: `<agent dir>/sessions/--<cwd with / as ->--/<timestamp>_<uuid>.jsonl`
 * (pi-mono session-manager.ts `getDefaultSessionDir`, its session.md doc). A session file is
 * append-only, but a v2/v3 file is a tree: a later entry may branch from an earlier one, so the
 * active conversation (last entry back to the root) can change under events already stored. The
 * file is therefore read whole on every change (an unchanged file is not read at all).
 */
import path from 'node:path';
import type { Config } from '../../src/core/config.js';
import { dirExists, segments, walkFiles } from '../kit/walk.js';
import type { DirReader, ReadMode, RootEnv, TranscriptRoot } from '../types.js';
import { piHomes } from './home.js';

function isProjectFolderName(name: string): boolean {
  return name.length > 4 && name.startsWith('--') && name.endsWith('--');
}

export function piRoots(config: Config, { env, homedir }: RootEnv): TranscriptRoot[] {
  return piHomes({ env, home: homedir, config }).map((h) => {
    const p = path.join(h, 'sessions');
    return { agent: 'pi' as const, path: p, exists: dirExists(p), kind: 'pi-sessions' };
  });
}

/** `sessions/--<project>--/<name>.jsonl`: the shape no other agent's transcripts have. */
export function isPiTranscript(filePath: string): boolean {
  const segs = segments(filePath);
  const n = segs.length;
  return n >= 3 && segs[n - 1].endsWith('.jsonl') && isProjectFolderName(segs[n - 2]) && segs[n - 3] === 'sessions';
}

export function listPiFiles(root: TranscriptRoot, readDir?: DirReader): string[] {
  const base = path.normalize(root.path);
  // only `--<project>--` folders hold sessions (depth 1 under the root)
  const prune = (p: string, name: string) => segments(p.slice(base.length)).length === 1 && !isProjectFolderName(name);
  return walkFiles(base, (p) => isPiTranscript(p), 1, prune, readDir);
}

export function piReadMode(_filePath: string): ReadMode {
  return 'whole';
}
