/**
 * One unit of harvest work, run in a worker thread or inline: read a transcript file from its saved
 * offset (or from the start when it is new, rewritten or truncated), parse the new lines with the
 * adapter's parser, redact the event texts. Pure with respect to the store: the caller writes.
 */
import fs from 'node:fs';
import type { AgentId } from '../core/records.js';
import { getAdapter } from '../../adapters/index.js';
import type { LineParser, ParseOutput, RecordStore } from '../../adapters/types.js';
import { isObj } from '../../adapters/kit/json.js';
import { eventMetaValue, eventRowValues } from '../store/repos/events.js';
import { EventPacker, EventUnpacker, packable, type PackedEvents } from './packed-events.js';
import { redactSecrets, redactValue } from '../core/redact.js';
import { shrinkLongStrings, shrinkLongStringsUtf8 } from './shrink.js';
import { HEAD_BYTES, hashBytes, headHash, stampOf, tailLines, type FileStamp, type TailOptions } from './tailer.js';
import { CompressedFileError, isCompressedTranscript, tailCompressed } from './compressed.js';
import { validateOutput } from './validate-output.js';

/** Tool-output strings longer than this are cut to head + tail before parsing (kit caps them lower anyway). */
const SHRINK_OVER = 1024;
const SHRINK_HEAD = 700;
const SHRINK_TAIL = 250;

export interface FileTask {
  path: string;
  agent: AgentId;
  /** saved offset; 0 = read from the start */
  offset: number;
  /** saved parser state (JSON text) when offset > 0 */
  state: string | null;
  headHash: string | null;
  headLen: number;
  /** the file row's damaged-line counts (JSON) when reading on from `offset` */
  damaged?: string | null;
  maxLineBytes: number;
  /** the stat the caller just took (saves an fstat per file); re-taken when absent */
  stamp?: FileStamp;
}

export interface FileResult {
  path: string;
  agent: AgentId;
  stamp: FileStamp | null;
  offset: number;
  pending: number;
  headHash: string | null;
  headLen: number;
  /** the damaged-line counts of the reads before this one (JSON; dropped when this one starts over) */
  damagedBefore?: string | null;
  /** parsed from byte 0: the session's stored events are replaced, not appended to */
  reset: boolean;
  /** the file was truncated or replaced since the last read */
  rewritten: boolean;
  state: string | null;
  output: ParseOutput | null;
  lines: number;
  bytesRead: number;
  skipped: Record<string, number>;
  /** values replaced to be storable, by field (./validate-output.ts) */
  repaired?: Record<string, number>;
  redactions: number;
  redactionKinds: Record<string, number>;
  /**
   * Set by `packBatch` (worker threads): `output.events` emptied, with the counts the summary
   * needs; `rows` (the events as flat row values, bound without reshaping) filled by `unpackBatch`.
   */
  packed?: { rows: unknown[]; events: number; prompts: number; toolErrors: number };
  /** the file vanished (ENOENT) */
  gone?: boolean;
  /** keep the previous file row and try again later (e.g. a .json caught mid-rewrite) */
  retry?: boolean;
  error?: string;
}

function emptyResult(task: FileTask): FileResult {
  return {
    path: task.path,
    agent: task.agent,
    stamp: null,
    offset: task.offset,
    pending: 0,
    headHash: task.headHash,
    headLen: task.headLen,
    damagedBefore: task.damaged ?? null,
    reset: false,
    rewritten: false,
    state: task.state,
    output: null,
    lines: 0,
    bytesRead: 0,
    skipped: {},
    repaired: {},
    redactions: 0,
    redactionKinds: {},
  };
}

function bump(res: FileResult, reason: string, n = 1): void {
  res.skipped[reason] = (res.skipped[reason] ?? 0) + n;
}

/** One JSON value to the parser: a non-object line and a parser that throws are counted, not fatal. */
function feed(res: FileResult, parser: LineParser, obj: unknown): void {
  if (!isObj(obj)) return bump(res, 'not-object');
  try {
    parser.line(obj);
  } catch {
    bump(res, 'parser-error');
  }
}

/*
 * Why processFile is cut into small functions and the per-line path is a class of its own: V8
 * optimizes a function that runs often (processFile runs once per file, 10,000 times in a cold
 * pass) together with whatever it can inline. With the line loop's callbacks as closures created
 * inside processFile, its optimized code took in the line splitter, the prefilter/shrink/parse
 * path and the adapter's parser; every new transcript format a worker met invalidated that code
 * and it was compiled again, whole (4 compiles of ~50 ms each per isolate, on the same two cores
 * that parse). Kept apart, the per-file glue compiles small and the line path compiles once per
 * shape of its own.
 */

/** The per-line path of a JSONL read: the `TailOptions` the tailer (or the zstd reader) calls. */
class LineFeed implements TailOptions {
  /** the head hash, from the first chunk when reading from 0 */
  headFromRead: string | null = null;

