/**
 * Where Antigravity CLI keeps readable transcripts: `<home>/brain/<conversation-id>/.system_generated/
 * logs/transcript.jsonl`, and `transcript_full.jsonl` beside it, the untruncated copy (sources in
 * docs/transcript-formats.md, "Antigravity CLI": ccgram issue #146, memex PR #191, the capture in
 * nizos/probity). Both name the same conversation; the full one is preferred. The per-conversation
 * databases in `<home>/conversations/` hold the same steps as protobuf without a published schema
 * and are not read (store-notes.ts says so in `doctor` and `status`).
 */
import path from 'node:path';
import type { Config } from '../../src/core/config.js';
import { dirExists, segments, walkFiles } from '../kit/walk.js';
import type { DirReader, ReadMode, RootEnv, TranscriptRoot } from '../types.js';
import { antigravityHomes } from './home.js';

export const BRAIN_DIR = 'brain';
const SYSTEM_DIR = '.system_generated';
const LOGS_DIR = 'logs';
export const TRANSCRIPT_FILE = 'transcript.jsonl';
export const TRANSCRIPT_FULL_FILE = 'transcript_full.jsonl';

export function antigravityRoots(config: Config, { env, homedir }: RootEnv): TranscriptRoot[] {
  return antigravityHomes({ env, home: homedir, config }).map((h) => {
    const p = path.join(h, BRAIN_DIR);
    return { agent: 'antigravity' as const, path: p, exists: dirExists(p), kind: 'antigravity-brain' };
  });
}

/** `brain/<id>/.system_generated/logs/transcript[_full].jsonl` */
export function isAntigravityTranscript(filePath: string): boolean {
  const segs = segments(filePath);
  const n = segs.length;
  const base = segs[n - 1];
  return n >= 5 && (base === TRANSCRIPT_FILE || base === TRANSCRIPT_FULL_FILE) && segs[n - 2] === LOGS_DIR && segs[n - 3] === SYSTEM_DIR && segs[n - 5] === BRAIN_DIR;
}

export function listAntigravityFiles(root: TranscriptRoot, readDir?: DirReader): string[] {
  // brain/<id>/.system_generated/logs/<file>: the file is at depth 3 below the root; artifacts the
  // agent wrote into brain/<id>/ (plans, scratch files) are never walked
  const base = path.normalize(root.path);
  const prune = (p: string, name: string) => {
    const depth = segments(p.slice(base.length)).length;
    return (depth === 2 && name !== SYSTEM_DIR) || (depth === 3 && name !== LOGS_DIR);
  };
  return walkFiles(base, (p) => isAntigravityTranscript(p), 3, prune, readDir);
}

/**
 * Re-read whole on every change: no source says the file is only appended to (its records carry a
 * `step_index`, and the captured session skips one, so a step may be written late).
 */
export function antigravityReadMode(_filePath: string): ReadMode {
  return 'whole';
}

/** The untruncated copy of a conversation wins over the display copy. */
export function antigravityPreferFile(candidate: string, owner: string): boolean {
  return path.basename(candidate) === TRANSCRIPT_FULL_FILE && path.basename(owner) === TRANSCRIPT_FILE;
}

/** The conversation id of a transcript: its `brain/` folder name. */
export function antigravityConversationId(filePath: string): string {
  const segs = segments(filePath);
  return segs[segs.length - 4];
}

/** The CLI's home folder of a transcript (`<home>/brain/<id>/.system_generated/logs/<file>`). */
export function antigravityHomeOf(filePath: string): string {
  let dir = filePath;
  for (let i = 0; i < 5; i++) dir = path.dirname(dir);
  return dir;
}
