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
  // one-shot (Node ≥ 20.12): no Hash object per file, a third of createHash().update().digest()
  return crypto.hash('sha1', bytes, 'hex');
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

/**
 * Cuts a stream of byte chunks into lines: `\n`-separated, a trailing `\r` dropped, empty lines
 * ignored, lines over the cap skipped (and never held whole). Each line is handed over as a byte
 * range of the chunk (or of the joined carry), valid only during the call. Shared by `tailLines`
 * (a live file) and the compressed reader (a decompressed stream).
 */
export class LineSplitter {
  /** start of a line that continues in the next chunk */
  private carry: Buffer | null = null;
  /** inside an oversize line: drop bytes until the next `\n` */
  private skipping = false;

  constructor(private readonly opts: Pick<TailOptions, 'maxLineBytes' | 'onBytes' | 'onLine' | 'onOversize'>) {}

  private emit(b: Buffer, s: number, e: number): void {
    if (e > s && b[e - 1] === 0x0d) e--;
    if (e <= s) return;
    if (e - s > this.opts.maxLineBytes) return this.opts.onOversize();
    if (this.opts.onBytes) this.opts.onBytes(b, s, e);
    else this.opts.onLine?.(b.toString('utf8', s, e));
  }

  push(chunk: Buffer): void {
    let s = 0;
    // finish a line begun in an earlier chunk (or drop the rest of an oversize one)
    if (this.carry || this.skipping) {
      const nl = chunk.indexOf(0x0a);
      if (nl < 0) return this.hold(chunk, 0);
      if (this.carry) {
        const full = Buffer.concat([this.carry, chunk.subarray(0, nl)]);
        this.carry = null;
        this.emit(full, 0, full.length);
      }
      this.skipping = false;
      s = nl + 1;
    }
    for (;;) {
      const nl = chunk.indexOf(0x0a, s);
      if (nl < 0) break;
      this.emit(chunk, s, nl);
      s = nl + 1;
    }
    if (s < chunk.length) this.hold(chunk, s);
  }

  /** Keeps the start of a line that continues in the next chunk (a copy: chunks are reused). */
  private hold(chunk: Buffer, from: number): void {
    if (this.skipping) return;
    const have = this.carry ? this.carry.length : 0;
    if (have + chunk.length - from > this.opts.maxLineBytes) {
      this.carry = null;
      this.skipping = true;
      this.opts.onOversize();
      return;
    }
    const rest = Buffer.from(chunk.subarray(from));
    this.carry = this.carry ? Buffer.concat([this.carry, rest]) : rest;
  }

  /** The unterminated last line held back so far (null while skipping an oversize line). */
  get pending(): Buffer | null {
    return this.carry;
  }

  /** Inside an oversize line whose end has not been read yet. */
  get inOversizeLine(): boolean {
    return this.skipping;
  }

  /** The stream is complete: an unterminated last line is a line too. */
  end(): void {
    if (this.carry) this.emit(this.carry, 0, this.carry.length);
    this.carry = null;
  }
}

/** Reads lines from `offset` to the end of file (or `endAt`). Never throws for content. */
export function tailLines(fd: number, offset: number, opts: TailOptions): TailResult {
  // tailLines is synchronous and not re-entrant, so one buffer serves every call on this thread
  const buf = shared ?? (shared = Buffer.allocUnsafe(CHUNK));
  // Lines are found and handed over as bytes: undecoded, a caller can skip or cut a line cheaply.
  const lines = new LineSplitter(opts);
  const end = opts.endAt ?? Number.MAX_SAFE_INTEGER;
  let pos = offset;
  while (pos < end) {
    const n = fs.readSync(fd, buf, 0, Math.min(CHUNK, end - pos), pos);
    if (n <= 0) break;
    if (pos === 0 && opts.onHead) opts.onHead(buf, n);
    lines.push(buf.subarray(0, n));
    pos += n;
  }
  // the oversize line has no end yet: consume what we read, the rest is skipped next time
  if (lines.inOversizeLine) return { offset: pos, pending: 0 };
  const carry = lines.pending;
  if (!carry) return { offset: pos, pending: 0 };
  // unterminated last line: a complete JSON object is a finished line without its '\n'
  // (Claude often omits the final newline); anything else waits for the rest of the line
  if (isCompleteJsonObject(carry.toString('utf8').replace(/\r$/, ''))) {
    lines.end();
    return { offset: pos, pending: 0 };
  }
  return { offset: pos - carry.length, pending: carry.length };
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