  constructor(
    private readonly res: FileResult,
    private readonly parser: LineParser,
    private readonly prefilter: ((line: string) => string | null) | undefined,
    private readonly shrinkable: ((line: string) => boolean) | undefined,
    readonly maxLineBytes: number,
    readonly endAt: number,
    private readonly headLen: number,
  ) {}

  onOversize(): void {
    bump(this.res, 'oversize');
  }

  onHead(b: Buffer, n: number): void {
    if (n >= this.headLen) this.headFromRead = hashBytes(b.subarray(0, this.headLen));
  }

  onBytes(b: Buffer, s: number, e: number): void {
    this.res.lines++;
    // A UTF-8 byte order mark is not JSON: dropped where a line starts with one (a file's first
    // line as some editors save it, or a later one in a file rewritten or concatenated with one).
    if (e - s >= 3 && b[s] === 0xef && b[s + 1] === 0xbb && b[s + 2] === 0xbf) s += 3;
    // The adapters' prefilter and shrinkable tests look for ASCII markers only, so they are
    // given the raw bytes as latin1 (a cheap one-byte copy, same offsets as the bytes): a
    // skipped line is never decoded, and of a tool-output line only the kept parts are.
    const prefilter = this.prefilter;
    const shrinkable = this.shrinkable;
    const view = prefilter || shrinkable ? b.toString('latin1', s, e) : null;
    if (view !== null) {
      const skip = prefilter?.(view);
      if (skip) return bump(this.res, skip);
    }
    // Most lines are ASCII, and then the latin1 view already is the decoded text: no second
    // (UTF-8) decode of the line, nor its garbage (~10% of a worker's time).
    // (the view's UTF-8 length is its length when no byte is over 0x7f: no Buffer view of the line
    // is made to ask `isAscii`, ~2× cheaper over a pass)
    const ascii = view !== null && Buffer.byteLength(view, 'utf8') === view.length;
    const shrink = view !== null && e - s > SHRINK_OVER && shrinkable?.(view);
    const text = shrink
      ? ascii
        ? shrinkLongStrings(view, SHRINK_OVER, SHRINK_HEAD, SHRINK_TAIL)
        : shrinkLongStringsUtf8(b, s, view, SHRINK_OVER, SHRINK_HEAD, SHRINK_TAIL)
      : ascii
        ? view
        : b.toString('utf8', s, e);
    let obj: unknown;
    try {
      obj = JSON.parse(text);
    } catch {
      return bump(this.res, 'malformed');
    }
    feed(this.res, this.parser, obj);
  }
}

export function processFile(task: FileTask): FileResult {
  const res = emptyResult(task);
  const store = getAdapter(task.agent).store;
  if (store) return readFromStore(task, store, res);
  let fd: number;
  try {
    fd = fs.openSync(task.path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ...res, gone: true };
    return { ...res, retry: true, error: `cannot read: ${(err as Error).message}` };
  }
  try {
    return readOpenFile(task, fd, res);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ...res, gone: true };
    // a corrupt or oversized compressed file stays bad until it changes: record its stamp (no
    // session, no events) and report the error once, instead of retrying it every pass
    if (err instanceof CompressedFileError) return { ...res, lines: 0, skipped: {}, output: { session: null, events: [], finalUpdates: [], skipped: {} }, error: err.message };
    return { ...res, retry: true, error: (err as Error).message };
  } finally {
    fs.closeSync(fd);
  }
}

/** A session inside an adapter's database (adapters/types.ts RecordStore): its records, read whole. */
function readFromStore(task: FileTask, store: RecordStore, res: FileResult): FileResult {
  let read: ReturnType<RecordStore['read']>;
  try {
    read = store.read(task.path);
  } catch (err) {
    // locked past the busy timeout, or damaged: the next pass tries again
    return { ...res, retry: true, error: `cannot read: ${(err as Error).message}` };
  }
  const stamp = task.stamp ?? store.stampAll([task.path])[0];
  if (!read || !stamp) return { ...res, gone: true };
  const parser = getAdapter(task.agent).createParser(task.path, undefined);
  for (const record of read.records) feed(res, parser, record);
  res.stamp = stamp;
  res.reset = true;
  res.lines = read.records.length;
  res.bytesRead = read.bytes;
  res.offset = stamp.size;
  res.headHash = null;
  res.headLen = 0;
  finishParse(res, parser);
  return res;
}

