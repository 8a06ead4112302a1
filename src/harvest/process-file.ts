/**
 * One unit of harvest work, run in a worker thread or inline: read a transcript file from its saved
 * offset (or from the start when it is new, rewritten or truncated), parse the new lines with the
 * adapter's parser, redact the event texts. Pure with respect to the store: the caller writes.
 */
import fs from 'node:fs';
import type { AgentId } from '../core/records.js';
import { getAdapter } from '../../adapters/index.js';
import type { ParseOutput } from '../../adapters/types.js';
import { isObj } from '../../adapters/kit.js';
import { redactSecrets } from './redact.js';
import { shrinkLongStrings } from './shrink.js';
import { HEAD_BYTES, headHash, stampOf, tailLines, type FileStamp } from './tailer.js';

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
  /** parsed from byte 0: the session's stored events are replaced, not appended to */
  reset: boolean;
  /** the file was truncated or replaced since the last read */
  rewritten: boolean;
  state: string | null;
  output: ParseOutput | null;
  lines: number;
  bytesRead: number;
  skipped: Record<string, number>;
  redactions: number;
  redactionKinds: Record<string, number>;
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
    reset: false,
    rewritten: false,
    state: task.state,
    output: null,
    lines: 0,
    bytesRead: 0,
    skipped: {},
    redactions: 0,
    redactionKinds: {},
  };
}

export function processFile(task: FileTask): FileResult {
  const res = emptyResult(task);
  const bump = (reason: string, n = 1) => {
    res.skipped[reason] = (res.skipped[reason] ?? 0) + n;
  };
  let fd: number;
  try {
    fd = fs.openSync(task.path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ...res, gone: true };
    return { ...res, retry: true, error: `cannot read: ${(err as Error).message}` };
  }
  try {
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
    const feed = (obj: unknown) => {
      if (!isObj(obj)) return bump('not-object');
      try {
        parser.line(obj);
      } catch {
        bump('parser-error');
      }
    };
    if (adapter.isWholeJson?.(task.path)) {
      const text = fs.readFileSync(fd, 'utf8');
      res.bytesRead = Buffer.byteLength(text);
      try {
        feed(JSON.parse(text));
        res.lines = 1;
      } catch {
        // VS Code rewrites the whole .json on save: a half-written file is retried next time
        return { ...res, retry: true, error: 'incomplete JSON document (file being rewritten?)' };
      }
      res.offset = stamp.size;
    } else {
      const prefilter = adapter.prefilter;
      const shrinkable = adapter.shrinkable;
      const tail = tailLines(fd, offset, {
        maxLineBytes: task.maxLineBytes,
        endAt: stamp.size,
        onOversize: () => bump('oversize'),
        onLine: (line) => {
          res.lines++;
          const skip = prefilter?.(line);
          if (skip) return bump(skip);
          let obj: unknown;
          try {
            obj = JSON.parse(line.length > SHRINK_OVER && shrinkable?.(line) ? shrinkLongStrings(line, SHRINK_OVER, SHRINK_HEAD, SHRINK_TAIL) : line);
          } catch {
            return bump('malformed');
          }
          feed(obj);
        },
      });
      res.bytesRead = tail.offset - offset;
      res.offset = tail.offset;
      res.pending = tail.pending;
    }
    res.headLen = Math.min(stamp.size, HEAD_BYTES);
    res.headHash = headHash(fd, res.headLen);
    const out = parser.flush();
    for (const [k, v] of Object.entries(out.skipped)) bump(k, v);
    for (const ev of out.events) {
      const r = redactSecrets(ev.text);
      if (r.count) {
        ev.text = r.text;
        res.redactions += r.count;
        for (const k of r.kinds) res.redactionKinds[k] = (res.redactionKinds[k] ?? 0) + 1;
      }
    }
    if (out.session?.title) out.session.title = redactSecrets(out.session.title).text;
    res.output = { ...out, skipped: {} };
    const saved = parser.saveState();
    res.state = saved === null || saved === undefined ? null : JSON.stringify(saved);
    return res;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ...res, gone: true };
    return { ...res, retry: true, error: (err as Error).message };
  } finally {
    fs.closeSync(fd);
  }
}
