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
  return hashBytes(buf.subarray(0, n));
}

export function hashBytes(bytes: Buffer): string {
  return crypto.createHash('sha1').update(bytes).digest('hex');
}

export interface TailOptions {
  maxLineBytes: number;
  /** receives each complete line (without `\n`/`\r`), decoded; return value ignored */
  onLine?(line: string): void;
  /**
   * Instead of `onLine`: receives each complete line as a byte range of `buf` (valid only during
   * the call), so the caller decodes only what it needs.
   */
  onBytes?(buf: Buffer, start: number, end: number): void;
  /** a line over the cap was skipped */
  onOversize(): void;
  /** stop reading beyond this many bytes (the size seen by stat; appends after it wait) */
  endAt?: number;
  /** receives the first bytes read from offset 0 (saves a second read for the head hash) */
  onHead?(buf: Buffer, len: number): void;
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
  let pos = offset;
  let skipping = false; // inside an oversize line: drop bytes until the next '\n'
  const end = opts.endAt ?? Number.MAX_SAFE_INTEGER;
  let consumed = offset;

  // Lines are found and handed over as bytes: undecoded, a caller can skip or cut a line cheaply.
  const emit = (b: Buffer, s: number, e: number) => {
    if (e > s && b[e - 1] === 0x0d) e--;
    if (e <= s) return;
    if (opts.onBytes) opts.onBytes(b, s, e);
    else opts.onLine?.(b.toString('utf8', s, e));
  };

  while (pos < end) {
    const want = Math.min(CHUNK, end - pos);
    const n = fs.readSync(fd, buf, 0, want, pos);
    if (n <= 0) break;
    if (pos === 0 && opts.onHead) opts.onHead(buf, n);
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
        consumed = pos + s;
      }
    }
    if (!skipping && !carry) {
      for (;;) {
        const nl = buf.indexOf(0x0a, s);
        if (nl < 0 || nl >= n) break; // (bytes past n are an earlier read's)
        if (nl - s > opts.maxLineBytes) opts.onOversize();
        else emit(buf, s, nl);
        s = nl + 1;
      }
      consumed = pos + s;
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
      emit(carry, 0, carry.length);
      return { offset: pos, pending: 0 };
    }
    return { offset: consumed, pending: carry.length };
  }
  return { offset: consumed, pending: 0 };
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
