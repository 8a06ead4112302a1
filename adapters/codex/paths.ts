/**
 * Where Codex writes rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<uuid>.jsonl`
 * and `$CODEX_HOME/archived_sessions/rollout-….jsonl` (`codex archive` moves files there).
 * Cold rollouts may be zstd-compressed, `rollout-….jsonl.zst` (a feature flag): finished sessions,
 * read whole (src/harvest/compressed.ts); when both forms exist the plain `.jsonl` wins (ingest).
 * Homes: config `agents.codex.roots`, `CODEX_HOME` (comma list accepted) or ~/.codex.
 */
import path from 'node:path';
import type { Config } from '../../src/core/config.js';
import { dirExists, segments, walkFiles } from '../kit/walk.js';
import type { DirReader, ReadMode, RootEnv, TranscriptRoot } from '../types.js';
import { codexHomes as resolveCodexHomes } from './home.js';

/** A rollout file name: `rollout-….jsonl`, or its compressed cold form `rollout-….jsonl.zst`. */
function isRolloutName(name: string): boolean {
  return name.startsWith('rollout-') && (name.endsWith('.jsonl') || name.endsWith('.jsonl.zst'));
}

/** Compressed rollouts are finished sessions: read whole, a changed file replaces the events. */
export function codexReadMode(filePath: string): ReadMode {
  return filePath.endsWith('.zst') ? 'whole' : 'append';
}

/** The Codex homes the harvest reads (./home.ts is the one resolver; this is its harvest-side form). */
export function codexHomes(config: Config, { env, homedir }: RootEnv): string[] {
  return resolveCodexHomes({ env, home: homedir, config });
}

export function codexRoots(config: Config, rootEnv: RootEnv): TranscriptRoot[] {
  const out: TranscriptRoot[] = [];
  for (const home of codexHomes(config, rootEnv)) {
    for (const [sub, kind] of [
      ['sessions', 'codex-sessions'],
      ['archived_sessions', 'codex-archived'],
    ] as const) {
      const p = path.join(home, sub);
      out.push({ agent: 'codex', path: p, exists: dirExists(p), kind });
    }
  }
  return out;
}

export function isCodexTranscript(filePath: string): boolean {
  if (!isRolloutName(path.basename(filePath))) return false;
  const segs = segments(filePath);
  return segs.includes('sessions') || segs.includes('archived_sessions');
}

export function listCodexFiles(root: TranscriptRoot, readDir?: DirReader): string[] {
  return walkFiles(root.path, (_p, name) => isRolloutName(name), root.kind === 'codex-sessions' ? 3 : 0, undefined, readDir);
}

/** The thread id is the last UUID in the file name (forks: `rollout-<ts>-<root>_<thread>.jsonl`; `.zst` too). */
export function codexIdFromPath(filePath: string): string | null {
  const m = path.basename(filePath).match(/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(?:\.zst)?$/i);
  return m ? m[1].toLowerCase() : null;
}

/**
 * When two rollouts claim one thread: the active copy beats the archived one, and the plain
 * `.jsonl` beats its compressed `.zst` form (both exist while a cold session is resumed) — so one
 * session is kept, from the file Codex still appends to.
 */
export function codexPreferFile(candidate: string, owner: string): boolean {
  const archived = (p: string) => segments(p).includes('archived_sessions');
  if (archived(owner) && !archived(candidate)) return true;
  return owner.endsWith('.zst') && !candidate.endsWith('.zst') && archived(owner) === archived(candidate);
}
