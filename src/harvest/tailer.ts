/**
 * Reads the complete lines of a file from a byte offset. Only `\n`-terminated lines are consumed;
 * an unterminated last line is returned only when it already parses as a JSON object (Claude often
 * omits the final newline), otherwise it is held back for the next read. Lines over the cap are
 * skipped without ever being held in memory whole. Also: head hashes to detect rewritten files.
 */
import fs from 'node:fs';
import crypto from 'node:crypto';

export const HEAD_BYTES = 1024;
const CHUNK = 1 << 20;
/** One read buffer per thread: allocating 1 MiB per file made the GC the harvest's main cost. */
let shared: Buffer | null = null;
const headBuf = Buffer.alloc(HEAD_BYTES);

export interface FileStamp {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

export function stampOf(st: fs.Stats): FileStamp {
  return { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: Math.trunc(st.mtimeMs) };
}

/** sha1 of the first `len` bytes (the identity of a file that only grows). */
export function headHash(fd: number, len: number): string {
  const buf = len <= HEAD_BYTES ? headBuf : Buffer.alloc(len);
  const n = len > 0 ? fs.readSync(fd, buf, 0, len, 0) : 0;
  return crypto.createHash('sha1').update(buf.subarray(0, n)).digest('hex');
}

export interface TailOptions {
  maxLineBytes: number;
  /** receives each complete line (without `\n`/`\r`); return value ignored */
  onLine(line: string): void;
  /** a line over the cap was skipped */
  onOversize(): void;
  /** a cheap byte-level test: return true to skip the line without decoding it */
  skipRaw?(buf: Buffer, start: number, end: number): boolean;
  /** stop reading beyond this many bytes (the size seen by stat; appends after it wait) */
  endAt?: number;
}

export interface TailResult {
  /** the offset after the last consumed byte */
  offset: number;
  /** bytes of an incomplete last line held back */
  pending: number;
}

/** Reads lines from `offset` to the end of file (or `endAt`). Never throws for content. */
export function tailLines(fd: number, offset: number, opts: TailOptions): TailResult {
  // tailLines is synchronous and not re-entrant, so one buffer serves every call on this thread
  const buf = shared ?? (shared = Buffer.allocUnsafe(CHUNK));
  let carry: Buffer | null = null; // start of a line split across chunk reads
  let lineStart = offset; // file offset where the current partial line started
  let pos = offset;
  let skipping = false; // inside an oversize line: drop bytes until the next '\n'
  const end = opts.endAt ?? Number.MAX_SAFE_INTEGER;
  let consumed = offset;

  const emitText = (t: string, s: number, e: number) => {
    if (t.charCodeAt(e - 1) === 0x0d) e--;
    if (e > s) opts.onLine(t.slice(s, e));
  };
  const emit = (b: Buffer, s: number, e: number) => {
    if (e > s && b[e - 1] === 0x0d) e--;
    if (e <= s) return;
    if (opts.skipRaw && opts.skipRaw(b, s, e)) return;
    opts.onLine(b.toString('utf8', s, e));
  };

  while (pos < end) {
    const want = Math.min(CHUNK, end - pos);
    const n = fs.readSync(fd, buf, 0, want, pos);
    if (n <= 0) break;
    let s = 0;
    // finish a line begun in an earlier chunk (or drop the rest of an oversize one)
    if (skipping || carry) {
      const nl = buf.indexOf(0x0a, 0);
      if (nl >= 0 && nl < n) {
        if (carry) {
          const full = Buffer.concat([carry, buf.subarray(0, nl)]);
          carry = null;
          if (full.length > opts.maxLineBytes) opts.onOversize();
          else emit(full, 0, full.length);
        }
        skipping = false;
        s = nl + 1;
        lineStart = consumed = pos + s;
      }
    }
    // decode all complete lines of the chunk at once: one utf8 decode instead of one per line
    const lastNl = skipping || carry ? -1 : buf.lastIndexOf(0x0a, n - 1);
    if (lastNl >= s) {
      const text = buf.toString('utf8', s, lastNl);
      let from = 0;
      for (;;) {
        const nl = text.indexOf('\n', from);
        const end = nl < 0 ? text.length : nl;
        if (end - from > opts.maxLineBytes) opts.onOversize();
        else if (end > from) emitText(text, from, end);
        if (nl < 0) break;
        from = nl + 1;
      }
      s = lastNl + 1;
      lineStart = consumed = pos + s;
    }
    if (s < n && !skipping) {
      const rest = buf.subarray(s, n);
      const have = carry ? carry.length : 0;
      if (have + rest.length > opts.maxLineBytes) {
        carry = null;
        skipping = true;
        opts.onOversize();
      } else {
        carry = carry ? Buffer.concat([carry, rest]) : Buffer.from(rest);
      }
    }
    pos += n;
  }
  if (skipping) {
    // the oversize line has no end yet: consume what we read, the rest is skipped next time
    return { offset: pos, pending: 0 };
  }
  if (carry && carry.length) {
    // unterminated last line: a complete JSON object is a finished line without its '\n'
    const text = carry.toString('utf8').replace(/\r$/, '');
    if (isCompleteJsonObject(text)) {
      opts.onLine(text);
      return { offset: pos, pending: 0 };
    }
    return { offset: consumed, pending: carry.length };
  }
  return { offset: Math.max(consumed, lineStart), pending: 0 };
}

function isCompleteJsonObject(text: string): boolean {
  const t = text.trim();
  if (!t.startsWith('{') || !t.endsWith('}')) return false;
  try {
    const v = JSON.parse(t) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}
