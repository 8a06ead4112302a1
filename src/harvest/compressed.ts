/**
 * Compressed transcripts: Codex's "cold" rollouts `rollout-*.jsonl.zst` (docs/transcript-formats.md
 * §2.1). Node 20's zlib has no zstd, so the pure-JS `fzstd` decoder is used. A compressed file is a
 * finished session: it is read whole (the adapter's read mode is `whole`), decompressed as a stream
 * and cut into lines that go through the same per-line path as a plain file's (`TailOptions`), so
 * the prefilter, shrink and parser treat both alike.
 *
 * Guards: the decompressed size is capped (a small file can expand without bound: a "zip bomb"
 * must not take the harvester's memory), lines over `maxLineBytes` are skipped like in tailLines,
 * and corrupt or truncated data is a `CompressedFileError` — a per-file error, never a crash.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type * as Fzstd from 'fzstd';
import { LineSplitter, type TailOptions, type TailResult } from './tailer.js';

// loaded on first use: every harvest worker thread loads this module, and most never meet a .zst
let fzstd: typeof Fzstd | null = null;

/** Refuse a compressed transcript whose content is larger than this (256 MiB). */
export const MAX_DECOMPRESSED_BYTES = 256 * 1024 * 1024;
const READ_CHUNK = 1 << 20;

/** A compressed transcript that cannot be read: corrupt, truncated or over the size cap. */
export class CompressedFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CompressedFileError';
  }
}

/** Whether a transcript path is a compressed file this module reads. */
export function isCompressedTranscript(filePath: string): boolean {
  return filePath.endsWith('.zst');
}

/**
 * Reads a whole zstd-compressed JSONL file from `fd` and hands its lines to `opts` like
 * `tailLines` does. `opts.onHead` receives the first raw (compressed) bytes, so the stored head
 * hash is the file's own. Throws `CompressedFileError` for corrupt, truncated or oversized data;
 * lines seen before the error have been handed over, so the caller must discard the parse.
 */
export function tailCompressed(fd: number, offset: number, opts: TailOptions, maxBytes = MAX_DECOMPRESSED_BYTES): TailResult {
  // a finished file is never resumed mid-way (read mode `whole`): an offset means a caller bug
  if (offset !== 0) throw new CompressedFileError(`compressed transcripts are read whole (offset ${offset})`);
  const end = opts.endAt ?? fs.fstatSync(fd).size;
  const lines = new LineSplitter(opts);
  let total = 0;
  fzstd ??= createRequire(import.meta.url)('fzstd') as typeof Fzstd;
  const dec = new fzstd.Decompress((chunk) => {
    total += chunk.length;
    // thrown from inside push(): stops the decoder at once instead of expanding the rest
    if (total > maxBytes) throw new CompressedFileError(`decompressed size over the ${Math.round(maxBytes / 1048576)} MiB cap: file skipped`);
    lines.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
  });
  if (end === 0) throw new CompressedFileError('empty compressed file');
  let pos = 0;
  while (pos < end) {
    // a fresh buffer per read: the decoder keeps references to input it has not consumed yet
    const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, end - pos));
    const n = fs.readSync(fd, buf, 0, buf.length, pos); // I/O errors pass through (the caller retries)
    if (n <= 0) throw new CompressedFileError(`file shrank while reading (${pos} of ${end} bytes)`);
    if (pos === 0) opts.onHead?.(buf, n);
    pos += n;
    try {
      dec.push(buf.subarray(0, n), pos >= end);
    } catch (err) {
      // whatever the decoder throws on bad input (InvalidData, UnexpectedEOF, a RangeError...) is
      // this file's problem, not the pass's
      if (err instanceof CompressedFileError) throw err;
      throw new CompressedFileError(`corrupt zstd data: ${(err as Error).message}`);
    }
  }
  lines.end();
  return { offset: end, pending: 0 };
}
