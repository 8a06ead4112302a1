/**
 * What `doctor` (and `status`) say about Antigravity's stores beyond the readable transcripts:
 * - conversations the CLI keeps only as `conversations/<id>.db` or `.pb` (no `brain/<id>/…/
 *   transcript.jsonl`): their payload is protobuf without a published schema (older `.pb` files are
 *   reported encrypted), so their content cannot be read and is not guessed at;
 * - the Antigravity editor's `~/.gemini/antigravity/` stores, a separate product, not harvested;
 * - the replay target: `agy` runs headless (`agy -p`) but cannot be a backend here.
 * Sources for each: docs/transcript-formats.md, "Antigravity CLI".
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../src/core/config.js';
import type { AgentDoctorNote } from '../agent.js';
import type { RootEnv } from '../types.js';
import { ANTIGRAVITY_EDITOR_DIR, SHARED_GEMINI_DIR, antigravityHomes } from './home.js';
import { BRAIN_DIR, TRANSCRIPT_FILE, TRANSCRIPT_FULL_FILE } from './paths.js';

const CONVERSATIONS_DIR = 'conversations';
const STORE_EXT = /\.(db|pb)$/;

function names(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function hasTranscript(home: string, id: string): boolean {
  const logs = path.join(home, BRAIN_DIR, id, '.system_generated', 'logs');
  return fs.existsSync(path.join(logs, TRANSCRIPT_FILE)) || fs.existsSync(path.join(logs, TRANSCRIPT_FULL_FILE));
}

/** Conversation ids whose only record is a binary store (no readable transcript beside it). */
export function unreadableConversations(home: string): string[] {
  const ids = new Set(names(path.join(home, CONVERSATIONS_DIR)).filter((n) => STORE_EXT.test(n)).map((n) => n.replace(STORE_EXT, '')));
  return [...ids].filter((id) => !hasTranscript(home, id)).sort();
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The conversations whose content cannot be read: the CLI's binary-only ones, the editor's store. */
export function antigravityUnreadableStores(config: Config, { env, homedir }: RootEnv): AgentDoctorNote[] {
  const notes: AgentDoctorNote[] = [];
  for (const home of antigravityHomes({ env, home: homedir, config })) {
    const lost = unreadableConversations(home);
    if (!lost.length) continue;
    notes.push({
      status: 'warn',
      detail: `${plural(lost.length, 'Antigravity CLI conversation')} in ${path.join(home, CONVERSATIONS_DIR)} ${lost.length === 1 ? 'has no readable transcript: its' : 'have no readable transcript: their'} content is protobuf without a published schema (the oldest .pb files are encrypted), so it cannot be read and is not harvested`,
      fix: `only brain/<id>/.system_generated/logs/transcript.jsonl is read; a conversation without one (early agy builds wrote none) stays unread until Google documents the format (docs/transcript-formats.md, "Antigravity CLI")`,
    });
  }
  const editor = path.join(homedir, SHARED_GEMINI_DIR, ANTIGRAVITY_EDITOR_DIR, CONVERSATIONS_DIR);
  const editorStores = names(editor).filter((n) => STORE_EXT.test(n)).length;
  if (editorStores) {
    notes.push({
      status: 'warn',
      detail: `${plural(editorStores, 'Antigravity editor conversation')} in ${editor}: not harvested (the editor is a separate product; its payloads are protobuf without a published schema)`,
    });
  }
  return notes;
}

/** Everything `doctor` says: what cannot be read, and why `agy` is no replay backend. */
export function antigravityStoreNotes(config: Config, rootEnv: RootEnv): AgentDoctorNote[] {
  const notes = antigravityUnreadableStores(config, rootEnv);
  if (antigravityHomes({ env: rootEnv.env, home: rootEnv.homedir, config }).some((h) => fs.existsSync(h))) {
    notes.push({
      status: 'ok',
      detail: 'Antigravity CLI is not a replay backend: `agy` runs headless (`agy -p`) but is a closed-source binary installed by a script, not from a package registry, and has no documented way to run with a private home, so a replay could not be kept out of your own conversations',
    });
  }
  return notes;
}
