/**
 * The harvest side of an agent adapter: where an agent keeps its transcripts, which files are
 * transcripts, and how the lines of one file become normalized events. Only `adapters/` knows a
 * vendor's format; `src/harvest` drives these through this interface.
 */
import type { Dirent } from 'node:fs';
import type { AgentId, SessionEvent, SessionKind } from '../src/core/records.js';
import type { Config } from '../src/core/config.js';

/** A directory the daemon watches and the harvester walks. It may not exist yet. */
export interface TranscriptRoot {
  agent: AgentId;
  path: string;
  exists: boolean;
  /** what lives there: `claude-config`, `codex-home`, `vscode-user`, `copilot-home` */
  kind: string;
}

export interface RootEnv {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  homedir: string;
}

/** What the adapter knows about a session after the lines read so far (cumulative). */
export interface SessionSnapshot {
  /** `<agent>:<vendorId>` */
  id: string;
  vendorId: string;
  cwd: string | null;
  /** a git root the vendor recorded (Copilot CLI); otherwise ingest looks for one */
  gitRoot: string | null;
  gitBranch: string | null;
  startedAt: number | null;
  endedAt: number | null;
  title: string | null;
  promptCount: number;
  toolErrorCount: number;
  /** vendor-level kind; ingest upgrades it to `self` for our replay workspaces */
  kind: Exclude<SessionKind, 'self'>;
  parentId: string | null;
}

export interface FinalUpdate {
  sessionId: string;
  seq: number;
  final: boolean;
}

export interface TextAppend {
  sessionId: string;
  seq: number;
  text: string;
  /** the cap of the event's kind (the joined text is cut to it after redaction) */
  max: number;
  /** the message may still continue in a later read: the join holds back a trailing secret head */
  open?: boolean;
}

/** The output of feeding some lines to a parser, then `flush()`ing it. */
export interface ParseOutput {
  /** null when the lines seen so far carry no session identity (e.g. only side-channel records) */
  session: SessionSnapshot | null;
  /**
   * new events since the last flush. Parsers built on the SessionBuilder redact every text before
   * cutting it and say so in `redactions`; without it the harvest redacts the (cut) texts itself.
   */
  events: SessionEvent[];
  /** `meta.final` changes for events emitted by earlier flushes (already stored) */
  finalUpdates: FinalUpdate[];
  /** lines skipped since the last flush, by reason (unknown-type, injected, subagent...) */
  skipped: Record<string, number>;
  /**
   * Text that continues an event stored by an earlier read (an assistant message whose parts were
   * split across two harvests). `text` is raw: the writer joins it to the stored text and redacts
   * the join as a whole, so a secret split across the two reads is still caught.
   */
  textAppends?: TextAppend[];
  /** set when the event texts are already redacted: how many secrets were replaced, by kind */
  redactions?: { count: number; kinds: Record<string, number> };
}

/** An incremental parser for one transcript file; its state survives between harvests as JSON. */
export interface LineParser {
  /** One complete line, already JSON-parsed and checked to be a plain object. */
  line(obj: Record<string, unknown>): void;
  flush(): ParseOutput;
  /** JSON-serializable state to resume from the next offset (append-mode files only). */
  saveState(): unknown;
  /**
   * Optional: `saveState()` as it is stored, every string that may hold a secret redacted — for a
   * parser whose state holds many strings that provably cannot (digests of a fixed shape). It must
   * equal `redactValue(saveState())`. Absent: the harvest redacts the whole state.
   */
  saveRedactedState?(): unknown;
}

/** A directory's entries, or null when it is missing or unreadable. */
export type DirReader = (dir: string) => readonly Dirent[] | null;

/**
 * `append`: JSONL that only grows; parse new lines from the saved offset with the saved state.
 * `whole`: the file is rewritten or must be replayed from the start (VS Code); every change
 * re-reads it and replaces the session's events.
 */
export type ReadMode = 'append' | 'whole';

/** The change stamp of one transcript, as the harvest compares it between passes (a file's stat). */
export interface SourceStamp {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

/**
 * A transcript store that is not one file per session (OpenCode's SQLite database): each path
 * `listFiles` returns names one session inside it, which is stamped and read through this instead
 * of `stat` and the line reader. The session is read whole on every change.
 */
export interface RecordStore {
  /** one look at the store for every listed path: its stamp, or null when the session is gone */
  stampAll(paths: readonly string[]): Array<SourceStamp | null>;
  /** the session's records for the parser, and the bytes read to get them; null when it is gone */
  read(path: string): { records: Array<Record<string, unknown>>; bytes: number } | null;
}

export interface HarvestAdapter {
  id: AgentId;
  /** set when the transcripts live in a database rather than files (see RecordStore) */
  store?: RecordStore;
  /** every root this agent may write to, existing or not (the daemon watches missing ones too) */
  roots(config: Config, rootEnv: RootEnv): TranscriptRoot[];
  /**
   * transcript files under one root (missing or vanishing directories are not errors); `readDir`
   * lists one directory (the harvest passes one that reuses unchanged listings between passes)
   */
  listFiles(root: TranscriptRoot, readDir?: DirReader): string[];
  isTranscriptFile(filePath: string): boolean;
  readMode(filePath: string): ReadMode;
  /** `state` is what `saveState()` returned last time, or undefined for a fresh read */
  createParser(filePath: string, state: unknown): LineParser;
  /**
   * Optional cheap look at a raw line before JSON.parse: returns a skip reason when the line
   * can be dropped unparsed (big side-channel records), or null to parse it.
   */
  prefilter?(line: string): string | null;
  /**
   * Optional: lines whose long string values are tool output that may be cut to head and tail
   * before JSON.parse (see src/harvest/shrink.ts). Must only say yes when no prompt or answer text
   * can be in the line.
   */
  shrinkable?(line: string): boolean;
  /** whole-mode files that are a single JSON document rather than JSONL */
  isWholeJson?(filePath: string): boolean;
  /**
   * When two files of this agent claim one session: whether `candidate` should replace `owner` as
   * its source (an active copy over an archived one, a newer store over an older one). Absent: the
   * first file read keeps it.
   */
  preferFile?(candidate: string, owner: string): boolean;
}