function readOpenFile(task: FileTask, fd: number, res: FileResult): FileResult {
  const adapter = getAdapter(task.agent);
  const stamp = task.stamp ?? stampOf(fs.fstatSync(fd));
  res.stamp = stamp;
  const whole = adapter.readMode(task.path) === 'whole';
  let offset = whole ? 0 : task.offset;
  let stateText = whole ? null : task.state;
  if (offset > 0) {
    const sameHead = task.headHash !== null && stamp.size >= Math.max(offset, task.headLen) && headHash(fd, task.headLen) === task.headHash;
    if (!sameHead) {
      res.rewritten = true;
      offset = 0;
      stateText = null;
    }
  }
  res.reset = offset === 0;
  let state: unknown;
  if (stateText) {
    try {
      state = JSON.parse(stateText);
    } catch {
      // unreadable saved state: start over rather than guess
      offset = 0;
      res.reset = true;
    }
  }
  const parser = adapter.createParser(task.path, state);
  let headFromRead: string | null = null;
  if (adapter.isWholeJson?.(task.path)) {
    const raw = fs.readFileSync(fd, 'utf8');
    res.bytesRead = Buffer.byteLength(raw);
    const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw; // (a byte order mark is not JSON)
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      // VS Code rewrites the whole .json on save: a half-written file is retried next time
      return { ...res, retry: true, error: 'incomplete JSON document (file being rewritten?)' };
    }
    feed(res, parser, doc);
    res.lines = 1;
    res.offset = stamp.size;
  } else {
    const lines = new LineFeed(res, parser, adapter.prefilter, adapter.shrinkable, task.maxLineBytes, stamp.size, Math.min(stamp.size, HEAD_BYTES));
    // a compressed file (.zst, read whole) is decompressed and its lines take the same path
    const tail = (isCompressedTranscript(task.path) ? tailCompressed : tailLines)(fd, offset, lines);
    headFromRead = lines.headFromRead;
    res.bytesRead = tail.offset - offset;
    res.offset = tail.offset;
    res.pending = tail.pending;
  }
  res.headLen = Math.min(stamp.size, HEAD_BYTES);
  res.headHash = headFromRead ?? headHash(fd, res.headLen);
  finishParse(res, parser);
  return res;
}

/** The parser's output and saved state, redacted (what the writer stores). */
function finishParse(res: FileResult, parser: LineParser): void {
  const parsed = parser.flush();
  for (const [k, v] of Object.entries(parsed.skipped)) bump(res, k, v);
  // every adapter's output is made storable here, the one place all of them pass through
  const out = validateOutput(parsed, { skipped: res.skipped, repaired: (res.repaired ??= {}) });
  if (out.redactions) {
    // the builder redacted every text once, whole, before cutting it
    res.redactions += out.redactions.count;
    for (const [k, n] of Object.entries(out.redactions.kinds)) res.redactionKinds[k] = (res.redactionKinds[k] ?? 0) + n;
  } else {
    for (const ev of out.events) {
      const r = redactSecrets(ev.text);
      if (r.count) {
        ev.text = r.text;
        res.redactions += r.count;
        for (const k of r.kinds) res.redactionKinds[k] = (res.redactionKinds[k] ?? 0) + 1;
      }
    }
  }
  if (out.session?.title) out.session.title = redactSecrets(out.session.title).text;
  res.output = { ...out, skipped: {}, redactions: undefined };
  // parser state is stored too (files.state): the session title and any carried text in it are redacted
  const saved = parser.saveRedactedState ? parser.saveRedactedState() : redactValue(parser.saveState());
  res.state = saved === null || saved === undefined ? null : JSON.stringify(saved);
}

/**
 * A worker's batch of results as posted to the writer: the events of every result moved into one
 * columnar `PackedEvents` (see packed-events.ts), `output.events` emptied, each result's
 * `packed` holding its counts and, after `unpackBatch`, its flat row values.
 */
export interface PackedBatch {
  results: FileResult[];
  events: PackedEvents;
  /** per result: its first row in `events` (-1: its rows are in `packed.rows` as they are) */
  firstRow: number[];
}

/** Worker side: packs a batch of results for posting (see `packedBuffers` for the transfer list). */
export function packBatch(results: FileResult[]): PackedBatch {
  const packer = new EventPacker();
  const firstRow: number[] = [];
  for (const r of results) {
    if (!r.output) {
      firstRow.push(-1);
      continue;
    }
    const events = r.output.events;
    let prompts = 0;
    let toolErrors = 0;
    let typed = true;
    for (const e of events) {
      if (e.kind === 'prompt') prompts++;
      else if (e.kind === 'tool_result' && e.isError) toolErrors++;
      if (!packable(e)) typed = false;
    }
    const rows: unknown[] = [];
    if (typed) {
      firstRow.push(packer.rows);
      for (const e of events) packer.add(e, eventMetaValue(e));
    } else {
      // a value of an unexpected type travels as it is (the columnar form only carries the usual ones)
      firstRow.push(-1);
      for (const e of events) eventRowValues(rows, e);
    }
    r.packed = { rows, events: events.length, prompts, toolErrors };
    r.output.events = [];
  }
  return { results, events: packer.finish(), firstRow };
}

/** Writer side: the results of a posted batch, each with its flat row values in `packed.rows`. */
export function unpackBatch(batch: PackedBatch): FileResult[] {
  const rows = new EventUnpacker(batch.events);
  batch.results.forEach((r, i) => {
    const first = batch.firstRow[i];
    if (first >= 0 && r.packed) r.packed.rows = rows.rows(first, first + r.packed.events);
  });
  return batch.results;
}
